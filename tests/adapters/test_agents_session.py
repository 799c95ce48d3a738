"""The OpenAI Agents SDK's Session over our store: the same answers as the SDK's own SQLiteSession for
the same calls, a real Runner run keeping its history here, and pop/clear as rewinds, not deletes."""

from __future__ import annotations

import asyncio

import pytest

from sessionscope import open_store
from sessionscope.adapters.agents import SessionscopeSession, store_session_id

agents = pytest.importorskip("agents")
from tests.adapters.echo_model import EchoModel  # noqa: E402  (needs agents)

ITEMS = [
    {"role": "user", "content": "what is the weather in Paris?"},
    {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "Paris"}'},
    {"type": "function_call_output", "call_id": "c1", "output": "18°C, cloudy"},
    {"role": "assistant", "content": "It is 18°C and cloudy."},
]


async def _script(session) -> list:
    """The calls the SDK's session tests make, each answer recorded."""
    seen = [await session.get_items(), await session.pop_item()]
    await session.add_items(ITEMS[:2])
    await session.add_items(ITEMS[2:])
    seen += [await session.get_items(), await session.get_items(limit=2), await session.get_items(limit=0)]
    seen += [await session.pop_item(), await session.get_items()]
    await session.add_items([{"role": "assistant", "content": "Cloudy, 18°C."}])
    seen.append(await session.get_items(limit=1))
    await session.clear_session()
    seen += [await session.get_items(), await session.pop_item()]
    await session.add_items([{"role": "user", "content": "and tomorrow?"}])
    seen.append(await session.get_items())
    return seen


def test_it_answers_as_the_sdks_own_sqlite_session(tmp_path):
    ours = SessionscopeSession("user-42", tmp_path / "s.db")
    theirs = agents.SQLiteSession("user-42")  # in memory
    assert asyncio.run(_script(ours)) == asyncio.run(_script(theirs))
    other = SessionscopeSession("user-43", ours.store)  # sessions are apart
    assert asyncio.run(other.get_items()) == []
    ours.close()


def test_pop_and_clear_move_the_head_and_delete_nothing(tmp_path):
    store = open_store(tmp_path / "s.db")
    session = SessionscopeSession("user-42", store)
    asyncio.run(session.add_items(ITEMS))
    assert asyncio.run(session.pop_item()) == ITEMS[-1]
    asyncio.run(session.add_items([{"role": "assistant", "content": "Cloudy, 18°C."}]))
    session.flush()  # (the items become events behind add_items: now)
    sid = store_session_id("user-42")
    s = store.session(sid)
    assert s.title == "what is the weather in Paris?" and s.tool_id == "user-42" and s.source_kind == "native"
    assert s.event_count == 1 + len(ITEMS) + 1  # the start, every item, the new reply: the popped one kept
    assert len(store.leaves(sid)) == 2  # the popped reply is a branch in the tree, as the window draws it
    popped, reply = [e for e in store.events(sid) if e.kind == "message" and e.role == "assistant"]
    drawn = {n.id: n for n in store.tree(sid).nodes}
    assert drawn[popped.id].kind == drawn[reply.id].kind == "tip"  # two branch tips
    assert drawn[popped.id].lane != drawn[reply.id].lane
    asyncio.run(session.clear_session())
    assert store.session(sid).event_count == s.event_count
    whys = [r["detail"].get("why") for r in store.audit_log(sid) if r["action"] == "rewind"]
    assert whys == ["clear_session", "pop_item"]
    assert store.search("cloudy")  # searchable as it happens
    store.close()


def test_a_runner_keeps_its_history_in_the_store(tmp_path):
    store = open_store(tmp_path / "s.db")
    model = EchoModel()
    agent = agents.Agent(name="echo", model=model)
    session = SessionscopeSession("chat-1", store)

    async def two_turns():
        first = await agents.Runner.run(agent, "hello", session=session)
        second = await agents.Runner.run(agent, "again", session=session)
        return first.final_output, second.final_output
    assert asyncio.run(two_turns()) == ("heard 1 items", "heard 3 items")  # the 2nd turn saw the 1st
    session.flush()
    texts = [e.text for e in store.branch(store_session_id("chat-1")) if e.kind == "message"]
    assert texts == ["hello", "heard 1 items", "again", "heard 3 items"]
    store.close()


def test_the_last_items_walked_back_from_the_head_are_the_whole_histories_last(tmp_path):
    """get_items(limit=…) walks back from the head (#31: it read the whole path on every turn): across pops,
    a clear and the branches they leave, it answers what the whole history's tail is."""
    session = SessionscopeSession("user-42", tmp_path / "s.db")

    async def check() -> None:
        for n in range(1, 13):
            await session.add_items([{"role": "user", "content": f"prompt {n}"},
                                     {"role": "assistant", "content": f"reply {n}"}])
            if n % 4 == 0:
                await session.pop_item()  # a branch left behind
            if n == 9:
                await session.clear_session()
            whole = await session.get_items()
            for limit in (1, 2, 3, 7, 50):
                assert await session.get_items(limit=limit) == whole[-limit:], (n, limit)
            assert await session.get_items(limit=0) == []
    asyncio.run(check())
    session.close()


def test_it_answers_as_the_sdks_own_sqlite_session_on_postgresql_too(postgres_server):
    ours = SessionscopeSession("user-42", postgres_server.fresh_database(migrated=True))
    theirs = agents.SQLiteSession("user-42")
    assert asyncio.run(_script(ours)) == asyncio.run(_script(theirs))
    ours.close()


def test_show_says_when_another_sdks_session_carries_the_same_id(tmp_path):
    """An SDK's session id is its user's string ("shared-id"), unique only within that SDK: a Claude SDK
    session and an Agents SDK session may both carry it. `show` names the other one, in text and JSON, on
    both of its paths (the quick reader for text, the store for --json)."""
    import json
    import os
    import subprocess
    import sys

    from sessionscope.adapters.claude import ClaudeSessionStore
    from tests.conftest import REPO
    from tests.sources.claude_factory import Transcript

    pytest.importorskip("claude_agent_sdk")
    path = tmp_path / "s.db"
    store = open_store(path)
    agents_side = SessionscopeSession("shared-id", store)
    asyncio.run(agents_side.add_items(ITEMS[:1]))
    agents_side.close()  # (its items shown)
    t = Transcript(session_id="shared-id")
    t.user("from the claude side")
    claude_side = ClaudeSessionStore(store)
    asyncio.run(claude_side.append({"project_key": "p", "session_id": "shared-id"}, t.lines))
    claude_side.close()  # (its last appends shown)
    store.close()

    def show(*args):
        out = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(path), "show", "shared-id", *args],
                             cwd=REPO, env=dict(os.environ), capture_output=True, text=True, check=True)
        return out.stdout
    text = show()
    assert "from the claude side" in text and f"also tool id 'shared-id': {store_session_id('shared-id')}" in text
    assert json.loads(show("--json"))["same_tool_id"] == [store_session_id("shared-id")]


def test_a_lone_surrogate_is_kept_as_the_sdk_keeps_it_and_shown_safely(tmp_path):
    """"\\ud800" alone is a Python and JSON string but no UTF-8: SQLiteSession keeps it (json's escape), and
    so do we; the session's title and text show U+FFFD, and search still works."""
    items = [{"role": "user", "content": "broken \ud800 text"}, {"role": "assistant", "content": "ok \udfff"}]
    ours = SessionscopeSession("user-s", tmp_path / "s.db")
    theirs = agents.SQLiteSession("user-s")

    async def run(session):
        await session.add_items(items)
        return await session.get_items(), await session.get_items(limit=1), await session.pop_item()
    assert asyncio.run(run(ours)) == asyncio.run(run(theirs)) == (items, items[1:], items[1])
    s = ours.store.session(ours.id)
    assert s.title == "broken \ufffd text"
    assert [e.text for e in ours.store.events(ours.id) if e.kind == "message"][0] == "broken \ufffd text"
    assert ours.store.search("broken")
    ours.close()


def test_added_items_become_events_behind_and_the_sdk_reads_them_at_once(tmp_path):
    """add_items queues and returns: the SDK reads the items at once (the session's, then the queue), the
    worker makes them events a moment later; an action taken in the app on the session first shows what is
    queued, so a rewind comes after everything the agent added before it; an archived session takes none."""
    import time

    from sessionscope import ops
    from sessionscope.errors import IllegalTransition

    store = open_store(tmp_path / "s.db")
    session = SessionscopeSession("user-7", store)
    session._behind.QUIET_S = session._behind.MAX_LAG_S = 3600  # the worker waits: what is queued stays queued
    asyncio.run(session.add_items(ITEMS[:2]))
    session.flush()
    asyncio.run(session.add_items(ITEMS[2:]))
    assert asyncio.run(session.get_items()) == ITEMS  # two shown, two queued: one list
    for limit in (1, 2, 3, 5):
        assert asyncio.run(session.get_items(limit=limit)) == ITEMS[-limit:]
    sid = store_session_id("user-7")
    assert len([e for e in store.events(sid) if e.kind != "meta"]) == 2
    start = store.events(sid)[0].id
    ops.rewind(store, sid, start)  # the app's rewind: the queued items first, then the head moves back
    assert len([e for e in store.events(sid) if e.kind != "meta"]) == 4
    assert asyncio.run(session.get_items()) == []
    asyncio.run(session.add_items([{"role": "user", "content": "again"}]))
    ops.archive(store, sid)
    assert [e.text for e in store.branch(sid) if e.kind == "message"] == ["again"]
    with pytest.raises(IllegalTransition):
        asyncio.run(session.add_items([{"role": "user", "content": "too late"}]))
    session.close()

    # the worker, on its own, a moment after the items were added
    other = SessionscopeSession("user-8", store)
    asyncio.run(other.add_items(ITEMS))
    deadline = time.monotonic() + 10
    while store_session_id("user-8") not in {s.id for s in store.sessions()} and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.session(store_session_id("user-8")).event_count == 1 + len(ITEMS)
    other.close()
    store.close()


KILLED_ADDER = """
import asyncio, sys
from sessionscope.adapters.agents import SessionscopeSession
session = SessionscopeSession(sys.argv[3], sys.argv[1])
session._behind.QUIET_S = session._behind.MAX_LAG_S = 3600  # its worker never gets to show them
asyncio.run(session.add_items([{"role": "user", "content": f"prompt {n}"} for n in range(5)]))
open(sys.argv[2], "w").close()
import time; time.sleep(600)
"""


def test_items_added_by_a_process_killed_before_its_worker_showed_them_are_shown_by_the_next_scan(tmp_path):
    """kill -9 after the items were queued and before they became events, three times: the SDK reads them
    back, and the app's next look (the watcher's catch-up, `sessionscope scan`) shows them, once."""
    from sessionscope.sources.importing import catch_up
    from tests.adapters.killing import kill_when_flagged

    path = tmp_path / "s.db"
    open_store(path).close()
    for r in range(3):
        flag, name = tmp_path / f"added-{r}", f"killed-{r}"
        kill_when_flagged(KILLED_ADDER, path, flag, name, flag=flag, what="adder")
        store = open_store(path)
        reader = SessionscopeSession(name, store)
        assert [i["content"] for i in asyncio.run(reader.get_items())] == [f"prompt {n}" for n in range(5)]
        sid = store_session_id(name)
        assert sid not in {s.id for s in store.sessions()}, "the kill left nothing unshown: the test proves nothing"
        assert catch_up(store, settle=60).events_added == 0  # items still coming are left to their writer
        report = catch_up(store)
        assert report.events_added == 5 and not report.problems
        assert store.session(sid).title == "prompt 0" and store.session(sid).event_count == 6
        assert catch_up(store).events_added == 0  # nothing is shown twice
        assert [i["content"] for i in asyncio.run(reader.get_items())] == [f"prompt {n}" for n in range(5)]
        reader.close()
        store.close()
