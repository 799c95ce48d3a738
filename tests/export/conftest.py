"""Sessions to export: native ones from the demo, and a Claude Code one with a compaction and a subagent."""

from __future__ import annotations

import pytest

from sessionscope.sources.claude_code import import_paths
from sessionscope.store.demo import build_demo
from tests.sources.claude_factory import Transcript


def claude_session(folder, secret_text: str = "") -> Transcript:
    """A Claude Code session (tool call and result, compaction, a Task with a nested subagent)."""
    t = Transcript(cwd="/work/app")
    t.user("Find the flaky test" + secret_text)
    call = t.assistant(tool=("Bash", {"command": "pytest -x" + secret_text}))
    t.tool_result(call, "1 failed" + secret_text)
    t.assistant("It races the cookie.")
    t.compact("Summary: the login test races the cookie.")
    t.user("Fix it")
    task = t.assistant(tool=("Task", {"subagent_type": "general", "prompt": "look"}))
    t.tool_result(task, "found it", extra={"agentId": "a1b2c3d", "status": "completed", "agentType": "general"})
    t.assistant("Fixed by waiting for the redirect.")
    t.write(folder)
    t.write_subagent(folder, "a1b2c3d", "look", "looked in tests/")
    return t


@pytest.fixture
def rich_store(store, tmp_path):
    """The demo's native sessions plus one imported Claude Code session; returns (store, claude transcript)."""
    build_demo(store)
    project = tmp_path / "claude-home" / "projects" / "-work-app"
    t = claude_session(project)
    import_paths(store, [project])
    return store, t
