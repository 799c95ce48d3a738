"""LangGraph's checkpointer over our store: langgraph-checkpoint-conformance, then a real graph whose
run is a session (steps, messages, facts) while it runs, and whose update_state fork is a branch."""

from __future__ import annotations

import asyncio
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
    (session,) = store.sessions()
    assert session.source_kind == "langgraph" and session.tool_id == "t1" and session.title == "what is in a.txt?"
    kinds = [k for k, _, _ in _lines(store, session.id)]
    assert kinds.count("tool_call") == 2 and kinds[-1] == "interrupt"
    assert store.head_facts(session.id)["todo"] == []  # set, then emptied by the second reply

    app.invoke(Command(resume="yes"), config)  # the same session grows
    assert ("message", "assistant", "a.txt says hello") in _lines(store, session.id)
    assert store.head_facts(session.id)["approved"] is True

    # langgraph's own time travel: a new checkpoint under an old one is a branch in the tree
    first_step = list(app.get_state_history(config))[-2]
    app.update_state(first_step.config, {"todo": ["something else"]})
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
    assert store.head_facts(store.sessions()[0].id)["approved"] is False
    saver.close()
    store.close()
