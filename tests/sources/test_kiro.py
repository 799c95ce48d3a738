"""Kiro CLI (#36 item 3): the corpus conversation value (prompts, a reply, a tool use; the folder it ran in), and
Kiro's database built in the test with that value: a tool's result paired with its use, the newest row of a
conversation kept under two folders, a turn added read without doubling, the database never written; Amazon Q's
older table with `[user, assistant]` pairs."""

from __future__ import annotations

import copy
import json
import os
import sqlite3

import orjson
import pytest

from sessionscope.sources import importing, kiro

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere

PAYLOAD = "kiro/agentsview__kiro_sqlite-standard_payload.json"


def _turn(prompt: str | None, reply: str, results=None) -> dict:
    content = {"Prompt": {"prompt": prompt}} if prompt else {"ToolUseResults": {"tool_use_results": results}}
    return {"user": {"content": content, "timestamp": "2026-05-17T10:01:00Z"},
            "assistant": {"Response": {"message_id": f"m-{reply[:8]}", "content": reply}},
            "request_metadata": {"stream_end_timestamp_ms": 1779012100000}}


def _database(path, rows, table="conversations_v2"):
    con = sqlite3.connect(path)
    if table == "conversations_v2":
        con.execute("CREATE TABLE IF NOT EXISTS conversations_v2 (key TEXT, conversation_id TEXT, value TEXT, "
                    "created_at INTEGER, updated_at INTEGER, PRIMARY KEY (key, conversation_id))")
        con.executemany("INSERT OR REPLACE INTO conversations_v2 VALUES (?, ?, ?, ?, ?)", rows)
    else:
        con.execute("CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT)")
        con.executemany("INSERT INTO conversations VALUES (?, ?)", rows)
    con.commit()
    con.close()


def test_the_corpus_conversation_value(store, corpus):
    report = importing.import_paths(store, [corpus / PAYLOAD])
    assert not report.problems and report.bad_lines == 0 and len(report.sessions) == 1
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.tool_id, s.title, s.cwd) == ("kiro", "sqlite-session", "Build the Kiro parser",
                                                          "/home/user/code/kiro-app")
    events = store.branch(s.id)
    assert [(e.kind, e.role) for e in events] == [("message", "user"), ("message", "assistant"), ("message", "user"),
                                                  ("tool_call", "assistant")]
    call = orjson.loads(events[3].payload)
    assert (call["id"], call["name"], call["input"]) == ("tool-1", "execute_bash",
                                                         {"command": "sed -n '1,120p' internal/parser/kiro.go"})


def test_the_database_newest_row_a_result_and_a_new_turn(store, corpus, tmp_path):
    value = json.loads((corpus / PAYLOAD).read_text())
    value["history"].append(_turn(None, "It is a Go parser.", [
        {"tool_use_id": "tool-1", "content": [{"Text": "package parser"}], "status": "Success"}]))
    older = copy.deepcopy(value)
    older["history"] = older["history"][:1]
    db = tmp_path / "kiro-cli" / "data.sqlite3"
    db.parent.mkdir()
    _database(db, [("/home/user/code/old-place", "sqlite-session", json.dumps(older), 1779012000000, 1779012005000),
                   ("/home/user/code/kiro-app", "sqlite-session", json.dumps(value), 1779012000000, 1779012100000)])
    before = sorted(os.listdir(db.parent))
    report = importing.import_paths(store, [db.parent])
    assert not report.problems and len(report.sessions) == 1
    assert sorted(os.listdir(db.parent)) == before  # opened read only: no -wal, no -shm
    s = store.session(next(iter(report.sessions)))
    assert s.cwd == "/home/user/code/kiro-app"  # the newest row's folder
    events = store.branch(s.id)
    assert [e.kind for e in events][-3:] == ["tool_call", "tool_result", "message"]
    result = orjson.loads(events[-2].payload)
    assert (result["tool_use_id"], result["output"], result["is_error"]) == ("tool-1", "package parser", False)
    value["history"].append(_turn("Thanks", "You're welcome."))
    _database(db, [("/home/user/code/kiro-app", "sqlite-session", json.dumps(value), 1779012000000, 1779012200000)])
    assert kiro.import_paths(store, [db.parent]).events_added == 2
    assert [e.text for e in store.branch(s.id)][-2:] == ["Thanks", "You're welcome."]


def test_amazon_q_pairs(store, tmp_path):
    db = tmp_path / "amazon-q" / "data.sqlite3"
    db.parent.mkdir()
    turn = _turn("List the files", "Two files.")
    value = {"conversation_id": "q-1", "history": [[turn["user"], turn["assistant"]]]}
    _database(db, [("/work/app", json.dumps(value))], table="conversations")
    report = importing.import_paths(store, [db])
    assert not report.problems and len(report.sessions) == 1
    s = store.session(next(iter(report.sessions)))
    assert (s.tool_id, s.cwd, [e.text for e in store.branch(s.id)]) == ("q-1", "/work/app", ["List the files",
                                                                                           "Two files."])
