"""Devin CLI (#64 item 1): `cli/sessions.db`, its sessions and their message tree: the title, folder and model Devin
keeps, prompts, thinking, calls paired with the tool's answers; a retried reply is a branch under the same prompt;
a session Devin hides is not shown; recognised by its tables anywhere."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sessionscope import sources
from sessionscope.sources import importing

FIXTURE = Path(__file__).parent / "public" / "devin" / "sessions.sql"


def _db(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(FIXTURE.read_text())
    con.close()
    return path


def test_devin_sessions_are_their_message_trees(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    db = _db(home / ".local" / "share" / "devin" / "cli" / "sessions.db")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert sources.of("devin").default_roots() == [db.parent]
    report = sources.of("devin").import_paths(store, sources.of("devin").default_roots())
    assert report.files_read == 1 and report.bad_lines == 0 and not report.problems, report.problems
    (s,) = store.sessions()  # the hidden one is not shown
    assert (s.source_kind, s.tool_id, s.title, s.cwd, s.model) == (
        "devin", "session-db-only", "DB only session", "/tmp/db-only-project", "db-only-model")
    view = store.branch_view(s.id)
    assert [(e.kind, e.role) for e in view] == [("message", "user"), ("thinking", "assistant"),
                                                ("message", "assistant"), ("tool_call", "assistant"),
                                                ("tool_result", "tool")]
    call, answer = json.loads(view[3].payload), json.loads(view[4].payload)
    assert call["name"] == "read_file" and call["input"] == {"file_path": "main.go"}
    assert answer["tool_use_id"] == call["id"] == "call-1" and view[4].text == "package main\n"
    assert view[0].ts == 1704103201
    # the user retries the reply in Devin: a second child of the prompt, a branch beside the first
    con = sqlite3.connect(db)
    con.execute("INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at) VALUES "
                "('session-db-only', 4, 1, '{\"role\":\"assistant\",\"content\":\"Let me look again.\"}', 1704103300)")
    con.commit()
    con.close()
    again = sources.of("devin").import_paths(store, sources.of("devin").default_roots())
    assert again.events_added == 1
    assert len(store.leaves(s.id)) == 2
    retried = next(e for e in store.events(s.id) if e.text == "Let me look again.")
    assert retried.parent_id == view[0].id


def test_a_devin_database_is_recognised_by_its_tables_anywhere(store, tmp_path):
    db = _db(tmp_path / "copied" / "devin-backup.db")
    assert importing.classify(db) == "devin"
