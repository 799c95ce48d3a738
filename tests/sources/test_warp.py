"""Warp's agent mode (#64 item 1): its conversations in the terminal's own `warp.sqlite`, found where Warp keeps it
and recognised by its tables anywhere; Warp keeps the prompts, each exchange's outcome and model, and the
conversation's token and tool counts (never the agent's replies): those are what a Warp session shows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sessionscope import sources
from sessionscope.sources import importing

FIXTURE = Path(__file__).parent / "public" / "warp" / "warp.sql"


def _warp_db(path: Path, extra: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(FIXTURE.read_text() + extra)
    con.close()
    return path


def test_a_warp_conversation_is_a_session_of_its_prompts(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    db = _warp_db(home / ".local" / "state" / "warp-terminal" / "warp.sqlite")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    assert sources.of("warp").default_roots() == [db.parent]
    report = sources.of("warp").import_paths(store, sources.of("warp").default_roots())
    assert report.files_read == 1 and report.bad_lines == 0 and not report.problems, report.problems
    (s,) = store.sessions()
    assert (s.source_kind, s.tool_id, s.title) == ("warp", "conv-001", "Fix the JSON parsing bug in parser.go")
    assert (s.cwd, s.model, s.tokens_in) == ("/Users/alice/code/myproject", "auto-genius", 100000)
    view = [(e.kind, e.role, e.text) for e in store.branch_view(s.id)]
    assert view == [("message", "user", "Fix the JSON parsing bug in parser.go"),
                    ("meta", "assistant", "[a step of the agent's: Completed]"),  # (an exchange with no prompt)
                    ("message", "user", "Now add a test for that fix")]
    assert store.head_facts(s.id)["tool_usage"]["apply_file_diff"] == {"count": 1, "lines_added": 5,
                                                                       "lines_removed": 2, "files_changed": 1}
    assert abs(store.branch_view(s.id)[0].ts - 1775555400.0) < 1  # 2026-04-07 09:50:00 UTC
    # Warp adds an exchange and a failed one: read again, only what is new is added
    con = sqlite3.connect(db)
    con.execute("INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, "
                "output_status, model_id) VALUES ('ex-004', 'conv-001', '2026-04-07 09:52:00', "
                "'[{\"Query\":{\"text\":\"and run it\",\"context\":[]}}]', '/Users/alice/code/myproject', "
                "'{\"Failed\":{\"message\":\"quota\"}}', 'auto-genius')")
    con.execute("UPDATE agent_conversations SET last_modified_at = '2026-04-07 10:05:00'")
    con.commit()
    con.close()
    again = sources.of("warp").import_paths(store, sources.of("warp").default_roots())
    assert again.events_added == 2 and store.branch_view(s.id)[-1].text == "and run it"
    assert [e.text for e in store.events(s.id) if e.kind == "system"] == ["the exchange ended: Failed"]


def test_a_warp_database_is_recognised_by_its_tables_anywhere(store, tmp_path):
    db = _warp_db(tmp_path / "copied" / "backup.sqlite")
    assert importing.classify(db) == "warp"
    report = importing.import_paths(store, [tmp_path / "copied"])
    assert [store.session(x).source_kind for x in report.sessions] == ["warp"]
