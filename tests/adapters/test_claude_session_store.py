"""The Claude Agent SDK's SessionStore over our store: the SDK's own conformance suite, then the SDK's
store helpers reading back what we hold, and the session as the app and the importer see it."""

from __future__ import annotations

import asyncio
import itertools

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
