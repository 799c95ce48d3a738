"""A first run reads the newest transcripts first, so the sessions the user worked in last are listed within its
first seconds; and it stores what reading them oldest first stores: a summary read before the file it names
titles it once that is in, and a resumed copy, a fork and a subagent's file wait for the file they continue."""

from __future__ import annotations

import os

import pytest

from sessionscope import open_store
from sessionscope.sources import scan
from sessionscope.sources.claude_code import import_paths
from sessionscope.sources.claude_code.importer import session_files, stands_alone
from tests.sources.claude_factory import Transcript

sdk = pytest.importorskip("claude_agent_sdk")
DAY = 86_400.0


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    project = tmp_path / "claude" / "projects" / "-work-app"
    when = 1_780_000_000.0

    def dated(path, days):  # a transcript was last written at its last line
        os.utime(path, (when + days * DAY, when + days * DAY))
        return path
    for i in range(30):  # the older sessions
        t = Transcript()
        t.user(f"older task {i}")
        t.assistant(f"older answer {i}")
        dated(t.write(project), i)
    origin = Transcript()
    origin.user("the origin's prompt")
    origin.assistant("the origin's answer")
    origin.user("a second prompt")
    leaf = origin.assistant("a second answer")
    dated(origin.write(project), -1)  # older than the 24 newest: read after the files that name it
    origin.write_subagent(project, "a1b2c3d", "look it up", "found it")
    dated(project / origin.session_id / "subagents" / "agent-a1b2c3d.jsonl", 40)
    resumed = Transcript(session_id=origin.session_id)  # an older Claude Code's resume: the history repeated
    resumed.lines = [dict(line) for line in origin.lines]
    resumed.last, resumed.clock, resumed.n = origin.last, origin.clock, origin.n
    resumed.session_id = "bbbbbbbb-0000-4000-8000-0000000000b1"
    resumed.user("go on")
    resumed.assistant("going on")
    dated(resumed.write(project), 41)
    fork = sdk.fork_session(origin.session_id, up_to_message_id=leaf["uuid"]).session_id
    dated(project / f"{fork}.jsonl", 42)
    titled = Transcript()  # the newest: a summary line titling the origin's leaf comes first
    titled.lines.append({"type": "summary", "summary": "the origin, summed up", "leafUuid": leaf["uuid"]})
    titled.user("the newest task")
    titled.assistant("the newest answer")
    dated(titled.write(project), 43)
    return project, {"origin": origin.session_id, "resumed": resumed.session_id, "fork": fork,
                     "newest": titled.session_id}


def _stored(store) -> tuple:
    with store.reader() as conn:
        sessions = conn.exec_driver_sql("SELECT id, title, event_count, head_event_id, forked_from_session, "
                                        "forked_from_event, created_at, updated_at FROM session ORDER BY id").fetchall()
        events = conn.exec_driver_sql("SELECT id, session_id, parent_id, kind, text, ts FROM event ORDER BY id"
                                      ).fetchall()
    return sessions, events


def test_the_newest_lead_and_a_copy_waits_for_its_origin(home):
    project, ids = home
    paths = scan.files_under(project, None, session_files, stands_alone)
    order = [p.stem for p in paths]
    leading = order[:scan.RECENT_FIRST]
    assert ids["newest"] in leading and ids["origin"] not in leading
    for waits in (ids["resumed"], ids["fork"], "agent-a1b2c3d"):  # each waits for the file it continues
        assert waits not in leading and order.index(waits) > order.index(ids["origin"])
    times = [p.stat().st_mtime for p in paths[:scan.RECENT_FIRST]]
    assert times == sorted(times, reverse=True)  # the newest of all first
    times = [p.stat().st_mtime for p in paths[scan.RECENT_FIRST:]]
    assert times == sorted(times)  # the rest oldest first
    assert sorted(paths) == sorted(session_files(project))


def test_a_big_transcript_among_the_newest_is_read_after_the_small_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(scan, "BIG_BYTES", 10_000)
    files = []
    for i, size in enumerate((100, 50_000, 200, 300)):  # the second newest is big
        p = tmp_path / f"{i}.jsonl"
        p.write_bytes(b"x" * size)
        os.utime(p, (1_780_000_000 + i * DAY,) * 2)
        files.append(p)
    assert scan.import_order(files, lambda p: True) == [files[3], files[2], files[0], files[1]]
    assert scan.import_order(files) == files  # a tool that does not say: oldest first


def test_reading_newest_first_stores_what_oldest_first_stores(home, tmp_path, monkeypatch):
    project, ids = home
    newest_first = open_store(tmp_path / "newest.db")
    import_paths(newest_first, [project.parent])
    monkeypatch.setattr(scan, "RECENT_FIRST", 0)
    oldest_first = open_store(tmp_path / "oldest.db")
    import_paths(oldest_first, [project.parent])
    assert _stored(newest_first) == _stored(oldest_first)
    store = newest_first
    assert store.session(ids["origin"]).title == "the origin, summed up"  # titled by a file read before it
    assert store.session(ids["fork"]).forked_from_session == ids["origin"]
    assert [e.text for e in store.branch_view(ids["resumed"]) if e.kind == "message"] == [
        "the origin's prompt", "the origin's answer", "a second prompt", "a second answer", "go on", "going on"]
    assert all(r.ok for r in store.verify())


def test_codex_reads_its_newest_threads_first_and_stores_what_oldest_first_stores(tmp_path, monkeypatch):
    """Codex's rollouts too: the newest threads of their own lead; a fork (read before its parent, the line it
    forked at would not be known) and a subagent's thread (a run in its parent's session) wait for the parent."""
    import copy
    import datetime as dt

    from sessionscope.sources import codex
    from sessionscope.sources.codex.importer import session_files as rollouts
    from sessionscope.sources.codex.importer import stands_alone as starts_a_thread
    from tests.sources.codex_factory import Rollout
    from tests.sources.test_subagents_linked import CHILD, PARENT, _codex_pair

    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    day = tmp_path / "codex" / "sessions" / "2026" / "02" / "23"
    when = 1_780_000_000.0

    def dated(path, days):
        os.utime(path, (when + days * DAY,) * 2)
        return path
    def apart(r, hours):  # (a line's id is its content's: threads of their own never share a second)
        r.clock += dt.timedelta(hours=hours)
        return r
    for i in range(30):
        r = apart(Rollout(f"019a0000-0000-7000-8000-{i:012d}"), i + 1)
        r.turn(f"older task {i}", f"older answer {i}")
        dated(r.write(day), i)
    parent, child = _codex_pair()
    dated(parent.write(day), -1)  # older than the 24 newest
    dated(child.write(day), 40)
    fork = Rollout("019a0000-0000-7000-8000-00000000cccc", forked_from=PARENT)
    fork.lines += copy.deepcopy(parent.lines[1:10])
    fork.clock = parent.clock
    fork.turn("the same, another way", "done differently")
    dated(fork.write(day), 41)
    newest = apart(Rollout("019a0000-0000-7000-8000-00000000dddd"), 40)
    newest.turn("the newest task", "the newest answer")
    dated(newest.write(day), 42)

    order = [p.name for p in scan.import_order(rollouts(day), starts_a_thread)]
    leading = order[:scan.RECENT_FIRST]
    assert leading[0].endswith("dddd.jsonl")
    for waits in (CHILD, fork.session_id):
        name = next(n for n in order if waits in n)
        assert name not in leading and order.index(name) > order.index(next(n for n in order if PARENT in n))

    newest_first = open_store(tmp_path / "newest.db")
    codex.import_paths(newest_first, [tmp_path / "codex" / "sessions"])
    monkeypatch.setattr(scan, "RECENT_FIRST", 0)
    oldest_first = open_store(tmp_path / "oldest.db")
    codex.import_paths(oldest_first, [tmp_path / "codex" / "sessions"])
    assert _stored(newest_first) == _stored(oldest_first)
    f = newest_first.session(fork.session_id)
    assert f.forked_from_session == PARENT and f.forked_from_event
