"""Crush and the Go OpenCode: the project's own SQLite database, read only; a sub-agent's session nested
under the call that started it; tokens the tool counts per session stored as they grow; a reply still
streaming left for the next read. Corpus counts were checked by hand against the raw databases."""

from __future__ import annotations

import collections
import json
import sqlite3
import time

import orjson
import pytest

from sessionscope.sources import importing

# reading a tool's files is the same on both engines; the store's own writes are tested on both elsewhere
pytestmark = pytest.mark.sqlite_only


def _snapshot(folder):
    return sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


def test_crush_and_opencode_go_databases_from_the_corpus(store, corpus):
    before = _snapshot(corpus / "crush"), _snapshot(corpus / "opencode-go")
    report = importing.import_paths(store, [corpus / "crush", corpus / "opencode-go"])
    assert (_snapshot(corpus / "crush"), _snapshot(corpus / "opencode-go")) == before
    assert (report.bad_lines, report.problems) == (0, [])
    sessions = [store.session(s) for s in report.sessions]
    # 19 sessions in the six Crush databases, 7 in the two OpenCode ones; 3 of them sub-agent runs → 23
    assert len(sessions) == 23 and {s.source_kind for s in sessions} == {"crush"}
    edu = next(s for s in sessions if s.meta["database"].endswith("edu-jam4__crush.db"))
    # 4 messages of its own, and the sub-agent's 4 (its prompt, a call, its result, its reply) nested under the
    # `agent` call whose id is the sub-agent session's id
    events = store.events(edu.id)
    run = [e for e in events if e.sidechain]
    assert len(run) == 4 and {e.agent_id for e in run} == {"call_1fc5cf3e757c4f82a81d4c69"}
    spawn = next(e for e in events if e.kind == "tool_call" and not e.sidechain)
    assert orjson.loads(spawn.payload)["id"] == "call_1fc5cf3e757c4f82a81d4c69" and run[0].parent_id == spawn.id
    # tokens are the sessions' own totals, the sub-agent's counted in its caller's: 24,631 + 19,214 in
    assert (edu.tokens_in, edu.tokens_out) == (24_631 + 19_214, 283 + 584)
    assert edu.cwd == str(corpus / "crush")  # the folder holding the database (in a project: the project)
    rlox = next(s for s in sessions if s.title == "Creating a developer guide for the codebase")
    assert rlox.meta["crush_tool"] == "OpenCode (Go)" and rlox.model == "copilot.gpt-4o"
    kinds = collections.Counter(e.kind for e in store.branch_view(rlox.id))
    # 56 messages: 20 prompts, 36 replies (23 with text, 13 calls), 16 tool messages (13 answer this session)
    assert (kinds["tool_call"], kinds["tool_result"]) == (13, 13)
    assert importing.import_paths(store, [corpus / "crush", corpus / "opencode-go"]).events_added == 0


def _crush_db(path):
    path.parent.mkdir(parents=True)
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY, version_id INTEGER, is_applied INTEGER, tstamp TEXT);
        CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
            message_count INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER, cost REAL,
            updated_at INTEGER, created_at INTEGER, summary_message_id TEXT);
        CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts TEXT, model TEXT,
            created_at INTEGER, updated_at INTEGER, finished_at INTEGER, provider TEXT);""")
    return con


def test_a_crush_session_growing_in_place(store, tmp_path):
    db = tmp_path / "app" / ".crush" / "crush.db"
    con = _crush_db(db)
    now = int(time.time())
    text = lambda s: json.dumps([{"type": "text", "data": {"text": s}}, {"type": "finish", "data": {"reason": "stop"}}])  # noqa: E731
    con.execute("INSERT INTO sessions VALUES ('s1', NULL, 'Port it', 2, 100, 10, 0.01, ?, ?, NULL)", (now, now))
    con.executemany("INSERT INTO messages VALUES (?, 's1', ?, ?, 'gpt-5', ?, ?, ?, 'openai')", [
        ("m1", "user", text("port the parser"), now, now, None),
        ("m2", "assistant", json.dumps([{"type": "text", "data": {"text": "Port"}}]), now, now, None)])  # streaming
    con.commit()
    first = importing.import_paths(store, [tmp_path / "app"])
    sid = next(iter(first.sessions))
    s = store.session(sid)
    assert (s.title, s.cwd, s.project) == ("Port it", str(tmp_path / "app"), str(tmp_path / "app"))
    assert [e.text for e in store.branch_view(sid)] == ["port the parser"]  # the reply being written waits
    assert (s.tokens_in, s.tokens_out) == (100, 10)
    con.execute("UPDATE messages SET parts = ?, finished_at = ? WHERE id = 'm2'", (text("Ported."), now))
    con.execute("UPDATE sessions SET prompt_tokens = 250, completion_tokens = 30 WHERE id = 's1'")
    con.commit()
    importing.import_paths(store, [tmp_path / "app"])
    assert [e.text for e in store.branch_view(sid)] == ["port the parser", "Ported."]  # whole, once
    s = store.session(sid)
    assert (s.tokens_in, s.tokens_out) == (250, 30)  # the totals, counted once however often read
    assert importing.import_paths(store, [tmp_path / "app"]).events_added == 0
    con.close()
