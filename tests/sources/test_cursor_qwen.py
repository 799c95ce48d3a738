"""Cursor and Qwen Code: recognised by content, read only (a database never gets a -wal or -shm of ours),
tool calls paired with their results by the tools' own ids, titles, models and tokens as the tools kept
them, and what the reader does not understand said, never dropped in silence.

The per-file counts of the corpus tests were checked by hand against the raw files (the notes beside
each number say what was counted)."""

from __future__ import annotations

import collections
import json
import sqlite3
import uuid

import orjson
import pytest

from sessionscope import sources
from sessionscope.errors import Refused
from sessionscope.history.pairing import pair
from sessionscope.sources import importing
from sessionscope.sources.cursor import state as cursor_state

# reading a tool's files is the same on both engines; the store's own writes are tested on both elsewhere
pytestmark = pytest.mark.sqlite_only


def _kinds(store, sid):
    return collections.Counter(e.kind for e in store.branch_view(sid))


def _paired(store, sid) -> tuple[int, int]:
    """(results, results paired with a call by the call's id) on the session's branch."""
    view = store.branch_view(sid)
    pairs = pair((e.id, e.kind, e.payload, e.sidechain) for e in view)
    results = [e for e in view if e.kind == "tool_result"]
    by_id = {e.id: e for e in view}
    named = sum(1 for r in results if r.id in pairs and
                orjson.loads(by_id[pairs[r.id]].payload).get("id") == orjson.loads(r.payload).get("tool_use_id"))
    return len(results), named


def _snapshot(folder):
    return sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


# -- Qwen Code ----------------------------------------------------------------------------------------

def test_qwen_code_chats_from_the_corpus(store, corpus):
    """Four real chats (Qwen Code 0.14.x): each one session, its tree by parentUuid, calls paired by id."""
    before = _snapshot(corpus / "qwen-code")
    report = importing.import_paths(store, [corpus / "qwen-code" / "CloudSchool__qwen"])
    assert _snapshot(corpus / "qwen-code") == before
    assert (len(report.sessions), report.bad_lines, report.problems) == (4, 0, [])
    by_tool = {store.session(s).tool_id: store.session(s) for s in report.sessions}
    big = by_tool["b980b04a-ac2e-460e-b736-060edd040cfa"]
    assert big.source_kind == "qwen_code" and big.cwd == r"C:\Users\ChuHai\Documents\VirtualGfriend"
    assert big.model == "coder-model" and big.title.startswith("Sử dụng tất cả skill")
    # 2 prompts, 7 replies with thoughts, 13 calls and their 13 results, 313 telemetry records kept quiet
    assert _kinds(store, big.id) == {"meta": 313, "tool_call": 13, "tool_result": 13, "message": 8, "thinking": 7}
    assert _paired(store, big.id) == (13, 13)
    # tokens from the 7 replies' usageMetadata: prompt counts (cached included) in, candidates + thoughts out
    assert (big.tokens_in, big.tokens_out) == (317_284, 10_671)
    small = by_tool["80a2d37c-ef84-45fc-b7d1-a34a27b3a3d8"]
    assert small.title == "how many agent do i have" and _paired(store, small.id) == (3, 3)
    assert sources.of("qwen_code").resume_line(small) == \
        "cd 'C:\\Users\\linhl' && qwen --resume 80a2d37c-ef84-45fc-b7d1-a34a27b3a3d8"
    # read again: nothing new
    assert importing.import_paths(store, [corpus / "qwen-code" / "CloudSchool__qwen"]).events_added == 0


def test_a_qwen_rewind_keeps_the_abandoned_turn_and_the_custom_title(store, corpus):
    f = corpus / "qwen-code" / "agent-sessions__qwen-019f0000-0000-7000-8000-000000000004.jsonl"
    report = importing.import_paths(store, [f])
    s = store.session(next(iter(report.sessions)))
    assert s.title == "Active branch title"  # the later title wins
    assert s.event_count == 9 and len(store.branch_view(s.id)) < 9  # the rewound-from turn is a side branch


def test_qwen_lines_appended_are_read_from_where_the_last_scan_stopped(store, tmp_path):
    chat = tmp_path / "projects" / "-home-me-app" / "chats" / "11111111-2222-4333-8444-555555555555.jsonl"
    chat.parent.mkdir(parents=True)
    base = {"sessionId": chat.stem, "cwd": "/home/me/app", "version": "0.14.2"}
    lines = [
        {**base, "uuid": "u1", "parentUuid": None, "type": "user", "timestamp": "2026-04-07T02:12:45Z",
         "message": {"role": "user", "parts": [{"text": "list the files"}]}},
        {**base, "uuid": "u2", "parentUuid": "u1", "type": "assistant", "timestamp": "2026-04-07T02:12:50Z",
         "model": "qwen3-coder", "usageMetadata": {"promptTokenCount": 100, "cachedContentTokenCount": 40,
                                                   "candidatesTokenCount": 7, "thoughtsTokenCount": 3},
         "message": {"role": "model", "parts": [{"text": "look first", "thought": True},
                                                {"functionCall": {"id": "c1", "name": "ls", "args": {"path": "."}}}]}},
    ]
    chat.write_text("".join(json.dumps(x) + "\n" for x in lines))
    first = importing.import_paths(store, [tmp_path / "projects"])
    sid = next(iter(first.sessions))
    assert store.session(sid).source_kind == "qwen_code" and first.events_added == 3
    with chat.open("a") as fh:
        fh.write("{not json\n")
        fh.write(json.dumps({**base, "uuid": "u3", "parentUuid": "u2", "type": "tool_result",
                             "message": {"role": "user", "parts": [{"functionResponse": {
                                 "id": "c1", "name": "ls", "response": {"output": "a.py"}}}]},
                             "toolCallResult": {"callId": "c1", "status": "error"}}) + "\n")
    again = importing.import_paths(store, [tmp_path / "projects"])
    assert (again.events_added, again.bad_lines) == (1, 1)
    assert again.problems[0]["line"] == 3  # the bad line said, with its number; the line after it kept
    view = store.branch_view(sid)
    assert [e.kind for e in view] == ["message", "thinking", "tool_call", "tool_result"]
    result = orjson.loads(view[-1].payload)
    assert (result["tool_use_id"], result["is_error"], view[-1].text) == ("c1", True, "a.py")
    s = store.session(sid)
    assert (s.tokens_in, s.tokens_out, s.model) == (100, 10, "qwen3-coder")


def test_a_qwen_chat_is_not_read_as_claude_code(tmp_path):
    line = {"uuid": "u1", "parentUuid": None, "sessionId": "s", "type": "user",
            "message": {"role": "user", "parts": [{"text": "hi"}]}}
    f = tmp_path / "chat.jsonl"
    f.write_text(json.dumps(line) + "\n")
    assert importing.classify(f) == "qwen_code"
    claude = {"uuid": "u1", "parentUuid": None, "sessionId": "s", "type": "user",
              "message": {"role": "user", "content": "hi"}}
    f.write_text(json.dumps(claude) + "\n")
    assert importing.classify(f) == "claude_code"
    # Grok Build's `{type, content}` lines were taken for Claude Code's too (and read empty): now Grok's own
    f.write_text(json.dumps({"type": "system", "content": "You are Grok"}) + "\n" +
                 json.dumps({"type": "user", "content": [{"type": "text", "text": "hi"}], "prompt_index": 0}) + "\n")
    assert importing.classify(f) == "grok"


# -- Cursor ---------------------------------------------------------------------------------------------

def test_cursor_editor_databases_from_the_corpus(store, corpus):
    """Two real workspace databases: 2023 chat tabs (both) and late-2024 inline composers (cursor-history)."""
    before = _snapshot(corpus / "cursor")
    report = importing.import_paths(store, [corpus / "cursor" / "cursor-history__state.vscdb",
                                            corpus / "cursor" / "cursor-settings__workspaceStorage-55a37da0-state.vscdb"])
    assert _snapshot(corpus / "cursor") == before  # opened read only: no -wal, no -shm, nothing touched
    assert report.bad_lines == 0 and not report.problems
    sessions = [store.session(s) for s in report.sessions]
    assert {s.source_kind for s in sessions} == {"cursor"}
    messages = lambda s: _kinds(store, s.id)["message"]  # noqa: E731
    by_gen = collections.defaultdict(list)
    for s in sessions:
        by_gen[(s.meta["database"].rsplit("/", 1)[-1], s.meta["cursor_generation"])].append(s)
    # cursor-settings: 15 tabs, 55 bubbles; every tab ends in the empty, unsent box the editor keeps (15), and
    # three "New chat" tabs hold nothing else → 12 sessions, 40 messages
    tabs23 = by_gen[("cursor-settings__workspaceStorage-55a37da0-state.vscdb", "chat tabs (2023)")]
    assert (len(tabs23), sum(map(messages, tabs23))) == (12, 40)
    # cursor-history: 5 tabs, 49 bubbles, each tab ending in the unsent box (5 empty) → 44 messages
    tabs24 = by_gen[("cursor-history__state.vscdb", "chat tabs (2023)")]
    assert (len(tabs24), sum(map(messages, tabs24))) == (5, 44)
    # 26 composers with their conversation inline, 82 bubbles, none empty
    inline = by_gen[("cursor-history__state.vscdb", "composer (inline)")]
    assert (len(inline), sum(map(messages, inline))) == (26, 82)
    titled = {s.title for s in tabs24}
    assert "Ionic App Sidebar Customization Guide" in titled  # Cursor's own chat titles
    gpt = next(s for s in tabs23 if s.title.startswith("How can I set specific parameters"))
    assert gpt.model == "gpt-3.5-turbo" and store.branch_view(gpt.id)[0].text.startswith("How can I set specific")
    with pytest.raises(Refused, match="Cursor's own chat history"):
        sources.of("cursor").resume_line(gpt)


def test_cursor_agent_transcripts_and_cli_store_from_the_corpus(store, corpus):
    folder = corpus / "cursor"
    report = importing.import_paths(store, [folder / "agent-sessions__cursor-large.jsonl",
                                            folder / "agent-sessions__cursor-schema_drift.jsonl",
                                            folder / "agent-sessions__cursor-subagent",
                                            folder / "agent-sessions__cursor-cli-test-store.db"])
    by_tool = {store.session(s).tool_id: store.session(s) for s in report.sessions}
    assert set(by_tool) == {"agent-sessions__cursor-large", "agent-sessions__cursor-schema_drift", "parent",
                            "a1b2c3d4-e5f6-7890-abcd-ef1234567890"}  # the subagent is not a session of its own
    large = by_tool["agent-sessions__cursor-large"]
    # 10 lines: 5 prompts (2 of them tool results), 5 replies: 5 texts + 2 prompts typed, 1 thought, 2 calls
    assert _kinds(store, large.id) == {"message": 7, "thinking": 1, "tool_call": 2, "tool_result": 2}
    drift = by_tool["agent-sessions__cursor-schema_drift"]
    assert drift.model == "cursor-auto"
    # the unknown block's text is kept, and said as not understood
    assert any("custom_block" in p["problem"] for p in report.problems)
    assert any(e.text == "Cursor added an unknown block with visible text." for e in store.branch_view(drift.id))
    parent = by_tool["parent"]
    run = [e for e in store.events(parent.id) if e.sidechain]
    assert [e.text for e in run] == ["List files", "file1.txt\nfile2.txt"] and {e.agent_id for e in run} == {"child"}
    spawn = next(e for e in store.events(parent.id) if e.kind == "tool_call")
    assert run[0].parent_id == spawn.id  # nested under the call that started it
    cli = by_tool["a1b2c3d4-e5f6-7890-abcd-ef1234567890"]
    assert (cli.title, cli.model) == ("Test Session", "claude-4-sonnet")
    assert sources.of("cursor").resume_command(cli) == ["cursor-agent", "--resume", "a1b2c3d4-e5f6-7890-abcd-ef1234567890"]


def _kv_db(path, items: dict, table="cursorDiskKV", wal=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    con.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(k, json.dumps(v)) for k, v in items.items()])
    con.commit()
    return con


def test_cursor_split_composers_join_the_global_bodies_to_their_workspace(store, tmp_path):
    """2025 on: the workspace lists the composer's head; the global database has its bubbles, with thinking,
    tool calls (one refused by the user), tokens, and times. The editor has it open (WAL): a bubble it adds
    lands in the -wal only, and the next scan still finds it."""
    user = tmp_path / "Cursor" / "User"
    cid = "9f3c0a1e-0000-4000-8000-000000000001"
    ws = user / "workspaceStorage" / "abc123" / "state.vscdb"
    _kv_db(ws, {"composer.composerData": {"allComposers": [{"type": "head", "composerId": cid, "name": "Fix the build",
                                                            "unifiedMode": "agent"}]}}, table="ItemTable").close()
    (ws.parent / "workspace.json").write_text(json.dumps({"folder": "file:///home/me/src/app%20one"}))
    headers = [{"bubbleId": "b1", "type": 1}, {"bubbleId": "b2", "type": 2}, {"bubbleId": "b3", "type": 2}]
    bubbles = {
        f"composerData:{cid}": {"_v": 10, "composerId": cid, "name": "Fix the build", "createdAt": 1_766_000_000_000,
                                "fullConversationHeadersOnly": headers, "modelConfig": {"modelName": "claude-4.5-sonnet"}},
        f"bubbleId:{cid}:b1": {"_v": 3, "type": 1, "bubbleId": "b1", "text": "why does the build fail?",
                               "createdAt": "2025-12-17T10:00:00.000Z"},
        f"bubbleId:{cid}:b2": {"_v": 3, "type": 2, "bubbleId": "b2", "text": "", "createdAt": "2025-12-17T10:00:05.000Z",
                               "thinking": {"text": "read the log"}, "tokenCount": {"inputTokens": 1200, "outputTokens": 80},
                               "toolFormerData": {"toolCallId": "toolu_1", "name": "run_terminal_cmd",
                                                  "rawArgs": json.dumps({"command": "make"}), "status": "completed",
                                                  "result": json.dumps({"output": "error: x.c:3"})}},
        f"bubbleId:{cid}:b3": {"_v": 3, "type": 2, "bubbleId": "b3", "createdAt": "2025-12-17T10:00:09.000Z",
                               "toolFormerData": {"toolCallId": "toolu_2", "name": "delete_file",
                                                  "rawArgs": json.dumps({"path": "x.c"}), "userDecision": "rejected"}},
        "cursorAuth/accessToken": "secret-never-read",
    }
    glob = user / "globalStorage" / "state.vscdb"
    con = _kv_db(glob, bubbles, wal=True)  # stays open, as the editor keeps it
    report = importing.import_paths(store, [user / "globalStorage"])
    sid = str(uuid.uuid5(cursor_state.NS, f"chat:{cid}"))
    assert report.sessions == {sid} and not report.problems
    s = store.session(sid)
    assert (s.title, s.cwd, s.model) == ("Fix the build", "/home/me/src/app one", "claude-4.5-sonnet")
    assert (s.tokens_in, s.tokens_out) == (1200, 80)
    view = store.branch_view(sid)
    assert [e.kind for e in view] == ["message", "thinking", "tool_call", "tool_result", "tool_call", "tool_result"]
    assert view[0].ts == 1_765_965_600  # the bubble's own time
    results = [orjson.loads(e.payload) for e in view if e.kind == "tool_result"]
    assert [(r["tool_use_id"], r["is_error"]) for r in results] == [("toolu_1", False), ("toolu_2", True)]
    assert _paired(store, sid) == (2, 2)
    assert "secret-never-read" not in json.dumps([e.payload for e in store.events(sid)])
    # the editor adds a reply; it is in the -wal only, and the database file itself did not change
    size = glob.stat().st_size
    headers.append({"bubbleId": "b4", "type": 2})
    con.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", [
        (f"composerData:{cid}", json.dumps({**bubbles[f"composerData:{cid}"], "fullConversationHeadersOnly": headers})),
        (f"bubbleId:{cid}:b4", json.dumps({"type": 2, "bubbleId": "b4", "text": "The build needs x.c fixed."}))])
    con.commit()
    assert glob.stat().st_size == size and (glob.parent / "state.vscdb-wal").exists()
    again = importing.import_paths(store, [user / "globalStorage"])
    assert again.events_added == 1 and store.branch_view(sid)[-1].text == "The build needs x.c fixed."
    con.close()


def test_a_cursor_database_is_never_left_with_files_of_ours(store, tmp_path):
    db = tmp_path / "ws" / "state.vscdb"
    _kv_db(db, {"workbench.panel.aichat.view.aichat.chatdata": {"tabs": [
        {"tabId": "t1", "chatTitle": "hello", "lastSendTime": 1_700_000_000_000,
         "bubbles": [{"type": "user", "id": "a", "rawText": "hi"}, {"type": "ai", "id": "b", "rawText": "hello",
                                                                     "modelType": "gpt-4"}]}]}},
           table="ItemTable").close()
    before = sorted(p.name for p in db.parent.iterdir())
    report = importing.import_paths(store, [db.parent])
    assert len(report.sessions) == 1 and sorted(p.name for p in db.parent.iterdir()) == before
