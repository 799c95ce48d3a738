"""Sessions another process writes into the store (an agent through an SDK adapter) show up in the
open window within the watcher's two seconds, and a followed session's timeline grows."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.sources.claude_factory import Transcript

pytest.importorskip("claude_agent_sdk")

_MIRROR = """
import asyncio, json, sys
from sessionscope.adapters.claude import ClaudeSessionStore
backend = ClaudeSessionStore(sys.argv[1])
asyncio.run(backend.append({"project_key": "-app", "session_id": sys.argv[2]}, json.loads(sys.stdin.read())))
backend.close()
"""


def _mirror(db, session_id: str, lines: list[dict]) -> None:
    """What an agent's process does: hand transcript lines to the adapter over the same store file."""
    out = subprocess.run([sys.executable, "-c", _MIRROR, str(db), session_id], input=json.dumps(lines), cwd=REPO,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_a_session_an_agent_mirrors_appears_live_and_grows(window, qtbot, demo):
    store, _ = demo
    db = store.url.removeprefix("sqlite:///")
    t = Transcript(cwd="/work/app")
    t.user("mirror me into the open window")
    t.assistant("on it")
    qtbot.waitUntil(lambda: window.imports.watcher.mark is not None, timeout=5000)
    _mirror(db, t.session_id, t.lines)
    qtbot.waitUntil(lambda: window.sessions.model.row_of(t.session_id) >= 0, timeout=5000)

    window.sessions.view.selectRow(window.sessions.model.row_of(t.session_id))
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == t.session_id
                    and window.branch.timeline_model.rowCount() == 2, timeout=5000)
    t.user("and a second turn")
    t.assistant("still here")
    _mirror(db, t.session_id, t.lines[2:])
    qtbot.waitUntil(lambda: window.branch.timeline_model.rowCount() == 4, timeout=5000)


def test_three_sdks_writing_at_once_all_show_up_live(window, qtbot, demo):
    """tests/adapters/live_agents.py: the Claude Agent SDK, the Agents SDK and LangGraph, one store."""
    pytest.importorskip("agents")
    pytest.importorskip("langgraph.checkpoint.sqlite")
    store, _ = demo
    qtbot.waitUntil(lambda: window.imports.watcher.mark is not None, timeout=5000)
    out = subprocess.run([sys.executable, "-m", "tests.adapters.live_agents", store.url.removeprefix("sqlite:///")],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    ids = out.stdout.split()
    assert len(ids) == 3
    qtbot.waitUntil(lambda: all(window.sessions.model.row_of(i) >= 0 for i in ids), timeout=5000)
    kinds = {window.sessions.model.session_at(window.sessions.model.row_of(i)).source_kind for i in ids}
    assert kinds == {"claude_code", "native", "langgraph"}
