"""Google Antigravity (#36 item 3): the corpus step logs (the IDE's brain transcript, the CLI's steps) with prompts,
reasoning, replies, tool calls paired with their output steps, the model named in the settings change; the full log
read instead of the cut one; the trajectory database read only where no step log is, opened read only."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

import orjson
import pytest

from sessionscope.sources import antigravity, importing

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere

BRAIN_ID = "aaaa1111-bbbb-2222-cccc-333344445555"


def _payload(e):
    return orjson.loads(e.payload)


def _snapshot(folder):
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


def test_the_ide_brain_transcript_with_its_database_beside_it(store, corpus, tmp_path):
    root = tmp_path / ".gemini" / "antigravity"
    shutil.copytree(corpus / "antigravity" / "coding_agent_session_search__antigravity", root)
    before = _snapshot(root)
    report = importing.import_paths(store, [root])
    assert not report.problems and report.bad_lines == 0 and len(report.sessions) == 1  # the .db: the log's steps
    assert _snapshot(root) == before  # the database was opened read only: no -wal, no -shm
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.tool_id, s.model, s.title) == (
        "antigravity", BRAIN_ID, "Gemini 3.1 Pro (High)", "Search the codebase for the FLYWHEEL marker and summarize it.")
    events = store.branch(s.id)
    assert [(e.kind, e.role) for e in events] == [
        ("message", "user"), ("system", "system"), ("thinking", "assistant"), ("message", "assistant"),
        ("tool_call", "assistant"), ("tool_result", "tool"),  # VIEW_FILE, whose planner step logged no call
        ("tool_call", "assistant"), ("tool_result", "tool"),  # RUN_COMMAND, which logged its own grep_search call
        ("message", "assistant")]
    assert events[0].text == "Search the codebase for the FLYWHEEL marker and summarize it."  # the request alone
    grep, out = _payload(events[6]), _payload(events[7])
    assert (grep["name"], grep["input"], out["tool_use_id"]) == ("grep_search", {"query": "FLYWHEEL"}, "call_grep_01")
    assert _payload(events[5])["tool_use_id"] == _payload(events[4])["id"]
    assert antigravity.import_paths(store, [root]).events_added == 0  # read again: nothing new


def test_the_cli_steps_pair_calls_by_position(store, corpus):
    f = corpus / "antigravity" / "agent-sessions__antigravity-cli_small.jsonl"
    report = importing.import_paths(store, [f])
    assert not report.problems and report.bad_lines == 0 and len(report.sessions) == 1
    s = store.session(next(iter(report.sessions)))
    assert (s.model, s.title) == ("Gemini 3.5 Flash (Medium)", "List the files.")
    events = store.branch(s.id)
    kinds = [e.kind for e in events]
    # 19 steps: 2 prompts, 1 reply, 3 thoughts, 2 planner calls, 10 tool outputs (8 with no logged call), a
    # compaction, 2 system messages; the conversation-history marker has no content
    assert (kinds.count("message"), kinds.count("thinking"), kinds.count("tool_call"), kinds.count("tool_result"),
            kinds.count("compaction"), kinds.count("system")) == (3, 3, 10, 10, 1, 2)
    calls = {_payload(e)["id"]: _payload(e) for e in events if e.kind == "tool_call"}
    results = [_payload(e) for e in events if e.kind == "tool_result"]
    assert all(r["tool_use_id"] in calls for r in results)
    listing = next(r for r in results if r["raw"]["type"] == "LIST_DIRECTORY")
    assert (calls[listing["tool_use_id"]]["name"], calls[listing["tool_use_id"]]["input"]["DirectoryPath"]) == (
        "list_dir", "/tmp/repo")  # the planner's arguments are JSON text, read back
    written = next(r for r in results if r["raw"]["type"] == "CODE_ACTION")
    assert calls[written["tool_use_id"]]["name"] == "write_file"


def test_the_full_log_is_read_instead_of_the_cut_one(store, tmp_path):
    logs = tmp_path / "brain" / "c1" / ".system_generated" / "logs"
    logs.mkdir(parents=True)
    step = {"step_index": 0, "source": "USER_EXPLICIT", "type": "USER_INPUT", "status": "DONE",
            "created_at": "2026-06-11T20:14:42Z"}
    (logs / "transcript.jsonl").write_text(json.dumps({**step, "content": "short…", "truncated_fields": ["content"]}))
    (logs / "transcript_full.jsonl").write_text(json.dumps({**step, "content": "the whole prompt"}) + "\n")
    report = importing.import_paths(store, [tmp_path])
    assert len(report.sessions) == 1 and not report.problems
    assert [e.text for e in store.branch(next(iter(report.sessions)))] == ["the whole prompt"]


def test_a_trajectory_database_with_no_step_log(store, tmp_path):
    db = tmp_path / "antigravity-cli" / "conversations" / "c2.db"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE trajectory_meta(trajectory_id TEXT, cascade_id TEXT, trajectory_type INTEGER, "
                "source INTEGER)")
    con.execute("CREATE TABLE steps(idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, step_payload BLOB)")
    con.execute("INSERT INTO trajectory_meta VALUES ('c2', 'c1', 1, 1)")
    con.executemany("INSERT INTO steps VALUES (?, 1, 1, ?)", [
        (0, json.dumps({"step_index": 0, "source": "USER_EXPLICIT", "type": "USER_INPUT", "status": "DONE",
                        "created_at": "2026-06-11T20:14:42Z", "content": "hello"}).encode()),
        (1, b"\x0a\x05\x08\x01\x12\x01x")])  # a protobuf step
    con.commit()
    con.close()
    os.utime(db, (1, 1))
    report = importing.import_paths(store, [db.parent.parent])
    assert len(report.sessions) == 1 and report.bad_lines == 1
    assert "step 1" in report.problems[0]["problem"] and "binary" in report.problems[0]["problem"]
    s = store.session(next(iter(report.sessions)))
    assert (s.tool_id, s.meta["antigravity_app"], [e.text for e in store.branch(s.id)]) == ("c2", "cli", ["hello"])


def test_only_step_lines_are_taken(tmp_path):
    f = tmp_path / "x.jsonl"
    step = {"step_index": 3, "source": "MODEL", "type": "VIEW_FILE", "status": "DONE", "created_at": "x"}
    f.write_text(json.dumps(step) + "\n")
    assert importing.classify(f) == "antigravity"
    f.write_text(json.dumps({**step, "role": "user"}) + "\n")
    assert importing.classify(f) != "antigravity"
