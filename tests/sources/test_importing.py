"""Import recognises each file by its content: the right tool reads it, an unknown format is reported."""

from __future__ import annotations

import pytest

from sessionscope.sources import importing
from tests.sources.claude_factory import Transcript
from tests.sources.codex_factory import Rollout


def test_a_mixed_folder_goes_to_the_right_tools(store, tmp_path):
    folder = tmp_path / "mixed"
    t = Transcript()
    t.user("a claude prompt")
    t.assistant("a claude reply")
    t.write(folder / "claude")
    r = Rollout("019c8a4c-ed82-79a1-aa28-7738fc5ab61a")
    r.turn("a codex prompt", "a codex reply")
    r.write(folder / "codex")
    (folder / "gemini.jsonl").write_text('{"sessionId": "g-1", "projectHash": "y", "startTime": "2026-01-01"}\n'
                                         '{"id": "m1", "type": "user", "content": [{"text": "a gemini prompt"}]}\n')
    (folder / "openhands.jsonl").write_text('{"action": "run", "args": {"command": "ls"}, "source": "agent"}\n')
    (folder / "empty.jsonl").write_text("")
    report = importing.import_paths(store, [folder])
    kinds = {s.id: s.source_kind for s in store.sessions()}
    assert kinds == {t.session_id: "claude_code", r.session_id: "codex", "g-1": "gemini"}
    assert [p["path"] for p in report.problems] == [str(folder / "openhands.jsonl")]
    assert "not a session format" in report.problems[0]["problem"]
    assert report.files_read == 4  # the empty file too: its reader counts what it holds
    assert sorted(store.source_locations()) == [str(folder)] * 3  # one source row a tool
    again = importing.import_paths(store, [folder])
    assert again.events_added == 0


def test_the_codex_corpus_is_not_read_as_claude_code(corpus, store):
    folder = corpus / "codex"
    if not folder.is_dir():
        pytest.skip("no codex corpus")
    importing.import_paths(store, [folder])
    kinds = {s.source_kind for s in store.sessions()}
    assert kinds == {"codex"} and not any(s.id.startswith("orphan-") for s in store.sessions())


def test_default_roots_cover_every_tool(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    (tmp_path / "codex" / "archived_sessions").mkdir(parents=True)
    roots = importing.default_roots()
    assert tmp_path / "claude" / "projects" in roots and tmp_path / "codex" / "archived_sessions" in roots
