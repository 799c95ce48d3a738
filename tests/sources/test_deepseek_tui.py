"""DeepSeek TUI (#64 item 1): one JSON document a session in `~/.deepseek/sessions/`, read whole when it changes:
its title, folder, model and tokens, text and Anthropic-shaped blocks (thinking, calls paired with results); the
files beside them that are no session are left alone; recognised by its content anywhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sessionscope import sources
from sessionscope.sources import importing

PUBLIC = Path(__file__).parent / "public" / "deepseek_tui"


def test_deepseek_tui_sessions(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    folder = home / ".deepseek" / "sessions"
    shutil.copytree(PUBLIC, folder)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    assert sources.of("deepseek_tui").default_roots() == [folder]
    report = sources.of("deepseek_tui").import_paths(store, [folder])
    assert report.files_read == 2 and report.bad_lines == 0 and not report.problems, report.problems
    by_id = {s.tool_id: s for s in store.sessions()}
    first = by_id["session_123"]
    assert (first.source_kind, first.title, first.cwd, first.model, first.tokens_in) == (
        "deepseek_tui", "Investigate DeepSeek TUI", "/Users/alice/code/sample-project", "deepseek-chat", 999)
    assert [(e.kind, e.role, e.text) for e in store.branch_view(first.id)] == [
        ("message", "user", "Inspect server logs"), ("message", "assistant", "The server failed during startup.")]
    tools = store.branch_view(by_id["session_tools"].id)
    assert [e.kind for e in tools] == ["message", "thinking", "tool_call", "tool_result", "message"]
    assert json.loads(tools[3].payload)["tool_use_id"] == json.loads(tools[2].payload)["id"] == "toolu_1"
    # rewritten whole as it grows: only the new message is added
    doc = json.loads((folder / "session_123.json").read_text())
    doc["messages"].append({"role": "user", "content": "and restart it", "timestamp": "2026-06-01T10:03:00Z"})
    (folder / "session_123.json").write_text(json.dumps(doc))
    again = sources.of("deepseek_tui").import_paths(store, [folder])
    assert again.events_added == 1 and store.branch_view(first.id)[-1].text == "and restart it"


def test_a_deepseek_tui_session_is_recognised_anywhere(store, tmp_path):
    shutil.copy(PUBLIC / "session_tools.json", tmp_path / "copied.json")
    assert importing.classify(tmp_path / "copied.json") == "deepseek_tui"
    assert importing.classify(PUBLIC / "latest.json") is None
