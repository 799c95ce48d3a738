"""LangGraph's checkpointer over our store: langgraph-checkpoint-conformance, then a real graph whose
run is a session (steps, messages, facts) while it runs, and whose update_state fork is a branch."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from sessionscope import open_store

pytest.importorskip("langgraph.checkpoint.sqlite")
conformance = pytest.importorskip("langgraph.checkpoint.conformance")
from langchain_core.messages import HumanMessage  # noqa: E402
from langgraph.types import Command  # noqa: E402

from sessionscope.adapters.langgraph import SessionscopeSaver  # noqa: E402
from tests.sources import langgraph_graph as graph  # noqa: E402


def test_it_passes_langgraphs_conformance_suite(tmp_path):
    @conformance.checkpointer_test(name="SessionscopeSaver")
    async def fresh():
        saver = SessionscopeSaver(tmp_path / f"{uuid.uuid4().hex}.db")
        yield saver
        saver.close()
    report = asyncio.run(conformance.validate(fresh))
    report.print_report()
    assert report.passed_all_base() and report.passed_all(), report.conformance_level()


def _lines(store, sid):
    return [(e.kind, e.role, e.text) for e in store.branch(sid) if not e.kind.startswith("fact.")]


def test_a_graph_run_is_a_session_while_it_runs_and_update_state_branches(tmp_path):
    store = open_store(tmp_path / "s.db")
    saver = SessionscopeSaver(store)
    app = graph.builder().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t1"}}
    app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)  # runs to the interrupt
    # shown a moment behind the saves, by the saver's worker, without being asked
    deadline = time.monotonic() + 10
    while not store.sessions() and time.monotonic() < deadline:
        time.sleep(0.05)
    saver.flush()  # (and everything saved, now)
    (session,) = store.sessions()
    assert session.source_kind == "langgraph" and session.tool_id == "t1" and session.title == "what is in a.txt?"
    kinds = [k for k, _, _ in _lines(store, session.id)]
    assert kinds.count("tool_call") == 2 and kinds[-1] == "interrupt"
    assert store.head_facts(session.id)["todo"] == []  # set, then emptied by the second reply

    app.invoke(Command(resume="yes"), config)  # the same session grows
    saver.flush()
    assert ("message", "assistant", "a.txt says hello") in _lines(store, session.id)
    assert store.head_facts(session.id)["approved"] is True

    # langgraph's own time travel: a new checkpoint under an old one is a branch in the tree
    first_step = list(app.get_state_history(config))[-2]
    app.update_state(first_step.config, {"todo": ["something else"]})
    saver.flush()
    assert len(store.leaves(session.id)) == 2
    assert store.head_facts(session.id)["todo"] == ["something else"]

    # the graph reads back through the same saver, as from any checkpointer
    assert app.get_state(config).values["todo"] == ["something else"]
    saver.delete_thread("t1")
    assert app.get_state(config).values == {}
    assert store.session(session.id).event_count > 0  # the session stays; the deletion is recorded
    assert store.audit_log()[0]["action"] == "langgraph.delete_thread"
    saver.close()
    store.close()


def test_async_graphs_write_through_it_too(tmp_path):
    store = open_store(tmp_path / "s.db")
    saver = SessionscopeSaver(store)
    app = graph.builder().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "a1"}}

    async def run():
        await app.ainvoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
        await app.ainvoke(Command(resume="no"), config)
        return (await app.aget_state(config)).values["approved"]
    assert asyncio.run(run()) is False
    saver.flush()
    assert store.head_facts(store.sessions()[0].id)["approved"] is False
    saver.close()
    store.close()


def _whole_read(path, thread_id: str) -> list[tuple]:
    """The events an import of the file makes of a thread, read whole (no mirror)."""
    from sessionscope.sources import jsonl
    from sessionscope.sources.langgraph.importer import read_threads

    scratch = open_store(path.parent / f"scratch-{uuid.uuid4().hex}.db")  # (asked only for stored marks)
    built, _mark = read_threads(scratch, path, jsonl.ReadState(), only=thread_id)[thread_id]
    scratch.close()
    return sorted((e.id, e.parent_id, e.kind, e.text) for e in built.events)


def _shown(store, session_id: str) -> list[tuple]:
    return sorted((e.id, e.parent_id, e.kind, e.text) for e in store.events(session_id))


def test_what_the_saver_shows_equals_a_whole_read_of_its_file(tmp_path):
    """Each save is read on its own (a mirror per thread): the session it makes must be, event for event
    and link for link, what reading the thread whole makes, through interrupts, resumes, time travel to a
    checkpoint older than the mirror keeps decoded, and a second saver (another process) on the thread."""
    from sessionscope.sources.langgraph.mirror import KEEP

    path = tmp_path / "s.db"
    store = open_store(path)
    saver = SessionscopeSaver(store)
    app = graph.builder().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t1"}}
    app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
    app.invoke(Command(resume="yes"), config)
    for n in range(KEEP + 4):  # more checkpoints than the mirror keeps decoded
        app.update_state(config, {"todo": [f"item {n}"]})
    early = list(app.get_state_history(config))[-3]
    app.update_state(early.config, {"todo": ["back in time"]})  # its state is brought back from the file
    other = SessionscopeSaver(store)  # another writer of the same thread: both mirrors read its rows
    graph.builder().compile(checkpointer=other).update_state(config, {"todo": ["from elsewhere"]})
    app.update_state(config, {"todo": ["and back"]})
    for s in (saver, other):
        s.flush()
    (session,) = store.sessions()
    assert _shown(store, session.id) == _whole_read(path, "t1")
    assert store.head_facts(session.id)["todo"] == ["and back"]
    for s in (saver, other):
        s.close()
    store.close()


def _resume_saved_late(saver, monkeypatch) -> None:
    """Run the graph to its interrupt and resume it, with the resume's save slowed down so that the step after
    it is saved first (langgraph saves the two on threads of its own)."""
    import threading
    import time as clock

    put_writes = type(saver.saver).put_writes
    late = threading.Event()

    def slow_resume(self, config, writes, task_id, task_path=""):
        if any(channel == "__resume__" for channel, _ in writes):
            clock.sleep(0.3)  # the step after it is saved meanwhile
            late.set()
        return put_writes(self, config, writes, task_id, task_path)
    monkeypatch.setattr(type(saver.saver), "put_writes", slow_resume)
    app = graph.builder().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t1"}}
    app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
    app.invoke(Command(resume="yes"), config)
    assert late.is_set()


def test_a_resume_saved_after_the_step_it_resumed_still_comes_before_it(tmp_path, monkeypatch):
    """What the saver shows is the whole read's order whichever save ends first: the answer under the
    interrupt, the step under the answer (a stored link never changes; CI met this once in ten runs)."""
    path = tmp_path / "s.db"
    store = open_store(path)
    saver = SessionscopeSaver(store)
    _resume_saved_late(saver, monkeypatch)
    saver.flush()
    (session,) = store.sessions()
    assert _shown(store, session.id) == _whole_read(path, "t1")
    assert _lines(store, session.id)[-1][2].startswith("step 4 · loop · review")  # the head reaches the last step
    saver.close()
    store.close()


UNCLOSED_WRITER = """
import sys
from pathlib import Path
from langchain_core.messages import HumanMessage
from langgraph.types import Command
from sessionscope.adapters.langgraph import SessionscopeSaver
from tests.sources import langgraph_graph as graph

saver = SessionscopeSaver(Path(sys.argv[1]))  # never closed, as a script leaves it
saver._behind.QUIET_S = saver._behind.MAX_LAG_S = 3600  # its worker never shows on its own before the exit
app = graph.builder().compile(checkpointer=saver)
config = {"configurable": {"thread_id": "t1"}}
app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
app.invoke(Command(resume="yes"), config)
"""


def test_a_script_that_never_closes_its_saver_has_its_run_shown_as_it_exits(tmp_path):
    """Shown a moment behind the saves: what is left when a script ends without close() is shown as it exits."""
    import os
    import subprocess
    import sys

    from tests.adapters.killing import ROOT

    path = tmp_path / "s.db"
    open_store(path).close()
    subprocess.run([sys.executable, "-c", UNCLOSED_WRITER, str(path)], cwd=ROOT, check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    store = open_store(path)
    (session,) = store.sessions()
    assert _shown(store, session.id) == _whole_read(path, "t1")
    assert store.head_facts(session.id)["approved"] is True
    store.close()


KILLED_WRITER = """
import sys, time
from pathlib import Path
from langchain_core.messages import HumanMessage
from sessionscope.adapters.langgraph import SessionscopeSaver
from tests.sources import langgraph_graph as graph

path, flag, rounds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
saver = SessionscopeSaver(path)
saver._behind.QUIET_S = saver._behind.MAX_LAG_S = 3600  # its worker never shows on its own: we are killed first
put, shown_one = SessionscopeSaver.put, [False]
def slow(self, config, checkpoint, metadata, new_versions):
    # the first checkpoint is saved and shown; the next is saved, and the parent kills us before its showing
    out = put(self, config, checkpoint, metadata, new_versions)
    if not shown_one[0]:
        shown_one[0] = True
        self.flush()
        return out
    flag.write_text("saved")
    time.sleep(60)
    return out
SessionscopeSaver.put = slow
app = graph.builder().compile(checkpointer=saver)
app.invoke({"messages": [HumanMessage(f"round {rounds}")]}, {"configurable": {"thread_id": f"t{rounds}"}})
"""


def test_a_graph_killed_between_a_save_and_its_showing_is_shown_by_the_next_scan(tmp_path):
    """kill -9 after langgraph committed a checkpoint and before the store showed it, five times: the app's
    next look (the watcher's catch-up, `sessionscope scan`, a new saver) shows every checkpoint saved."""
    import sqlite3

    from sessionscope.sources.importing import catch_up
    from sessionscope.sources.langgraph.importer import session_key, step_id
    from tests.adapters.killing import kill_when_flagged

    path = tmp_path / "s.db"
    open_store(path).close()
    for r in range(5):
        flag = tmp_path / f"saved-{r}"
        kill_when_flagged(KILLED_WRITER, path, flag, r, flag=flag, what="writer (a save)")

        store = open_store(path)
        con = sqlite3.connect(path)
        saved = con.execute("SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = ?", (f"t{r}",)).fetchall()
        con.close()
        key = session_key(path, f"t{r}")
        wanted = {step_id(key, ns, cid) for ns, cid in saved}
        shown = lambda: {e.id for e in store.events(key)} if store.session(key) else set()  # noqa: E731
        assert wanted - shown(), "the kill left nothing unshown: the test proves nothing"
        assert catch_up(store, settle=60).events_added == 0  # a thread still moving is left to its writer
        report = catch_up(store)  # what the app's watcher runs once the thread has settled, and `scan`
        assert report.events_added > 0 and not report.problems
        assert wanted <= shown()
        assert catch_up(store).events_added == 0  # nothing is shown twice
        store.close()


# -- on a PostgreSQL store (#38 item 5): langgraph's PostgresSaver in the store's database --------------------------

def test_it_passes_langgraphs_conformance_suite_on_postgresql_too(postgres_server):
    pytest.importorskip("langgraph.checkpoint.postgres")

    @conformance.checkpointer_test(name="SessionscopeSaver on PostgreSQL")
    async def fresh():
        saver = SessionscopeSaver(postgres_server.fresh_database(migrated=True))
        yield saver
        saver.close()
    report = asyncio.run(conformance.validate(fresh))
    report.print_report()
    assert report.passed_all_base() and report.passed_all(), report.conformance_level()


def test_a_graph_run_is_a_session_on_postgresql_too(postgres_server, tmp_path):
    pytest.importorskip("langgraph.checkpoint.postgres")
    store = open_store(postgres_server.fresh_database(migrated=True))
    saver = SessionscopeSaver(store)
    app = graph.builder().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t1"}}
    app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
    app.invoke(Command(resume="yes"), config)
    (session,) = store.sessions()
    assert (session.source_kind, session.tool_id, session.title) == ("langgraph", "t1", "what is in a.txt?")
    assert "@" in session.meta["database"] and ":" not in session.meta["database"].split("@")[0][13:]  # no password
    # the same events as the same run through SqliteSaver, read whole from its file
    sqlite_store = open_store(tmp_path / "s.db")
    sqlite_saver = SessionscopeSaver(sqlite_store)
    other = graph.builder().compile(checkpointer=sqlite_saver)
    other.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
    other.invoke(Command(resume="yes"), config)
    sqlite_saver.flush()
    (filed,) = sqlite_store.sessions()
    assert _lines(store, session.id) == _lines(sqlite_store, filed.id)
    assert store.head_facts(session.id)["approved"] is True
    # time travel is a branch; what the mirror showed equals a whole read of the tables (the catch-up adds nothing)
    first_step = list(app.get_state_history(config))[-2]
    app.update_state(first_step.config, {"todo": ["something else"]})
    saver.flush()
    assert len(store.leaves(session.id)) == 2
    from sessionscope.sources.langgraph.importer import catch_up
    assert catch_up(store).events_added == 0
    for s in (saver, sqlite_saver):
        s.close()
    store.close()
    sqlite_store.close()


def test_a_resume_saved_late_on_postgresql_too(postgres_server, monkeypatch):
    pytest.importorskip("langgraph.checkpoint.postgres")
    store = open_store(postgres_server.fresh_database(migrated=True))
    saver = SessionscopeSaver(store)
    _resume_saved_late(saver, monkeypatch)
    (session,) = store.sessions()
    lines = _lines(store, session.id)
    assert lines[-2:] == [("message", "user", "yes"), ("step", "graph", "step 4 · loop · review → approved")]
    saver.close()
    store.close()


def test_in_a_team_store_each_members_checkpoints_are_theirs(postgres_server):
    pytest.importorskip("langgraph.checkpoint.postgres")
    from sessionscope.safety import team
    url = postgres_server.fresh_database()
    database = url.rsplit("/", 1)[1]
    tag = uuid.uuid4().hex[:6]
    names = {who: f"{who}_{tag}" for who in ("alice", "bob")}
    with open_store(url) as owner:
        done = owner.write(team.init)
        assert any("LangGraph's checkpointer tables ready" in d for d in done)
        for name in names.values():
            owner.write(team.add_member, name)
    stores = {who: open_store(postgres_server.url(database, name)) for who, name in names.items()}
    savers = {who: SessionscopeSaver(s) for who, s in stores.items()}
    config = {"configurable": {"thread_id": "t1"}}  # the same thread id, each their own thread
    for who, saver in savers.items():
        app = graph.builder().compile(checkpointer=saver)
        app.invoke({"messages": [HumanMessage(f"{who}: what is in a.txt?")]}, config)
    for who, store in stores.items():
        (s,) = store.sessions()
        assert s.owner == names[who] and s.title == f"{who}: what is in a.txt?"
        app = graph.builder().compile(checkpointer=savers[who])
        first = app.get_state(config).values["messages"][0].content
        assert first == f"{who}: what is in a.txt?"  # the graph reads back its own member's checkpoints alone
    r = postgres_server.psql(database, names["bob"], "SELECT count(DISTINCT owner) FROM checkpoints")
    assert r.returncode == 0 and r.stdout.strip() == "1", r.stderr
    for who in names:
        savers[who].close()
        stores[who].close()
