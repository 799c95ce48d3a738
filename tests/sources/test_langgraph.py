"""LangGraph checkpointer databases: histories written by a real graph (langgraph's SqliteSaver),
read through langgraph's own saver; fork and rewind through its API, checked by running the graph."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from sessionscope import ops, sources
from sessionscope.errors import Refused
from sessionscope.sources import importing, langgraph
from sessionscope.sources.langgraph import importer

pytest.importorskip("langgraph.checkpoint.sqlite")
from tests.sources import langgraph_graph as graph  # noqa: E402  (needs langgraph)


def _key(db, thread="t1"):
    return langgraph.session_key(db, thread)


def _step(store, key, checkpoint_id):
    return importer.step_id(key, "", checkpoint_id)


def _checkpoint(store, event_id):
    """The checkpoint an event belongs to (the head is the last event of the latest checkpoint's group)."""
    return sources_payload(store.event(event_id))["checkpoint_id"]


def test_a_thread_imports_with_its_messages_interrupt_state_and_usage(store, tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    app, con, config = graph.run(db)
    report = importing.import_paths(store, [tmp_path])
    key = _key(db)
    assert report.sessions == {key} and report.bad_lines == 0 and not report.problems
    s = store.session(key)
    assert (s.source_kind, s.tool_id, s.title, s.project, s.model) == \
        ("langgraph", "t1", "what is in a.txt?", "checkpoints", "plain-python-1")
    # token totals are what the thread's own messages report
    state = app.get_state(config).values
    assert (s.tokens_in, s.tokens_out) == (
        sum(m.usage_metadata["input_tokens"] for m in state["messages"] if getattr(m, "usage_metadata", None)),
        sum(m.usage_metadata["output_tokens"] for m in state["messages"] if getattr(m, "usage_metadata", None)))
    # every checkpoint is a step; the head is the thread's latest checkpoint
    history = list(app.get_state_history(config))
    view = store.branch_view(key)
    steps = [e for e in view if e.kind == "step"]
    assert len(steps) == len(history)
    assert _checkpoint(store, s.head_event_id) == history[0].config["configurable"]["checkpoint_id"]
    kinds = [e.kind for e in view if e.kind != "step"]
    assert kinds == ["message", "message", "tool_call", "tool_call", "tool_result", "tool_result", "message",
                     "interrupt", "message"]
    texts = [e.text for e in view]
    assert "Interrupted: {\"question\":\"ship it?\"}" in texts and "yes" in texts
    # tool results carry their call's id (pairing), and the calls theirs
    calls = [e for e in view if e.kind == "tool_call"]
    results = [e for e in view if e.kind == "tool_result"]
    assert [sources_payload(c)["id"] for c in calls] == [sources_payload(r)["tool_call_id"] for r in results]
    # the state's keys are facts: the diff between two checkpoints compares them key by key
    first_call = next(h for h in reversed(history) if h.values.get("todo"))  # after the first agent step
    last = history[0]
    a = _step(store, key, first_call.config["configurable"]["checkpoint_id"])
    b = _step(store, key, last.config["configurable"]["checkpoint_id"])
    assert store.facts_at(a)["todo"] == ["read a.txt"]
    d = store.diff(a, b)
    assert d.changed["todo"] == (["read a.txt"], []) and d.added["approved"] is True
    assert d.changed["messages"][1]["messages"] == len(state["messages"])
    con.close()


def sources_payload(e):
    import orjson
    return orjson.loads(e.payload)


def test_a_fork_made_in_langgraph_is_a_branch_and_a_rescan_adds_only_what_is_new(store, tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    app, con, config = graph.run(db)
    importing.import_paths(store, [db])
    key = _key(db)
    before = store.session(key).event_count
    assert importing.import_paths(store, [db]).events_added == 0  # nothing new: nothing decoded again
    # the application goes back to the checkpoint after the tool round and changes the plan there
    history = list(app.get_state_history(config))
    after_tools = next(h for h in history if h.next == ("agent",) and len(h.values["messages"]) == 4)
    forked = app.update_state(after_tools.config, {"todo": ["check b.txt"]})
    app.invoke(None, forked)
    again = importing.import_paths(store, [db])
    assert again.events_added > 0 and store.session(key).event_count == before + again.events_added
    assert len(store.leaves(key)) == 2  # the first run's end and the fork's
    tips = {n.kind for n in store.tree(key).nodes}
    assert "branch" in tips
    # the head follows the thread's latest checkpoint: the forked run
    head = store.session(key).head_event_id
    latest = app.get_state(config).config["configurable"]["checkpoint_id"]
    assert _checkpoint(store, head) == latest
    con.close()


def test_rewind_writes_langgraphs_own_copy_and_the_graph_runs_on_from_it(store, tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    app, con, config = graph.run(db)
    importing.import_paths(store, [db])
    key = _key(db)
    history = list(app.get_state_history(config))
    at = next(h for h in history if h.next == ("tools",))  # before the tool round
    to = _step(store, key, at.config["configurable"]["checkpoint_id"])
    src = sources.of("langgraph")
    assert str(db) in src.rewind_prompt(store.session(key))  # the confirmation names the file
    ch = ops.rewind(store, key, to)
    assert ch.detail["file"] == str(db)
    # langgraph itself now continues from the copy: the graph runs the tool round again
    latest = app.get_state(config)
    assert latest.next == ("tools",) and latest.metadata["source"] == "fork"
    app.invoke(None, config)  # runs to the interrupt again
    app.invoke(graph.Command(resume="no"), config)
    assert app.get_state(config).values["approved"] is False
    importing.import_paths(store, [db])
    s = store.session(key)
    assert _checkpoint(store, s.head_event_id) == app.get_state(config).config["configurable"]["checkpoint_id"]
    assert len(store.leaves(key)) == 2  # the first run stays, as a branch
    assert [e.text for e in store.branch_view(key) if e.kind == "message" and e.role == "user"][-1] == "no"
    assert [a["action"] for a in store.audit_log(session_id=key)][0] == "rewind"
    con.close()


def test_fork_adds_a_new_thread_that_the_graph_resumes(store, tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    app, con, config = graph.run(db, answer=None)  # waiting at the interrupt
    importing.import_paths(store, [db])
    key = _key(db)
    waiting = app.get_state(config).config["configurable"]["checkpoint_id"]
    ch = sources.of("langgraph").fork(store, key, _step(store, key, waiting), "second opinion")
    new_thread = ch.detail["new_thread"]
    assert new_thread.startswith("t1-fork-") and ch.session.title == "second opinion"
    assert ch.session.forked_from_session == key and ch.session.forked_from_event == _step(store, key, waiting)
    # only what follows the fork point is the new session's own; the branch reads through the origin
    own = store.events(ch.session.id)
    assert [e.kind for e in own if not e.kind.startswith("fact")] == ["step"]
    assert any(e.text == "what is in a.txt?" for e in store.branch_view(ch.session.id))
    # the application resumes the new thread by its id: the original thread is untouched
    fork_config = {"configurable": {"thread_id": new_thread}}
    assert app.get_state(fork_config).next == ("review",)
    app.invoke(graph.Command(resume="yes"), fork_config)
    assert app.get_state(fork_config).values["approved"] is True
    assert app.get_state(config).next == ("review",)
    importing.import_paths(store, [db])
    assert store.branch_view(ch.session.id)[-1].kind in ("step", "fact.set")
    assert new_thread in sources.of("langgraph").resume_line(store.session(ch.session.id))
    con.close()


def test_fork_refuses_a_missing_database_and_records_it(store, tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    _app, con, _config = graph.run(db)
    con.close()
    importing.import_paths(store, [db])
    key = _key(db)
    head = store.session(key).head_event_id
    db.rename(tmp_path / "moved.sqlite")
    with pytest.raises(Refused, match="not there"):
        ops.fork(store, key, head)
    assert store.audit_log(session_id=key)[0]["outcome"] == "refused"


def test_a_checkpoint_langgraph_cannot_decode_is_counted_and_the_rest_kept(store, tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    _app, con, _config = graph.run(db)
    con.close()
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(db, damaged)
    with sqlite3.connect(damaged) as c:
        victim = c.execute("SELECT checkpoint_id FROM checkpoints ORDER BY checkpoint_id LIMIT 1 OFFSET 2").fetchone()[0]
        c.execute("UPDATE checkpoints SET checkpoint = X'C1C1C1' WHERE checkpoint_id = ?", (victim,))
    report = importing.import_paths(store, [damaged])
    assert report.bad_lines == 1 and victim in report.problems[0]["problem"]
    key = _key(damaged)
    steps = [e for e in store.events(key) if e.kind == "step"]
    with sqlite3.connect(db) as c:
        assert len(steps) == c.execute("SELECT count(*) FROM checkpoints").fetchone()[0] - 1
    assert store.branch_view(key)[-1].kind in ("step", "fact.set")  # the head is still reached


def test_the_database_is_only_read(store, tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    _app, con, _config = graph.run(db)
    con.close()
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA journal_mode=DELETE")  # as a copied file arrives: no write-ahead log beside it
    before = sorted(p.name for p in tmp_path.iterdir())
    data = db.read_bytes()
    importing.import_paths(store, [db])
    assert sorted(p.name for p in tmp_path.iterdir()) == before and db.read_bytes() == data


def test_the_pre_0_2_schema_is_reported_not_misread(store, tmp_path):
    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE checkpoints (thread_id TEXT, thread_ts TEXT, parent_ts TEXT, checkpoint BLOB, "
                  "metadata BLOB)")
        c.execute("CREATE TABLE writes (thread_id TEXT, thread_ts TEXT, task_id TEXT, idx INT, channel TEXT, "
                  "value BLOB)")
    report = importing.import_paths(store, [db])
    assert not report.sessions and "before 0.2" in report.problems[0]["problem"]


def test_the_corpus_databases_import(corpus, store):
    folder = corpus / "langgraph"
    if not folder.is_dir():
        pytest.skip("no langgraph corpus")
    before = sorted(p.name for p in folder.iterdir())
    report = importing.import_paths(store, [folder])
    # the corpus keeps the -wal and -shm files the databases were copied with: each is part of its database
    databases = [n for n in before if not n.endswith(("-wal", "-shm"))]
    assert report.files_read == len(databases) and report.bad_lines == 0 and not report.problems
    sessions = store.sessions()
    assert {s.source_kind for s in sessions} == {"langgraph"} and len(sessions) >= 4
    chat = next(s for s in sessions if s.title == "the city is san francisco")
    assert chat.tokens_in + chat.tokens_out > 0  # usage from the serialized AIMessages
    assert sorted(p.name for p in folder.iterdir()) == before


def test_without_the_langgraph_extra_the_import_and_the_fork_name_it(store, tmp_path):
    """LangGraph is an extra: where it is not installed, the file is reported (and read on a later
    scan, once it is) and a fork is refused, each naming what to install."""
    import subprocess
    import sys
    import textwrap

    from tests.conftest import REPO
    db = tmp_path / "checkpoints.sqlite"
    _app, con, _config = graph.run(db)
    con.close()
    importing.import_paths(store, [db])  # with langgraph, for the fork below
    key, db_store = _key(db), tmp_path / "without.db"
    script = textwrap.dedent(f"""
        import sys

        class NoLangGraph:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("langgraph", "langchain_core"):
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

        sys.meta_path.insert(0, NoLangGraph())
        from sessionscope import open_store
        from sessionscope.errors import MissingExtra
        from sessionscope.sources import importing
        from sessionscope import ops
        with open_store({str(db_store)!r}) as fresh:
            report = importing.import_paths(fresh, [{str(db)!r}])
            print(report.problems[0]["problem"])
            print(report.events_added)
        with open_store({str(store.url)!r}) as kept:
            head = kept.session({key!r}).head_event_id
            try:
                ops.fork(kept, {key!r}, head)
            except MissingExtra as exc:
                print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    problem, added, refused = out.stdout.strip().splitlines()
    assert "sessionscope[langgraph]" in problem and added == "0"
    assert "needs the 'langgraph' extra" in refused and "sessionscope[langgraph]" in refused
    assert store.audit_log(session_id=key)[0]["outcome"] == "refused"
    assert importing.import_paths(store, [db]).events_added == 0  # with it, nothing was lost or doubled


def test_a_checkpoint_that_names_os_system_is_read_and_nothing_runs(store, tmp_path):
    """#29 item 4: langgraph's default serializer rebuilds any constructor a checkpoint names; a database we
    import is untrusted, so ours rebuilds only langgraph's safe types and shows the rest undecoded."""
    import ormsgpack
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "checkpoints.sqlite"
    app, con, config = graph.run(db)
    con.close()
    mark = tmp_path / "PWNED"
    evil = {"x": ormsgpack.Ext(0, ormsgpack.packb(("os", "system", f"touch {mark}"))),
            "y": ormsgpack.Ext(1, ormsgpack.packb(("subprocess", "check_call", [["touch", str(mark)]])))}
    writer = SqliteSaver(sqlite3.connect(db, check_same_thread=False))
    latest = writer.get_tuple({"configurable": {"thread_id": "t1"}})
    checkpoint = dict(latest.checkpoint, id="1f0ffff0-0000-6000-8000-000000000001")
    real_dumps = writer.serde.dumps_typed

    def planted(obj):  # the checkpoint's own blob carries the constructors, as an attacker would write it
        kind, data = real_dumps(obj)
        if obj is checkpoint:
            doc = ormsgpack.unpackb(data, ext_hook=lambda code, raw: ormsgpack.Ext(code, raw))
            doc["channel_values"] = {**doc.get("channel_values", {}), **evil}
            data = ormsgpack.packb(doc)
        return kind, data
    writer.serde.dumps_typed = planted
    writer.put(latest.config, checkpoint, {"source": "update", "step": 99, "parents": {}}, {})
    writer.conn.close()

    report = importing.import_paths(store, [tmp_path])
    assert report.sessions == {_key(db)}
    assert not mark.exists()  # nothing ran
    held = " ".join(e.payload for e in store.events(_key(db)))
    assert "touch" in held  # the value is kept, undecoded


def test_the_name_a_run_gives_its_thread_titles_the_session(store, tmp_path):
    from langchain_core.messages import HumanMessage
    db = tmp_path / "named.sqlite"
    app, con = graph.compile_graph(db)
    config = {"configurable": {"thread_id": "t9"}, "metadata": {"title": "Ticket 4312: a.txt"}}
    app.invoke({"messages": [HumanMessage("what is in a.txt?")]}, config)
    con.close()
    importing.import_paths(store, [tmp_path])
    s = store.session(_key(db, "t9"))
    assert s.title == "Ticket 4312: a.txt"  # the application's name for the thread, before its first prompt
    assert s.meta["title_source"] == "thread_metadata"
