"""Continue, Amp, Zed and Goose: each recognised by content, read only, calls paired with their results by
the tools' own ids, titles, models and tokens as each tool kept them. Corpus counts were checked by hand
against the raw files (the comments say what was counted)."""

from __future__ import annotations

import collections
import json
import sqlite3

import orjson
import pytest
import zstandard

from sessionscope import sources
from sessionscope.history.pairing import pair
from sessionscope.sources import importing
from tests.sources.zed_factory import threads_db

# reading a tool's files is the same on both engines; the store's own writes are tested on both elsewhere
pytestmark = pytest.mark.sqlite_only


def _kinds(store, sid):
    return collections.Counter(e.kind for e in store.branch_view(sid))


def _paired_by_id(store, sid) -> int:
    view = store.branch_view(sid)
    by_id = {e.id: e for e in view}
    return sum(1 for r, c in pair((e.id, e.kind, e.payload, e.sidechain) for e in view).items()
               if orjson.loads(by_id[c].payload)["id"] == orjson.loads(by_id[r].payload)["tool_use_id"])


def _snapshot(folder):
    return sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


def test_continue_sessions_from_the_corpus(store, corpus):
    """11 sessions + the index: 14 prompts, 14 replies of which 3 are empty (a reply cancelled) → 25 messages."""
    report = importing.import_paths(store, [corpus / "continue"])
    assert (len(report.sessions), report.bad_lines, report.problems) == (11, 0, [])  # sessions.json: the index
    sessions = [store.session(s) for s in report.sessions]
    assert sum(_kinds(store, s.id)["message"] for s in sessions) == 25
    s = next(s for s in sessions if s.tool_id == "38136baa-bbb5-4b2f-be89-6c0b1cc0bfd5")
    assert (s.source_kind, s.cwd, s.model) == ("continue_dev", "/Users/dimitrijagjoshev/Documents/training/AI_Test",
                                                "deepseek-coder-v2")
    assert s.created_at == 1727596367.199  # from the index's dateCreated
    assert s.title.startswith("give me python example of reading names")


def test_a_continue_agent_session_pairs_its_tool_calls(store, tmp_path):
    doc = {"sessionId": "c1", "title": "Fix it", "workspaceDirectory": "/w", "mode": "agent", "history": [
        {"message": {"id": "m1", "role": "user", "content": "fix the test"}, "contextItems": []},
        {"message": {"id": "m2", "role": "assistant", "content": "",
                     "toolCalls": [{"id": "tc1", "type": "function",
                                    "function": {"name": "run_terminal_command", "arguments": "{\"command\": \"pytest\"}"}}]},
         "toolCallStates": [{"toolCallId": "tc1", "status": "errored"}]},
        {"message": {"id": "m3", "role": "tool", "toolCallId": "tc1", "content": "1 failed"}},
        {"message": {"id": "m4", "role": "assistant", "content": "Fixed."}}]}
    (tmp_path / "c1.json").write_text(json.dumps(doc))
    s = store.session(next(iter(importing.import_paths(store, [tmp_path]).sessions)))
    view = store.branch_view(s.id)
    assert [e.kind for e in view] == ["message", "tool_call", "tool_result", "message"]
    assert orjson.loads(view[1].payload)["input"] == {"command": "pytest"}
    assert orjson.loads(view[2].payload)["is_error"] is True and _paired_by_id(store, s.id) == 1


def test_amp_threads_from_the_corpus(store, corpus):
    """Two real threads: 13 and 10 blocks of messages; tokens from each reply's own usage."""
    before = _snapshot(corpus / "amp")
    report = importing.import_paths(store, [corpus / "amp"])
    assert _snapshot(corpus / "amp") == before
    # history.jsonl (the prompt history) and session.json are not sessions, and not said to be problems
    assert (len(report.sessions), report.bad_lines, report.problems) == (2, 0, [])
    by_id = {store.session(s).tool_id: store.session(s) for s in report.sessions}
    greet = by_id["T-16c2227a-e98f-4969-998b-aaa50a930b05"]
    assert (greet.title, greet.cwd, greet.model) == ("Greeting and initial interaction", "/home/runner/workspace",
                                                     "claude-sonnet-4-5-20250929")
    # 3 prompts, 3 thoughts, 3 texts, 2 calls and their 2 results (named by toolUseID)
    assert _kinds(store, greet.id) == {"message": 6, "thinking": 3, "tool_call": 2, "tool_result": 2}
    assert _paired_by_id(store, greet.id) == 2
    logout = by_id["T-1d0ef56c-0ecd-4bf7-af7b-5bc196dc8a6a"]
    assert _paired_by_id(store, logout.id) == 3
    assert sources.of("amp").resume_line(logout) == \
        "cd /home/runner/workspace && amp threads continue T-1d0ef56c-0ecd-4bf7-af7b-5bc196dc8a6a"


def test_a_zed_thread_from_the_corpus(store, corpus):
    """One real thread (zstd, 170 KB of JSON): a prompt, six tool uses each with its result (all errors: the
    path was not in the project), tokens of the one request (2,234 in + 6,791 cache reads, 24 out)."""
    before = _snapshot(corpus / "zed")
    report = importing.import_paths(store, [corpus / "zed"])
    assert _snapshot(corpus / "zed") == before and not report.problems
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.title, s.model) == ("zed", "Mongoose to Supabase Database Migration", "Gemini 2.5 Flash")
    assert _kinds(store, s.id) == {"message": 1, "tool_call": 6, "tool_result": 6}
    assert _paired_by_id(store, s.id) == 6 and (s.tokens_in, s.tokens_out) == (9_025, 24)


def test_zed_threads_built_here(store, tmp_path):
    thread = {"version": "0.3.0", "title": "Rename", "model": {"provider": "anthropic", "model": "claude-sonnet-4-5"},
              "messages": [{"User": {"id": "u1", "content": [{"Text": "rename foo"}]}},
                           {"Agent": {"content": [{"Thinking": {"text": "grep first"}}, {"Text": "Renaming."},
                                                  {"ToolUse": {"id": "t1", "name": "edit_file", "input": {"path": "a.rs"}}}],
                                      "tool_results": {"t1": {"tool_use_id": "t1", "is_error": False,
                                                              "content": {"Text": "ok"}, "output": "ok"}}}}],
              "request_token_usage": {"u1": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 90}}}
    threads_db(tmp_path / "threads" / "threads.db", [
        ("a", "Rename", "2026-02-06T02:10:31Z", "zstd", zstandard.ZstdCompressor().compress(json.dumps(thread).encode()),
         "/home/me/crate", "2026-02-06T02:00:00Z"),
        ("b", "Broken", "2026-02-06T02:11:00Z", "zstd", b"not a frame", None, None)])
    report = importing.import_paths(store, [tmp_path / "threads"])
    assert len(report.sessions) == 1 and any("thread b" in p["problem"] for p in report.problems)  # said; a kept
    s = store.session(next(iter(report.sessions)))
    assert (s.cwd, s.tokens_in, s.tokens_out) == ("/home/me/crate", 100, 5)
    assert [e.kind for e in store.branch_view(s.id)] == ["message", "thinking", "message", "tool_call", "tool_result"]


def test_goose_sessions(store, corpus, tmp_path):
    """The real database holds one session and no message yet: shown with its start and folder."""
    report = importing.import_paths(store, [corpus / "goose"])
    assert (len(report.sessions), report.problems) == (1, [])
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.tool_id, s.cwd) == ("goose", "20251202_1", "/Users/jpresley/workspace/tmp/vsl")
    assert sources.of("goose").resume_line(s) == \
        "cd /Users/jpresley/workspace/tmp/vsl && goose session --resume --id 20251202_1"
    # a session with messages, built with Goose's own tables
    db = tmp_path / "sessions" / "sessions.db"
    db.parent.mkdir()
    con = sqlite3.connect(db)
    con.executescript(sqlite3.connect(f"file:{corpus / 'goose/dotfiles-jwp23__goose/sessions/sessions.db'}?immutable=1",
                                      uri=True).execute("SELECT group_concat(sql, ';') FROM sqlite_master WHERE "
                                                        "type = 'table' AND name NOT LIKE 'sqlite_%'").fetchone()[0])
    con.execute("INSERT INTO sessions (id, name, user_set_name, working_dir, created_at, accumulated_input_tokens, "
                "accumulated_output_tokens) VALUES ('20260101_1', 'Tidy', 1, '/w', '2026-01-01 10:00:00', 500, 40)")
    content = [[{"type": "text", "text": "tidy up"}],
               [{"type": "text", "text": "Listing."}, {"type": "toolRequest", "id": "r1", "toolCall": {
                   "status": "success", "value": {"name": "developer__shell", "arguments": {"command": "ls"}}}}],
               [{"type": "toolResponse", "id": "r1", "toolResult": {"status": "success",
                                                                    "value": [{"type": "text", "text": "a.py"}]}}]]
    con.executemany("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)",
                    [("20260101_1", role, json.dumps(c), 1_767_261_600 + i)
                     for i, (role, c) in enumerate(zip(("user", "assistant", "user"), content))])
    con.commit()
    con.close()
    s = store.session(next(iter(importing.import_paths(store, [db.parent]).sessions)))
    assert (s.title, s.tokens_in, s.tokens_out) == ("Tidy", 500, 40)
    assert [e.kind for e in store.branch_view(s.id)] == ["system", "message", "message", "tool_call", "tool_result"]
    assert _paired_by_id(store, s.id) == 1


def test_opencode_storage_trees_from_the_corpus(store, corpus):
    """Two fixture trees (OpenCode's own test data's shapes): 3 sessions; the large one's tool part is a call and
    its result (exit 1), its synthetic text a reply, its file part and patch kept quietly, its aborted reply said."""
    report = importing.import_paths(store, [corpus / "opencode"])
    assert (len(report.sessions), report.bad_lines, report.problems) == (3, 0, [])
    by_title = {store.session(s).title: store.session(s) for s in report.sessions}
    large = by_title["OpenCode Large"]
    assert (large.cwd, large.model, large.tokens_in, large.tokens_out) == ("/tmp/large", "gpt-4o-mini", 120, 16)
    kinds = _kinds(store, large.id)
    assert (kinds["tool_call"], kinds["tool_result"], kinds["compaction"]) == (1, 1, 1)
    assert any(e.text.startswith("MessageAbortedError") for e in store.events(large.id))
    assert sources.of("opencode").resume_line(large) == "cd /tmp/large && opencode --session s_stage0_large"


def _opencode_tree(storage, sessions: int, messages: int) -> None:
    """OpenCode's storage tree: a file a session, a message (its folder by session) and a part (by message)."""
    for s in range(sessions):
        sid = f"ses_{s}"
        (storage / "session" / "proj").mkdir(parents=True, exist_ok=True)
        (storage / "session" / "proj" / f"{sid}.json").write_text(json.dumps(
            {"id": sid, "projectID": "proj", "directory": "/w", "title": f"Session {s}",
             "time": {"created": 1_700_000_000_000 + s, "updated": 1_700_000_000_000 + s}}))
        for m in range(messages):
            mid = f"msg_{s}_{m}"
            (storage / "message" / sid).mkdir(parents=True, exist_ok=True)
            (storage / "message" / sid / f"{mid}.json").write_text(json.dumps(
                {"id": mid, "sessionID": sid, "role": "user" if m % 2 == 0 else "assistant",
                 "time": {"created": 1_700_000_001_000 + m}}))
            (storage / "part" / mid).mkdir(parents=True)
            (storage / "part" / mid / "p.json").write_text(json.dumps(
                {"id": "p", "messageID": mid, "type": "text", "text": f"said {s}.{m}"}))


def test_a_folder_import_reads_an_opencode_tree_through_its_sessions(store, tmp_path):
    """The storage tree's message and part files are read by their sessions, not opened one by one to be
    recognised (thousands in a real tree); a folder of another tool's that happens to be called `message` is
    still read."""
    from sessionscope.sources.opencode.importer import session_files as opencode_sessions
    from tests.sources.claude_factory import Transcript as ClaudeTranscript
    home = tmp_path / "home"
    _opencode_tree(home / "opencode" / "storage", sessions=3, messages=4)
    claude = ClaudeTranscript()
    claude.user("a folder called message")
    claude.assistant("read all the same")
    claude.write(home / "elsewhere" / "message")
    files = importing._files(home)
    assert sorted(f.name for f in files) == sorted(["ses_0.json", "ses_1.json", "ses_2.json",
                                                    f"{claude.session_id}.jsonl"])
    report = importing.import_paths(store, [home])
    assert (len(report.sessions), report.problems) == (4, [])
    opencode = [store.session(s) for s in report.sessions if store.session(s).source_kind == "opencode"]
    assert sorted(s.title for s in opencode) == ["Session 0", "Session 1", "Session 2"]
    for s in opencode:
        n = s.title.split()[1]
        assert [e.text for e in store.events(s.id)] == [f"said {n}.{m}" for m in range(4)]
    assert sorted(p.name for p in opencode_sessions(home / "opencode")) == \
        ["ses_0.json", "ses_1.json", "ses_2.json"]


def opencode_db(db) -> None:
    """An OpenCode database (the tables of `opencode.db`): a review whose `task` call ran a sub-agent's session."""
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT,
                              time_created INTEGER, time_updated INTEGER, data TEXT);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT);""")
    con.executemany("INSERT INTO session VALUES (?, 'p', ?, '/w', ?, ?, ?, '{}')",
                    [("ses_a", None, "Review", 1_760_000_000_000, 1_760_000_100_000),
                     ("ses_b", "ses_a", "Explore", 1_760_000_010_000, 1_760_000_020_000)])
    msg = lambda i, s, role, t, extra=None: (i, s, t, t, json.dumps({"role": role, "time": {"created": t}, **(extra or {})}))  # noqa: E731
    con.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", [
        msg("m1", "ses_a", "user", 1_760_000_001_000),
        msg("m2", "ses_a", "assistant", 1_760_000_002_000, {"modelID": "claude-sonnet-4-5",
                                                            "tokens": {"input": 50, "output": 9, "cache": {"read": 500}}}),
        msg("m3", "ses_b", "user", 1_760_000_011_000), msg("m4", "ses_b", "assistant", 1_760_000_012_000)])
    part = lambda i, m, s, d: (i, m, s, 0, json.dumps(d))  # noqa: E731
    con.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?)", [
        part("p1", "m1", "ses_a", {"type": "text", "text": "review the code"}),
        part("p2", "m2", "ses_a", {"type": "tool", "callID": "c1", "tool": "task", "state": {
            "status": "completed", "input": {"prompt": "explore"}, "output": "found 3 issues",
            "metadata": {"sessionId": "ses_b"}}}),
        part("p3", "m3", "ses_b", {"type": "text", "text": "explore"}),
        part("p4", "m4", "ses_b", {"type": "text", "text": "3 issues"})])
    con.commit()
    con.close()


def test_opencode_database_with_a_sub_agent(store, tmp_path):
    db = tmp_path / "opencode" / "opencode.db"
    opencode_db(db)
    report = importing.import_paths(store, [db.parent])
    assert len(report.sessions) == 1  # the sub-agent's session is a run inside its parent's
    s = store.session(next(iter(report.sessions)))
    assert (s.title, s.cwd, s.tokens_in, s.tokens_out) == ("Review", "/w", 550, 9)
    run = [e for e in store.events(s.id) if e.sidechain]
    call = next(e for e in store.events(s.id) if e.kind == "tool_call")
    assert [e.text for e in run] == ["explore", "3 issues"] and run[0].parent_id == call.id
