"""The Claude Agent SDK's SessionStore over our store: the SDK's own conformance suite, then the SDK's
store helpers reading back what we hold, and the session as the app and the importer see it."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from sessionscope import open_store
from sessionscope.adapters.claude import ClaudeSessionStore
from sessionscope.sources import importing
from tests.sources.claude_factory import Transcript

sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk._internal.sessions import project_key_for_directory  # noqa: E402  (the SDK's own key)
from claude_agent_sdk.testing import run_session_store_conformance  # noqa: E402


def test_it_passes_the_sdks_conformance_suite_with_every_optional_method(tmp_path):
    n = itertools.count()
    made = []

    def fresh():
        made.append(ClaudeSessionStore(tmp_path / f"s{next(n)}.db"))
        return made[-1]
    asyncio.run(run_session_store_conformance(fresh))  # skip_optional left empty: all 14 contracts
    for s in made:
        s.close()
    assert len(made) >= 14


def _transcript(tmp_path) -> Transcript:
    t = Transcript(cwd=str(tmp_path / "app"))
    t.user("why does the login test flake?")
    call = t.assistant(tool=("Bash", {"command": "pytest tests/test_login.py"}))
    t.tool_result(call, "1 failed")
    t.assistant("The cookie is read before the redirect.")
    return t


def _lines(store, sid) -> list[str]:
    """The session's events that are transcript lines (not the facts the importer derives from them)."""
    return [e.id for e in store.events(sid) if not e.kind.startswith("fact.")]


def test_mirrored_lines_are_a_browsable_session_the_sdk_reads_back_and_forks(tmp_path):
    store = open_store(tmp_path / "s.db")
    backend = ClaudeSessionStore(store)
    t = _transcript(tmp_path)
    key = {"project_key": project_key_for_directory(t.cwd), "session_id": t.session_id}

    async def mirror():
        await backend.append(key, t.lines[:2])  # batches, as the SDK sends them
        await backend.append(key, t.lines[1:])  # a retried batch overlaps: idempotent on uuid
    asyncio.run(mirror())
    assert asyncio.run(backend.load(key)) == t.lines  # the SDK's own read: at once

    # the events follow on the adapter's worker, a moment after the appends pause (no flush here)
    deadline = time.monotonic() + 10
    while t.session_id not in {x.id for x in store.sessions()} and time.monotonic() < deadline:
        time.sleep(0.05)
    s = store.session(t.session_id)
    assert s.source_kind == "claude_code" and "login test" in s.title and s.cwd == str(tmp_path / "app")
    assert _lines(store, t.session_id) == [line["uuid"] for line in t.lines]
    assert store.search("redirect")[0].session_id == t.session_id

    messages = asyncio.run(sdk.get_session_messages_from_store(backend, t.session_id, directory=str(tmp_path / "app")))
    assert [m.uuid for m in messages] == [line["uuid"] for line in t.lines]
    listed = asyncio.run(sdk.list_sessions_from_store(backend, directory=str(tmp_path / "app")))
    assert [i.session_id for i in listed] == [t.session_id]

    fork = asyncio.run(sdk.fork_session_via_store(backend, t.session_id, directory=str(tmp_path / "app"),
                                                  up_to_message_id=t.lines[1]["uuid"]))
    copied = asyncio.run(backend.load({**key, "session_id": fork.session_id}))
    assert [line["forkedFrom"]["messageUuid"] for line in copied if "forkedFrom" in line] == \
        [line["uuid"] for line in t.lines[:2]]
    backend.flush()
    forked = store.session(fork.session_id)  # the fork is a session in the store too, and says whence
    assert len(_lines(store, fork.session_id)) == len(copied)
    assert store.count_sessions() == 2 and forked.source_kind == "claude_code"
    store.close()


def test_the_local_transcript_imported_too_is_the_same_session(tmp_path):
    store = open_store(tmp_path / "s.db")
    backend = ClaudeSessionStore(store)
    t = _transcript(tmp_path)
    asyncio.run(backend.append({"project_key": project_key_for_directory(t.cwd), "session_id": t.session_id},
                               t.lines))
    backend.flush()
    before = store.session(t.session_id).event_count
    folder = tmp_path / "home" / ".claude" / "projects" / "-app"
    t.write(folder)
    report = importing.import_paths(store, [folder.parent])
    assert report.events_added == 0 and store.count_sessions() == 1
    assert store.session(t.session_id).event_count == before
    store.close()


def test_delete_removes_the_mirror_and_is_recorded_but_the_session_stays(tmp_path):
    store = open_store(tmp_path / "s.db")
    backend = ClaudeSessionStore(store)
    t = _transcript(tmp_path)
    key = {"project_key": project_key_for_directory(t.cwd), "session_id": t.session_id}
    asyncio.run(backend.append(key, t.lines))
    asyncio.run(sdk.delete_session_via_store(backend, t.session_id, directory=str(tmp_path / "app")))
    assert asyncio.run(backend.load(key)) is None
    assert _lines(store, t.session_id) == [line["uuid"] for line in t.lines]  # kept, as when Claude Code deletes a file
    entry = store.audit_log(t.session_id)[0]
    assert entry["action"] == "sdk.delete" and entry["detail"]["entries_removed"] == 4
    store.close()


def test_a_mirrored_session_equals_a_file_import_of_the_same_lines(tmp_path):
    """The same 50 lines appended through the adapter (in batches of 1 to 9, half through a second
    adapter as another process would) and imported as a file: the same title (the first prompt, not the
    latest), the same events and derived facts (cwd and model extracted where they change, not after
    every line), the same tokens (a reply's lines share one usage) and the same facts at the head."""
    t = Transcript(cwd=str(tmp_path / "app"))
    for turn in range(12):
        if turn == 6:
            t.cwd = str(tmp_path / "app" / "sub")  # a `cd`: one more extracted fact, once
        t.user(f"prompt number {turn}: please look at module {turn}")
        call = t.assistant(tool=("Bash", {"command": f"ls {turn}"}), msg_id=f"msg_{turn}", usage=(100 + turn, 9))
        t.tool_result(call, f"file{turn}.py")
        t.assistant(f"done with {turn}", msg_id=f"msg_{turn}", usage=(100 + turn, 20),  # the same reply, grown
                    model="claude-opus-4-1" if turn >= 9 else "claude-sonnet-4-5")
    t.meta("permission-mode", permissionMode="plan")  # a line without uuid: its facts hang on the chain
    t.user("and one more thing")
    assert len(t.lines) == 50

    filed = open_store(tmp_path / "filed.db")
    importing.import_paths(filed, [t.write(tmp_path / "projects" / "proj")])
    (want,) = filed.sessions()

    mirrored = open_store(tmp_path / "mirrored.db")
    key = {"project_key": "proj", "session_id": t.session_id}
    first, second = ClaudeSessionStore(mirrored), ClaudeSessionStore(mirrored)

    async def append():
        at, sizes = 0, itertools.cycle([1, 3, 9, 2, 7, 1, 5])
        while at < len(t.lines):
            n = next(sizes)
            backend = first if at < 25 or at % 2 else second  # two writers take turns on the same key
            await backend.append(key, t.lines[at:at + n])
            if n != 9:  # (and a batch left to the next one that shows: the rows it read as another's)
                backend.flush()  # each shows its own, reading the other's rows on the way
            at += n
    asyncio.run(append())
    first.flush(), second.flush()
    got = mirrored.session(t.session_id)

    assert got.title == want.title == "prompt number 0: please look at module 0"
    assert (got.event_count, got.tokens_in, got.tokens_out) == (want.event_count, want.tokens_in, want.tokens_out)
    assert got.model == want.model == "claude-opus-4-1" and got.cwd == want.cwd
    assert mirrored.head_facts(got.id) == filed.head_facts(want.id)

    def shape(store, sid):
        return sorted((e.kind, e.role or "", e.text) for e in store.events(sid))
    assert shape(mirrored, got.id) == shape(filed, want.id)
    extracted = [e.text for e in mirrored.events(got.id) if e.kind == "fact.set" and e.text.startswith("cwd")]
    assert len(extracted) == 2
    for s in (first, second, mirrored, filed):
        s.close()


def test_it_passes_the_conformance_suite_on_postgresql_too(postgres_server):
    made = []

    def fresh():
        made.append(ClaudeSessionStore(postgres_server.fresh_database(migrated=True)))
        return made[-1]
    asyncio.run(run_session_store_conformance(fresh))
    t = Transcript()
    t.user("on a team store")
    t.assistant("yes", msg_id="m1")
    t.assistant("yes, twice", msg_id="m1", usage=(100, 40))
    backend = made[-1]
    asyncio.run(backend.append({"project_key": "p", "session_id": t.session_id}, t.lines[:2]))
    asyncio.run(backend.append({"project_key": "p", "session_id": t.session_id}, t.lines[2:]))
    backend.flush()
    s = backend.store.session(t.session_id)
    assert (s.title, len(_lines(backend.store, s.id)), s.tokens_out) == ("on a team store", 3, 40)
    for b in made:
        b.close()


def test_a_lone_surrogate_in_a_line_is_kept_for_the_sdk_and_shown_safely(tmp_path):
    t = Transcript()
    t.user("half a pair \ud83d here")
    t.assistant("fine \udc00", msg_id="m1")
    backend = ClaudeSessionStore(tmp_path / "s.db")
    key = {"project_key": "p", "session_id": t.session_id}
    asyncio.run(backend.append(key, t.lines[:1]))
    asyncio.run(backend.append(key, t.lines[1:]))
    assert asyncio.run(backend.load(key)) == t.lines  # what the SDK gave, exactly
    (summary,) = asyncio.run(backend.list_session_summaries("p"))
    assert summary["session_id"] == t.session_id
    backend.flush()
    s = backend.store.session(t.session_id)
    assert s.title == "half a pair \ufffd here"
    assert "fine \ufffd" in [e.text for e in backend.store.events(s.id)]
    other = ClaudeSessionStore(backend.store)  # a second writer reads the stored lines back to go on
    t.user("and on")
    asyncio.run(other.append(key, t.lines[2:]))
    other.flush()
    assert backend.store.session(s.id).title == "half a pair \ufffd here"
    backend.close()


KILLED_APPENDER = """
import asyncio, os, sys
from sessionscope.adapters.claude import ClaudeSessionStore
from tests.sources.claude_factory import Transcript
t = Transcript(session_id=sys.argv[3])
for turn in range(6):
    t.user(f"prompt {turn}")
    t.assistant(f"reply {turn}", msg_id=f"m{turn}", usage=(10, 3))
backend = ClaudeSessionStore(sys.argv[1])
backend._behind.QUIET_S = backend._behind.MAX_LAG_S = 3600  # its worker never gets to show them
asyncio.run(backend.append({"project_key": "p", "session_id": t.session_id}, t.lines))
open(sys.argv[2], "w").close()
import time; time.sleep(600)
"""


def test_lines_appended_by_a_process_killed_before_its_worker_showed_them_are_shown_by_the_next_scan(tmp_path):
    """kill -9 after the SDK's rows committed and before the adapter's worker made them events, three times:
    the SDK reads every line back, and the app's next look (the watcher's catch-up, `sessionscope scan`)
    shows them, once, as a file import of the same lines would."""
    import uuid

    from sessionscope.sources.importing import catch_up
    from tests.adapters.killing import kill_when_flagged

    path = tmp_path / "s.db"
    open_store(path).close()
    for r in range(3):
        flag, sid = tmp_path / f"appended-{r}", str(uuid.uuid4())
        kill_when_flagged(KILLED_APPENDER, path, flag, sid, flag=flag, what="appender")
        store = open_store(path)
        backend = ClaudeSessionStore(store)
        assert len(asyncio.run(backend.load({"project_key": "p", "session_id": sid}))) == 12  # the SDK's read
        assert sid not in {s.id for s in store.sessions()}, "the kill left nothing unshown: the test proves nothing"
        assert catch_up(store, settle=60).events_added == 0  # a key still moving is left to its writer
        report = catch_up(store)
        assert report.events_added > 0 and not report.problems
        s = store.session(sid)
        assert (s.title, s.tokens_out, len(_lines(store, sid))) == ("prompt 0", 18, 12)
        assert catch_up(store).events_added == 0  # nothing is shown twice
        backend.close()
        store.close()
