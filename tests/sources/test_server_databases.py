"""The agents' own state on a PostgreSQL server (#38 item 5): LangGraph's PostgresSaver and the Agents SDK's
SQLAlchemySession, written by the real libraries on a real server, read by their address as their SQLite forms are
read (the same events), rescanned for what is new, never written (but by a fork or rewind asked for), and LangGraph's
fork and rewind done there through langgraph's own saver."""

from __future__ import annotations

import asyncio

import pytest

from sessionscope import ops, sources
from sessionscope.sources import importing, server_databases

pytest.importorskip("langgraph.checkpoint.postgres")
from langgraph.checkpoint.postgres import PostgresSaver  # noqa: E402

from sessionscope.sources.langgraph import importer as lg  # noqa: E402
from tests.sources import langgraph_graph as graph  # noqa: E402


def _address(postgres_server) -> str:
    return postgres_server.fresh_database().replace("postgresql+psycopg://", "postgresql://")


def _run_on(address: str, thread: str = "t1", answer: str | None = "yes"):
    """The test graph's whole run with PostgresSaver (as an application would set it up)."""
    cm = PostgresSaver.from_conn_string(address)
    saver = cm.__enter__()
    saver.setup()
    app = graph.builder().compile(checkpointer=saver)
    config = {"configurable": {"thread_id": thread}}
    app.invoke({"messages": [graph.HumanMessage("what is in a.txt?")]}, config)
    if answer is not None:
        app.invoke(graph.Command(resume=answer), config)
    return app, cm, config


def _shape(store, key):
    return [(e.kind, e.role, e.text) for e in store.branch_view(key)]


def test_langgraph_checkpoints_on_a_server_read_as_a_sqlite_files_are(store, postgres_server, tmp_path):
    address = _address(postgres_server)
    app, cm, config = _run_on(address)
    report = importing.import_paths(store, [address])
    key = lg.session_key(address, "t1")
    assert report.sessions == {key} and not report.problems, report.problems
    s = store.session(key)
    assert (s.source_kind, s.tool_id, s.title, s.model) == ("langgraph", "t1", "what is in a.txt?", "plain-python-1")
    assert s.project == address.rsplit("/", 1)[1] and s.meta["database"] == address
    # the same events as the same run written by SqliteSaver
    db = tmp_path / "checkpoints.sqlite"
    graph.run(db)[1].close()
    importing.import_paths(store, [db])
    strip = [(k, r, t) for k, r, t in _shape(store, key) if k != "step"]
    assert strip == [(k, r, t) for k, r, t in _shape(store, lg.session_key(db, "t1")) if k != "step"]
    assert "Interrupted: {\"question\":\"ship it?\"}" in [t for _k, _r, t in strip]

    # a rescan adds nothing; a new thread, only it
    assert importing.import_paths(store, [address]).events_added == 0
    app.invoke({"messages": [graph.HumanMessage("and b.txt?")]}, {"configurable": {"thread_id": "t2"}})
    again = importing.import_paths(store, [address])
    assert again.sessions == {lg.session_key(address, "t2")} and again.events_added > 0

    # a rewind through langgraph's own saver, there; the graph runs on from it
    history = list(app.get_state_history(config))
    at = next(h for h in history if h.next == ("tools",))
    to = lg.step_id(key, "", at.config["configurable"]["checkpoint_id"])
    assert "PostgresSaver" in sources.of("langgraph").resume_line(s)
    ch = ops.rewind(store, key, to, actor="test")
    assert ch.detail["file"] == address
    assert app.get_state(config).next == ("tools",)
    # a fork: a new thread there that the graph resumes
    waiting = app.get_state(config).config["configurable"]["checkpoint_id"]
    fork = ops.fork(store, key, lg.step_id(key, "", waiting), "on the server", actor="test")
    assert fork.session.title == "on the server"
    assert app.get_state({"configurable": {"thread_id": fork.detail["new_thread"]}}).next == ("tools",)
    cm.__exit__(None, None, None)


def test_a_server_database_is_only_read(postgres_server):
    address = _address(postgres_server)
    _app, cm, _config = _run_on(address)
    cm.__exit__(None, None, None)
    with server_databases.connect(address) as conn:
        with pytest.raises(Exception, match="read-only"):
            conn.execute("CREATE TABLE sessionscope_was_here (x int)")


def test_an_address_that_holds_nothing_or_answers_nothing_is_said(store, postgres_server):
    empty = _address(postgres_server)
    report = importing.import_paths(store, [empty])
    assert report.problems and "left alone" in report.problems[0]["problem"] and not report.sessions
    gone = importing.import_paths(store, ["postgresql://nobody@127.0.0.1:1/none"])
    assert "cannot connect" in gone.problems[0]["problem"] and gone.problems[0]["path"].endswith("/none")


def test_agents_sdk_sessions_on_a_server_read_as_a_sqlite_files_are(store, postgres_server, tmp_path):
    agents = pytest.importorskip("agents")
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
    address = _address(postgres_server)
    items = [{"role": "user", "content": "what is the capital of France?"},
             {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{\"q\": \"France\"}"},
             {"type": "function_call_output", "call_id": "c1", "output": "Paris"},
             {"role": "assistant", "content": [{"type": "output_text", "text": "Paris.", "annotations": []}]}]

    async def write(session, more):
        await session.add_items(more)

    on_server = SQLAlchemySession.from_url("user-7", url=address.replace("postgresql://", "postgresql+psycopg://"),
                                           create_tables=True)
    asyncio.run(write(on_server, items))
    in_file = agents.SQLiteSession("user-7", str(tmp_path / "items.db"))
    asyncio.run(write(in_file, items))
    report = importing.import_paths(store, [address])
    key = sources.of("agents_sdk")._module().session_key(address, "user-7")
    assert report.sessions == {key} and not report.problems, report.problems
    filed = importing.import_paths(store, [tmp_path / "items.db"])
    (file_key,) = filed.sessions
    assert _shape(store, key) == _shape(store, file_key)
    assert store.session(key).title == "what is the capital of France?"
    # a rescan reads only the rows added since
    assert importing.import_paths(store, [address]).events_added == 0
    asyncio.run(write(on_server, [{"role": "user", "content": "and Spain?"}]))
    assert importing.import_paths(store, [address]).events_added == 1
    assert _shape(store, key)[-1] == ("message", "user", "and Spain?")
    asyncio.run(on_server.engine.dispose())
