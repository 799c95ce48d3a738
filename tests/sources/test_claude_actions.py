"""Fork, rewind, restore and resume of Claude Code sessions, read back by claude-agent-sdk."""

from __future__ import annotations

import os

import orjson
import pytest

from sessionscope import NotFound, Refused, ops
from sessionscope.sources.claude_code import actions as claude_actions
from sessionscope.sources.claude_code import import_paths
from tests.sources.claude_factory import Transcript


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    return tmp_path / "claude" / "projects" / "-work-app"


def _branchy(home):
    """P1 → A1 → P2a → A2a, then a rewind: P2b → A2b under A1, written later in the file."""
    t = Transcript(session_id="aaaaaaaa-bbbb-4ccc-8ddd-000000000001")
    t.user("first prompt")
    a1 = t.assistant("first answer")
    p2a = t.user("second prompt, take one")
    a2a = t.assistant("answer one")
    p2b = t.user("second prompt, take two", parent=a1["uuid"])
    a2b = t.assistant("answer two")
    path = t.write(home)
    return t, path, [t.lines[0]["uuid"], a1["uuid"], p2a["uuid"], a2a["uuid"]], \
        [t.lines[0]["uuid"], a1["uuid"], p2b["uuid"], a2b["uuid"]]


def _origins(path, session_id):
    """new uuid → the original uuid it was forked from."""
    out = {}
    for raw in path.read_bytes().splitlines():
        line = orjson.loads(raw)
        if line.get("forkedFrom"):
            out[line["uuid"]] = line["forkedFrom"]["messageUuid"]
    return out


def test_fork_and_rewind_read_back_by_the_sdk(store, home):
    sdk = pytest.importorskip("claude_agent_sdk")
    t, path, branch_a, branch_b = _branchy(home)
    import_paths(store, [home.parent])
    original = path.read_bytes()

    fork = ops.fork(store, t.session_id, branch_a[-1])
    new = fork.session
    assert new.forked_from_session == t.session_id and new.forked_from_event == branch_a[-1]
    fork_file = home / f"{new.id}.jsonl"
    got = [m.uuid for m in sdk.get_session_messages(new.id)]
    assert [_origins(fork_file, new.id)[u] for u in got] == branch_a
    assert new.title.endswith("(fork)")
    # the store keeps the copies as references to the lines they copy: the fork's branch is made of
    # its origin's events (each shown at the time it was written, not the fork's stamp on the last)
    assert store.branch_ids(new.id) == branch_a

    rewind = ops.rewind(store, t.session_id, branch_b[-1])
    rw = rewind.session
    rw_file = home / f"{rw.id}.jsonl"
    got = [m.uuid for m in sdk.get_session_messages(rw.id)]
    assert [_origins(rw_file, rw.id)[u] for u in got] == branch_b  # no message of the sibling branch
    assert claude_actions.resume_command(rw) == ["claude", "--resume", rw.id] and rewind.files == (str(rw_file),)
    assert path.read_bytes() == original  # the original transcript is untouched
    listed = {s.session_id for s in sdk.list_sessions()}
    assert {t.session_id, new.id, rw.id} <= listed
    actions = [(a["action"], a["outcome"]) for a in store.audit_log(t.session_id)]
    assert ("fork", "ok") in actions and ("rewind", "ok") in actions
    # the tree tells them apart: a rewind is not drawn as one more fork
    labels = {n.fork_session: n.label for n in store.tree(t.session_id).nodes if n.fork_session}
    assert labels[new.id].startswith("fork → ") and labels[rw.id].startswith("rewind → ")


def test_fork_without_the_sdk_file_still_works(store, tmp_path, home):
    """A session imported from a folder of its own: the fork, and a restore, go where `claude --resume`
    run in the session's folder finds them (the same project folder), and the resume hint says so."""
    t, path, branch_a, _ = _branchy(tmp_path / "elsewhere")
    import_paths(store, [path])
    ch = ops.fork(store, t.session_id, branch_a[1])
    fork_file = home / f"{ch.session.id}.jsonl"
    lines = [orjson.loads(x) for x in fork_file.read_bytes().splitlines()]
    assert [x["forkedFrom"]["messageUuid"] for x in lines if "forkedFrom" in x] == branch_a[:2]
    assert lines[-1]["type"] == "custom-title"
    assert ch.detail["file"] == str(fork_file) and ch.files == (str(fork_file),)
    assert store.session(ch.session.id).cwd == "/work/app"  # `cd /work/app && claude --resume …` finds it there
    assert claude_actions.write_back(store, t.session_id) == [home / f"{t.session_id}.jsonl"]  # the same folder


def test_forking_at_a_subagent_event_says_why_not(store, home):
    t = Transcript(session_id="aaaaaaaa-bbbb-4ccc-8ddd-000000000009")
    t.user("delegate")
    t.assistant(tool=("Task", {"prompt": "look"}))
    path = t.write(home)
    sub = t.write_subagent(home, "a1b2c3d", "look", "found it")
    import_paths(store, [home.parent])
    inside = next(e for e in store.events(t.session_id) if e.sidechain)
    with pytest.raises(Refused, match="subagent's run .agent a1b2c3d.*fork at the tool call"):
        ops.fork(store, t.session_id, inside.id)
    assert sub and path


def test_fork_refusals_are_recorded(store, home):
    t, path, branch_a, _ = _branchy(home)
    import_paths(store, [home.parent])
    native = store.open_session()
    with pytest.raises(Exception, match="not a Claude Code session"):  # the source's own check
        claude_actions.fork(store, native.id, branch_a[0])
    with pytest.raises(NotFound):
        ops.fork(store, t.session_id, "0" * 36)
    assert store.audit_log(t.session_id)[0]["action"] == "fork"
    assert store.audit_log(t.session_id)[0]["outcome"] == "refused"


def test_restore_after_claude_deleted_the_transcript(store, home):
    t, path, *_ = _branchy(home)
    import_paths(store, [home.parent])
    original = path.read_bytes()
    path.unlink()
    written = claude_actions.write_back(store, t.session_id, target=home)
    assert written == [path] and path.read_bytes() == original
    with pytest.raises(Refused, match="never overwrites"):
        claude_actions.write_back(store, t.session_id, target=home)


def test_resume_command_and_terminal_allow_list(store, home):
    t, *_ = _branchy(home)
    import_paths(store, [home.parent])
    from sessionscope import sources
    s = store.session(t.session_id)
    src = sources.of(s.source_kind)
    assert src.resume_line(s) == f"cd /work/app && claude --resume {t.session_id}"
    argv = src.terminal_argv("x-terminal-emulator -e {command}", s)
    assert argv == ["x-terminal-emulator", "-e", "claude", "--resume", t.session_id]
    with pytest.raises(Exception, match="placeholder"):
        src.terminal_argv("xterm", s)
    native = store.session(store.open_session().id)
    assert sources.of(native.source_kind).resume_line(native) == f"sessionscope resume {native.id}"
    with pytest.raises(Exception, match="resumes in the store"):
        sources.of(native.source_kind).terminal_argv("x-terminal-emulator -e {command}", native)


def test_project_dir_names_match_the_cli():
    assert claude_actions.project_dir_name("/Users/dain/workspace/claude-code-log") == \
        "-Users-dain-workspace-claude-code-log"
    assert claude_actions.project_dir_name("/src/experiments/claude_p") == "-src-experiments-claude-p"
    long = "/x" * 150
    name = claude_actions.project_dir_name(long)
    assert len(name) > 200 and name.startswith("-x-x")
    sdk = pytest.importorskip("claude_agent_sdk._internal.sessions")
    assert name == sdk._sanitize_path(long)


def test_rename_and_tag_through_the_sdk(store, home):
    sdk = pytest.importorskip("claude_agent_sdk")
    t, path, *_ = _branchy(home)
    import_paths(store, [home.parent])
    before = path.read_bytes()
    ch = ops.rename(store, t.session_id, "A better title")
    assert ch.session.title == "A better title"
    assert path.read_bytes().startswith(before)  # the SDK appended, as Claude Code does
    info = {s.session_id: s for s in sdk.list_sessions()}[t.session_id]
    assert info.custom_title == "A better title"
    assert ops.tag(store, t.session_id, ["review"]).session.tags == ("review",)
    assert ops.tag(store, t.session_id, []).session.tags == ()
    assert [a["action"] for a in store.audit_log(t.session_id)][:3] == ["tag", "tag", "rename"]


def test_marks_leave_the_sessions_counts_be(store, home):
    """#60: star, pin, note, rename and tag raised a Claude Code session's event count (24 of 43 after a few marks):
    the title and tag lines the SDK appends are kept, and not counted, nor is the title they set; the branch shown
    and the list's count stay what they were, and so does its cost (worked out again only when the count moves)."""
    pytest.importorskip("claude_agent_sdk")
    t, path, *_ = _branchy(home)
    import_paths(store, [home.parent])
    s = store.session(t.session_id)
    count, branch, kept = s.event_count, store.branch_ids(s.id), len(store.events(s.id))
    head = store.events(s.id)[-1].id
    ops.star(store, s.id)
    ops.pin(store, s.id, head)
    ops.note_add(store, s.id, "look here", head)
    ops.rename(store, s.id, "A better title")
    ops.tag(store, s.id, ["review"])
    ops.rename(store, s.id, "An even better title")
    written = [orjson.loads(x)["type"] for x in path.read_bytes().splitlines()[-3:]]
    assert written == ["custom-title", "tag", "custom-title"]  # the marks are in the tool's own file
    after = store.session(s.id)
    assert after.title == "An even better title" and after.tags == ("review",)
    assert len(store.events(s.id)) > kept  # and kept in the store, line for line
    assert after.event_count == count and store.branch_ids(s.id) == branch


def test_rename_without_the_file_changes_only_the_store(store, tmp_path, home):
    t, path, *_ = _branchy(tmp_path / "elsewhere")
    import_paths(store, [path])
    before = path.read_bytes()
    assert ops.rename(store, t.session_id, "Store only").session.title == "Store only"
    assert path.read_bytes() == before


def _fork_lines(path):
    return [orjson.loads(x) for x in path.read_bytes().splitlines()]


def test_a_fork_references_its_origins_events_and_no_scan_reads_it_again(store, home):
    """A fork stores its own lines only; its copies are references (event_alias), and the file is recorded
    as read under the source that scans its folder."""
    from sessionscope import NotFound

    t, path, branch_a, _ = _branchy(home)
    import_paths(store, [home.parent])
    before = sum(s.event_count for s in store.sessions())
    new = ops.fork(store, t.session_id, branch_a[-1]).session
    lines = _fork_lines(home / f"{new.id}.jsonl")
    assert [x["forkedFrom"]["messageUuid"] for x in lines[:-1]] == branch_a and lines[-1]["type"] == "custom-title"
    with pytest.raises(NotFound):
        store.event(lines[0]["uuid"])  # a copy is not stored as an event of its own
    assert sum(s.event_count for s in store.sessions()) - before == new.event_count < len(lines)
    assert (new.forked_from_session, new.head_event_id) == (t.session_id, branch_a[-1])
    again = import_paths(store, [home.parent])
    assert (again.files_read, again.events_added) == (0, 0)


def test_what_claude_code_appends_to_a_resumed_fork_continues_its_branch(store, home):
    t, path, branch_a, _ = _branchy(home)
    import_paths(store, [home.parent])
    new = ops.fork(store, t.session_id, branch_a[-1]).session
    origin_events = store.session(t.session_id).event_count
    fork_file = home / f"{new.id}.jsonl"
    last_copy = _fork_lines(fork_file)[-2]["uuid"]
    more = Transcript(session_id=new.id)
    more.last = last_copy
    prompt = more.user("go on from the fork")
    reply = more.assistant("going on")
    with fork_file.open("a", encoding="utf-8") as fh:
        fh.write(more.text())
    report = import_paths(store, [home.parent])
    assert report.events_added >= 2 and report.problems == []
    assert store.event(prompt["uuid"]).parent_id == branch_a[-1]  # under the event its parent copies
    assert store.branch_ids(new.id) == branch_a + [prompt["uuid"], reply["uuid"]]
    assert store.session(new.id).head_event_id == reply["uuid"]
    assert store.session(t.session_id).event_count == origin_events  # the origin is untouched


def test_restore_writes_a_referenced_fork_back_as_it_was_written(store, home):
    sdk = pytest.importorskip("claude_agent_sdk")
    t, path, branch_a, _ = _branchy(home)
    import_paths(store, [home.parent])
    new = ops.fork(store, t.session_id, branch_a[2], title="kept fork").session
    fork_file = home / f"{new.id}.jsonl"
    written = _fork_lines(fork_file)
    fork_file.unlink()  # Claude Code cleaned it up
    assert claude_actions.write_back(store, new.id, target=home) == [fork_file]
    restored = _fork_lines(fork_file)
    assert len(restored) == len(written)
    for a, b in zip(written, restored):  # the same lines, but for the fork's time stamped on the last copy
        assert {k: v for k, v in a.items() if k != "timestamp"} == {k: v for k, v in b.items() if k != "timestamp"}
    got = [m.uuid for m in sdk.get_session_messages(new.id)]
    assert [_origins(fork_file, new.id)[u] for u in got] == branch_a[:3]


def test_deleting_a_fork_drops_its_references_and_its_origin_stays_while_it_lives(store, home):
    import sqlalchemy as sa

    from sessionscope.store.schema import EVENT_ALIAS

    t, path, branch_a, _ = _branchy(home)
    import_paths(store, [home.parent])
    new = ops.fork(store, t.session_id, branch_a[-1]).session

    def references():
        with store.reader() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(EVENT_ALIAS)
                                .where(EVENT_ALIAS.c.session_id == new.id)).scalar()
    assert references() == len(branch_a)
    with pytest.raises(Refused, match="fork from it"):
        store.delete(t.session_id)
    store.delete(new.id)
    assert references() == 0
    store.delete(t.session_id)


def test_a_fork_at_the_head_reads_the_cached_outline_as_the_walk_would(store, home):
    """At the session's head the fork takes its branch from the outline cache, less what was written after
    the head (a progress line under the last reply here): exactly the branch a walk that ends there gives."""
    from sessionscope.sources.claude_code.fork import _branch_rows
    from tests.sources.claude_factory import parallel_calls

    t = parallel_calls()
    t.assistant("both read")
    t._env("progress", data={"type": "hook_progress"})
    t.write(home)
    import_paths(store, [home.parent])
    head = store.session(t.session_id).head_event_id
    assert t.lines[-1]["uuid"] in store.branch_ids(t.session_id)  # the head branch shows it
    walked = store.branch_ids(t.session_id, head=head)
    assert [r.id for r in _branch_rows(store, t.session_id, head)] == walked
    assert t.lines[-1]["uuid"] not in walked and len(walked) == len(t.lines) - 1


def test_a_fork_of_a_fork_holds_the_whole_branch_read_back_by_the_sdk(store, home):
    """Forking a fork (whose history is its origin's events) at a line of its own and at a line it
    shares: each new transcript holds the branch up to that line, as the SDK reads it back."""
    sdk = pytest.importorskip("claude_agent_sdk")
    t, path, branch_a, _ = _branchy(home)
    import_paths(store, [home.parent])
    first = ops.fork(store, t.session_id, branch_a[-1]).session
    fork_file = home / f"{first.id}.jsonl"
    more = Transcript(session_id=first.id)
    more.last = _fork_lines(fork_file)[-2]["uuid"]
    prompt = more.user("one more prompt in the fork")
    reply = more.assistant("one more answer")
    with fork_file.open("a", encoding="utf-8") as fh:
        fh.write(more.text())
    import_paths(store, [home.parent])

    own = ops.fork(store, first.id, reply["uuid"]).session
    own_file = home / f"{own.id}.jsonl"
    got = [m.uuid for m in sdk.get_session_messages(own.id)]
    assert [_origins(own_file, own.id)[u] for u in got] == branch_a + [prompt["uuid"], reply["uuid"]]
    assert store.branch_ids(own.id) == branch_a + [prompt["uuid"], reply["uuid"]]
    own_file.unlink()  # and written back from the store, it is the same branch
    claude_actions.write_back(store, own.id, target=home)
    got = [m.uuid for m in sdk.get_session_messages(own.id)]
    assert [_origins(own_file, own.id)[u] for u in got] == branch_a + [prompt["uuid"], reply["uuid"]]

    shared = ops.fork(store, first.id, branch_a[1]).session
    shared_file = home / f"{shared.id}.jsonl"
    got = [m.uuid for m in sdk.get_session_messages(shared.id)]
    assert [_origins(shared_file, shared.id)[u] for u in got] == branch_a[:2]
    assert store.branch_ids(shared.id) == branch_a[:2]
    # a scan that reads the restored file again (as a new file when its inode is new) adds nothing: its
    # copies, and the facts drawn from them, are the events they reference
    (own_file.parent / "again").mkdir()
    os.link(own_file, own_file.parent / "again" / own_file.name)
    again = import_paths(store, [own_file.parent / "again"])
    assert again.files_read == 1 and again.events_added == 0 and again.problems == []


def test_a_fork_holds_the_subagent_work_written_up_to_its_cut_and_has_a_tree(store, tmp_path, monkeypatch):
    """#29 item 22: an async subagent still running after the cut is not part of the fork's timeline (its rows
    were shown up to the origin's end), and the fork's tree starts with the history it shares."""
    import datetime as dt

    from sessionscope import sources
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import Transcript
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    project = tmp_path / "claude" / "projects" / "-work-app"
    t = Transcript(cwd="/work/app")
    t.user("spawn a coverage agent in the background")
    task = t.assistant(tool=("Task", {"description": "coverage", "prompt": "analyze", "run_in_background": True}))
    launched = t.tool_result(task, "Async agent launched", extra={"agentId": "cccc333", "status": "async_launched"})
    t.assistant("it runs; meanwhile I look at the tests")
    t.user("and now?")
    t.assistant("the report came back")
    t.write(project)
    sub = Transcript(session_id=t.session_id)
    # its first line at the launch (each line of the factory comes 7 s after the one before)
    sub.clock = dt.datetime.fromisoformat(launched["timestamp"].replace("Z", "+00:00")) - dt.timedelta(seconds=7)
    sub.user("analyze the coverage", parent=None)
    sub.assistant("reading the sources")  # written after the cut below
    sub.assistant("coverage complete")
    for line in sub.lines:
        line.update(isSidechain=True, agentId="cccc333")
    sub.write(project / t.session_id / "subagents", "agent-cccc333.jsonl")
    import_paths(store, [tmp_path / "claude" / "projects"])
    cut = store.event(launched["uuid"])
    fork = sources.of("claude_code").fork(store, t.session_id, cut.id, "at the launch").session
    shown = store.events_by_ids(store.branch_ids(fork.id, None, include_subagents=True))
    assert all(e.ts <= cut.ts for e in shown) and "coverage complete" not in {e.text for e in shown}
    assert "analyze the coverage" in {e.text for e in shown}  # what ran before the cut stays
    assert len(store.tree(fork.id).nodes) >= 1
    whole = store.events_by_ids(store.branch_ids(t.session_id, None, include_subagents=True))
    assert "coverage complete" in {e.text for e in whole}  # the origin keeps its whole run
