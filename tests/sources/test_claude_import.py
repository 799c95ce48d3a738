"""Importing Claude Code transcripts: threading, usage, titles, facts, bad input, rescans."""

from __future__ import annotations

from sessionscope.sources.claude_code import file_problems, import_paths
from tests.sources.claude_factory import Transcript


def _project(tmp_path):
    return tmp_path / "projects" / "-work-app"


def test_conversation_tools_usage_and_facts(store, tmp_path):
    t = Transcript()
    t.user("please add a login form")
    a1 = t.assistant("I'll look first", msg_id="msg_A", usage=(1000, 10))
    a2 = t.assistant(msg_id="msg_A", tool=("Edit", {"file_path": "/work/app/login.py", "old_string": "a",
                                                     "new_string": "b"}), usage=(1000, 250))
    t.tool_result(a2, "edited")
    todo = t.assistant(tool=("TodoWrite", {"todos": [{"content": "write tests", "status": "pending"}]}),
                       usage=(50, 5))
    t.tool_result(todo, "ok", extra={"oldTodos": [], "newTodos": [{"content": "write tests", "status": "pending"}]})
    t.assistant("done", usage=(10, 3))
    t.write(_project(tmp_path))
    report = import_paths(store, [tmp_path / "projects"])
    assert report.bad_lines == 0 and report.files_read == 1
    s = store.session(t.session_id)
    assert s.title == "please add a login form" and s.source_kind == "claude_code"
    assert (s.cwd, s.git_branch, s.model) == ("/work/app", "main", "claude-sonnet-4-5")
    # msg_A's two lines repeat its usage: counted once, its largest snapshot
    assert (s.tokens_in, s.tokens_out) == (1000 + 50 + 10, 250 + 5 + 3)
    assert s.meta["usage_by_model"] == {"claude-sonnet-4-5": {"input": 1060, "output": 258}}
    kinds = [e.kind for e in store.branch(t.session_id)]
    assert kinds == ["message", "message", "tool_call", "tool_result", "tool_call", "tool_result", "message"]
    facts = store.head_facts(t.session_id)
    assert facts["file:/work/app/login.py"] == "edit"
    assert facts["todos"] == [{"content": "write tests", "status": "pending"}]
    assert facts["cwd"] == "/work/app" and facts["model"] == "claude-sonnet-4-5"
    assert store.facts_at(a1["uuid"]).get("file:/work/app/login.py") is None
    assert store.verify(t.session_id)[0].ok


def test_reimport_is_idempotent(store, tmp_path):
    t = Transcript()
    t.user("hello")
    t.assistant("hi")
    path = t.write(_project(tmp_path))
    first = import_paths(store, [path])
    again = import_paths(store, [path])
    assert first.events_added > 0 and again.bytes_read == 0 and again.events_added == 0
    path.touch()  # a new mtime alone reads nothing new
    assert import_paths(store, [path]).events_added == 0
    assert store.session(t.session_id).event_count == first.events_added


def test_compaction_keeps_history_and_resume_context_starts_there(store, tmp_path):
    t = Transcript()
    t.user("first task")
    t.assistant("working on it")
    t.compact("This session is being continued from a previous conversation. Summary: first task done.")
    t.user("second task")
    t.assistant("on it")
    t.write(_project(tmp_path))
    import_paths(store, [tmp_path / "projects"])
    texts = [e.text for e in store.branch(t.session_id)]
    assert texts[0] == "first task" and texts[-1] == "on it"  # the branch runs across the compaction
    ctx = store.resume_context(t.session_id)
    assert ctx.transcript[0].kind == "compaction" and ctx.transcript[-1].text == "on it"
    assert "first task" not in [e.text for e in ctx.transcript]


def test_titles_by_precedence(store, tmp_path):
    t = Transcript()
    t.user("<command-name>/clear</command-name>")
    t.user("the real first prompt")
    t.assistant("ok")
    t.write(_project(tmp_path))
    import_paths(store, [tmp_path / "projects"])
    assert store.session(t.session_id).title == "the real first prompt"
    # a summary line in another file names a leaf of this session
    other = Transcript()
    other.meta("summary", summary="Login form work", leafUuid=t.last)
    other.write(_project(tmp_path))
    import_paths(store, [tmp_path / "projects"])
    assert store.session(t.session_id).title == "Login form work"
    t.meta("ai-title", aiTitle="AI chose this")
    t.write(_project(tmp_path))
    import_paths(store, [tmp_path / "projects"])
    assert store.session(t.session_id).title == "AI chose this"
    t.meta("custom-title", customTitle="Mine")
    t.meta("ai-title", aiTitle="AI again")
    t.write(_project(tmp_path))
    import_paths(store, [tmp_path / "projects"])
    assert store.session(t.session_id).title == "Mine"


def test_a_file_of_summary_lines_alone_is_titled_by_its_summary_until_a_prompt_comes(store, tmp_path):
    """#33: a transcript holding only summary lines (their leaf elsewhere or nowhere) was "(untitled)"; its
    summary names it now, and only until anything better does (the first prompt)."""
    t = Transcript()
    t.meta("summary", summary="Feature work with task management", leafUuid="not-in-any-file")
    t.write(_project(tmp_path))
    import_paths(store, [tmp_path / "projects"])
    (s,) = store.sessions()
    assert s.title == "Feature work with task management"
    t.user("now fix the login form")
    t.write(_project(tmp_path))
    import_paths(store, [tmp_path / "projects"])
    assert store.session(s.id).title == "now fix the login form"


def test_opening_a_session_is_not_activity(store, tmp_path):
    t = Transcript()
    t.user("hi")
    t.assistant("hello")
    path = t.write(_project(tmp_path))
    import_paths(store, [path])
    before = store.session(t.session_id).updated_at
    with open(path, "a") as fh:
        for type_ in ("mode", "atis-latch", "tools-used", "cost-state"):
            fh.write(f'{{"type":"{type_}","sessionId":"{t.session_id}","timestamp":"2030-01-01T00:00:00Z"}}\n')
    report = import_paths(store, [path])
    assert report.events_added == 4
    assert store.session(t.session_id).updated_at == before


def test_resumed_copy_is_deduplicated_and_chained(store, tmp_path):
    old = Transcript()
    old.user("start")
    old.assistant("reply")
    old.write(_project(tmp_path))
    new = Transcript()
    new.lines = [dict(line) for line in old.lines]  # the new file repeats the history under the old id
    new.last, new.n, new.clock = old.last, 100, old.clock
    new.user("continue please")
    new.assistant("continuing")
    new.write(_project(tmp_path))
    report = import_paths(store, [tmp_path / "projects"])
    def messages(sid):
        return [e.text for e in store.events(sid) if not e.kind.startswith("fact.")]
    assert messages(old.session_id) == ["start", "reply"]
    assert messages(new.session_id) == ["continue please", "continuing"]
    assert [e.text for e in store.branch(new.session_id)] == ["start", "reply", "continue please", "continuing"]
    assert report.events_added == store.session(old.session_id).event_count + store.session(new.session_id).event_count


def _with_nested_subagent(tmp_path, after_result: bool = False):
    """A session whose Task call spawned agent a1b2c3d, written in the 2.1.x nested layout."""
    t = Transcript()
    t.user("research this")
    call = t.assistant(tool=("Task", {"subagent_type": "general", "prompt": "look"}))
    result = t.tool_result(call, "found it", extra={"agentId": "a1b2c3d", "status": "completed",
                                                    "agentType": "general"})
    if after_result:
        t.assistant("done")
    project = _project(tmp_path)
    t.write(project)
    sub = t.write_subagent(project, "a1b2c3d", "look", "looked")
    return t, call, result, sub, project


def test_subagent_layouts_are_linked(store, tmp_path):
    t, call, _result, _sub, project = _with_nested_subagent(tmp_path)
    flat = Transcript(session_id=t.session_id)
    flat.user("Warmup", parent=None)
    for line in flat.lines:
        line.update(isSidechain=True, agentId="f00dfeed")
    flat.write(project, "agent-f00dfeed.jsonl")
    import_paths(store, [tmp_path / "projects"])
    s = store.session(t.session_id)
    assert s.meta["subagents"]["a1b2c3d"]["tool_use_id"] == call["message"]["content"][0]["id"]
    side = [e for e in store.events(t.session_id) if e.sidechain]
    assert {e.agent_id for e in side} == {"a1b2c3d", "f00dfeed"}
    assert all(not e.sidechain for e in store.branch(t.session_id))


def test_bad_input_is_counted_and_good_lines_kept(store, tmp_path):
    t = Transcript()
    t.user("before the damage")
    t.assistant("fine")
    project = _project(tmp_path)
    path = t.write(project)
    good_after = Transcript(session_id=t.session_id)
    good_after.last, good_after.n = t.last, 50
    good_after.user("after the damage")
    big = Transcript(session_id=t.session_id)
    big.last, big.n = good_after.last, 80
    big.assistant("x" * 1_000_000)
    with open(path, "ab") as fh:
        fh.write(b'{"type": "user", "broken json\n')
        fh.write(b'[1, 2, 3]\n')
        fh.write(b'{"type":"user","sessionId":"' + t.session_id.encode()
                 + b'","uuid":"bad-utf8","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"caf\xe9 \xff"}}\n')  # noqa: E501
        fh.write(b'{"type":"user","sessionId":"' + t.session_id.encode()
                 + b'","uuid":"surrogate","timestamp":"2026-03-01T10:00:01Z","message":{"role":"user","content":"lone \\ud800 here"}}\n')  # noqa: E501
        fh.write(b'{"type":"brand-new-type","sessionId":"' + t.session_id.encode() + b'","whatever":1}\n')
        fh.write(good_after.text().encode() + big.text().encode())
        fh.write(b'{"type":"assistant","uuid":"half-writ')  # the tool is still writing this line
    (project / "00000000-0000-4000-8000-000000000000.jsonl").write_bytes(b"")
    report = import_paths(store, [tmp_path / "projects"])
    assert report.bad_lines == 2
    problems = {p["line"]: p["problem"] for p in report.problems}
    assert problems[3].startswith("not valid JSON") and "not an object" in problems[4]
    assert "replaced" in problems[5] and "replaced" in problems[6]
    events = store.events(t.session_id)
    texts = [e.text for e in events]
    assert "before the damage" in texts and "after the damage" in texts
    assert any(x.startswith("caf\ufffd") for x in texts) and "lone \ufffd here" in texts
    assert [e.kind for e in events if e.kind == "opaque"] == ["opaque"]
    assert any(len(x) == 1_000_000 for x in texts)
    assert file_problems(store)[0]["bad_lines"] == 2
    # the half-written line is read once the tool finishes it
    with open(path, "ab") as fh:
        fh.write(b'ten","sessionId":"' + t.session_id.encode()
                 + b'","timestamp":"2026-03-01T11:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"finished"}]}}\n')  # noqa: E501
    later = import_paths(store, [tmp_path / "projects"])
    assert later.events_added == 1 and later.bad_lines == 0
    assert store.event("half-written").text == "finished"


def test_parent_cycle_is_cut(store, tmp_path):
    sid = "11111111-2222-4333-8444-555555555555"
    lines = [
        f'{{"type":"user","sessionId":"{sid}","uuid":"c1","parentUuid":"c2","timestamp":"2026-03-01T10:00:00Z","message":{{"role":"user","content":"one"}}}}',
        f'{{"type":"user","sessionId":"{sid}","uuid":"c2","parentUuid":"c1","timestamp":"2026-03-01T10:00:01Z","message":{{"role":"user","content":"two"}}}}',
    ]
    path = _project(tmp_path) / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")
    report = import_paths(store, [path])
    assert any("cycle" in p["problem"] for p in report.problems)
    # cut at the line that closed the loop, the last written (c2): a scan that stopped between the two lines had
    # stored c1 under c2 already, and the store is the same whichever way the file was read
    assert [e.text for e in store.branch(sid)] == ["two", "one"]
    assert store.event("c2").parent_id is None and store.event("c1").parent_id == "c2"
    assert store.facts_at("c2") == {}


def test_rescan_reads_only_the_appended_line(store, tmp_path):
    project = _project(tmp_path)
    sessions = []
    for i in range(200):
        t = Transcript(session_id=f"{i:08d}-0000-4000-8000-000000000000")
        t.user(f"task {i}")
        t.assistant(f"reply {i}")
        t.write(project)
        sessions.append(t)
    first = import_paths(store, [tmp_path / "projects"])
    assert first.files_read == 200
    t = sessions[137]
    t.lines = []
    t.user("one more line")
    line = t.text().encode()
    with open(project / f"{t.session_id}.jsonl", "ab") as fh:
        fh.write(line)
    again = import_paths(store, [tmp_path / "projects"])
    assert (again.files_seen, again.files_read, again.bytes_read, again.events_added) == (200, 1, len(line), 1)
    # a truncated (replaced) file is read again from the start
    victim = project / f"{sessions[3].session_id}.jsonl"
    victim.write_text(victim.read_text().splitlines()[0] + "\n")
    replaced = import_paths(store, [tmp_path / "projects"])
    assert replaced.files_read == 1 and replaced.bytes_read == victim.stat().st_size


def test_import_can_be_cancelled_and_resumed(store, tmp_path):
    import threading

    project = _project(tmp_path)
    for i in range(20):
        t = Transcript(session_id=f"{i:08d}-0000-4000-8000-00000000000a")
        t.user(f"task {i}")
        t.write(project)
    cancel = threading.Event()
    seen = []

    def progress(done, total, path):
        seen.append(done)
        if len(seen) == 5:
            cancel.set()
    first = import_paths(store, [tmp_path / "projects"], progress=progress, cancel=cancel)
    assert first.cancelled and first.files_read == 5
    rest = import_paths(store, [tmp_path / "projects"])
    assert rest.files_read == 15 and store.count_sessions() == 20
    assert seen == sorted(seen)


def test_missing_path_is_reported(store, tmp_path):
    report = import_paths(store, [tmp_path / "nope"])
    assert report.problems[0]["problem"] == "no such file or folder"


def test_subagent_runs_follow_their_spawn_in_the_timeline(store, tmp_path):
    t, call, result, sub, _project_dir = _with_nested_subagent(tmp_path, after_result=True)
    import_paths(store, [tmp_path / "projects"])
    ids = store.branch_ids(t.session_id, skip_kinds=("fact.set",), include_subagents=True)
    order = [ids.index(x) for x in (call["uuid"], sub.lines[0]["uuid"], sub.lines[1]["uuid"], result["uuid"])]
    assert order == sorted(order)
    assert sub.lines[0]["uuid"] not in store.branch_ids(t.session_id)  # not by default


def test_titles_skip_what_the_user_did_not_type(store, tmp_path):
    """IDE context blocks before a prompt are not its title; a session of slash commands only is
    named by its first command (claude-agent-sdk names sessions the same way)."""
    project = _project(tmp_path)
    ide = Transcript()
    ide.user("<ide_opened_file>The user opened the file /w/a.py in the IDE.</ide_opened_file>Fix the import")
    ide.assistant("done")
    ide.write(project)
    cmd = Transcript()
    cmd.user("<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>")
    cmd.user("<local-command-stdout>ok</local-command-stdout>")
    cmd.write(project)
    import_paths(store, [project])
    assert store.session(ide.session_id).title == "Fix the import"
    assert store.session(cmd.session_id).title == "/init"


def test_a_subagent_transcript_without_its_parent_is_named_by_its_task(store, tmp_path):
    project = _project(tmp_path)
    sub = Transcript()
    sub.user("Map the loader area and list its entry points", parent=None)
    sub.assistant("three entry points")
    for line in sub.lines:
        line.update(isSidechain=True, agentId="a0ff")
    sub.write(project, "agent-a0ff.jsonl")
    import_paths(store, [project])
    [s] = store.sessions()
    assert s.title == "Map the loader area and list its entry points"


def _small_sessions(tmp_path, n: int) -> list[Transcript]:
    out = []
    for i in range(n):
        t = Transcript()
        t.user(f"question {i}")
        t.assistant(f"answer {i}")
        t.write(_project(tmp_path))
        out.append(t)
    return out


def test_small_files_share_commits_and_store_what_one_commit_each_would(store, tmp_path):
    import sqlalchemy as sa

    sessions = _small_sessions(tmp_path, 30)
    commits = []

    def counted(conn):
        if conn.get_execution_options().get("sessionscope_write"):  # a write transaction (readers commit too)
            commits.append(1)
    sa.event.listen(store.engine, "commit", counted)
    report = import_paths(store, [tmp_path / "projects"])
    sa.event.remove(store.engine, "commit", counted)
    assert report.files_read == 30 and report.events_added >= 60 and report.problems == []
    assert len(commits) < 10  # not one a file (the source row, the shared batch, the audit line…)
    for t in sessions:
        assert [e.text for e in store.branch(t.session_id)] == [t.lines[0]["message"]["content"],
                                                                 t.lines[1]["message"]["content"][0]["text"]]
    again = import_paths(store, [tmp_path / "projects"])  # every file's offset was saved with its lines
    assert (again.files_read, again.events_added) == (0, 0)


def test_a_file_that_cannot_be_stored_is_said_and_the_files_sharing_its_commit_are_kept(store, tmp_path,
                                                                                        monkeypatch):
    from sessionscope.sources.claude_code import importer

    sessions = _small_sessions(tmp_path, 6)
    bad = sessions[3].session_id
    real = importer.ingest_converted

    def failing(conn, ctx, problems):
        if bad in ctx.sessions:
            raise ValueError("a shape nobody foresaw")
        return real(conn, ctx, problems)
    monkeypatch.setattr(importer, "ingest_converted", failing)
    report = import_paths(store, [tmp_path / "projects"])
    assert [p["path"].endswith(f"{bad}.jsonl") for p in report.problems] == [True]
    assert "a shape nobody foresaw" in report.problems[0]["problem"]
    stored = {s.id for s in store.sessions()}
    assert stored == {t.session_id for t in sessions} - {bad}


def test_a_transcript_without_timestamps_is_dated_by_its_file_not_1970(store, tmp_path):
    """Lines without a timestamp take the one before them; before any, the file's own time: a session of no
    timestamps at all sorts where its file was last written, not at 1970 (nor at the time of the import)."""
    import os

    from sessionscope.sources.claude_code import import_paths
    t = Transcript()
    t.user("no clock here")
    t.assistant("none here either")
    for line in t.lines:
        del line["timestamp"]
    path = t.write(tmp_path / "p")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    import_paths(store, [path])
    s = store.session(t.session_id)
    assert s.created_at == s.updated_at == 1_700_000_000
    assert {e.ts for e in store.events(s.id)} == {1_700_000_000}
