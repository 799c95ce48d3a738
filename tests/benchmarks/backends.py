"""Benchmark steps for the store as the agents' own backend (#31): each beside the SDK's own store in the
same child process (tests.benchmarks.steps runs them)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def agents_backend(work: str, url: str | None = None, peer_url: str | None = None) -> dict:
    """The store as the OpenAI Agents SDK's Session beside the SDK's own SQLiteSession, on files in `work`
    (#31): items appended one a call and fifty a call, and `get_items(limit=10)` on a short and a long
    session (it must not grow with the session), while ours are still queued and again once they are
    events (with the time it takes to make them so). Each side's best of two."""
    import asyncio

    from agents import SQLiteSession

    from sessionscope.adapters.agents import SessionscopeSession

    def item(n: int) -> dict:
        return {"role": "user" if n % 2 == 0 else "assistant", "content": f"message {n}: " + "lorem ipsum " * 8}

    def measure(make, tag: str) -> dict:
        out = {}
        for attempt in range(2):
            one, many = make(f"{tag}-one-{attempt}"), make(f"{tag}-many-{attempt}")

            async def run():
                t = time.perf_counter()
                for n in range(300):
                    await one.add_items([item(n)])
                single = time.perf_counter() - t
                t = time.perf_counter()
                for n in range(0, 8000, 50):
                    await many.add_items([item(n + k) for k in range(50)])
                batch = time.perf_counter() - t
                reads = {}
                for name, session in (("short", one), ("long", many)):
                    t = time.perf_counter()
                    for _ in range(50):
                        await session.get_items(limit=10)
                    reads[name] = (time.perf_counter() - t) / 50
                t = time.perf_counter()
                for session in (one, many):  # ours: the 8,300 items made events, behind the adds
                    if hasattr(session, "flush"):
                        session.flush()
                reads["shown"] = time.perf_counter() - t
                t = time.perf_counter()
                for _ in range(50):
                    await many.get_items(limit=10)
                reads["long_shown"] = (time.perf_counter() - t) / 50  # the last ten, events now
                return single, batch, reads
            single, batch, reads = asyncio.run(run())
            best = {"single": single, "batch": batch, "read_short": reads["short"], "read_long": reads["long"],
                    "shown": reads["shown"], "read_long_shown": reads["long_shown"]}
            out = {k: min(v, out.get(k, v)) for k, v in best.items()}
        return out
    ours = measure(lambda sid: SessionscopeSession(sid, url or os.path.join(work, "agents-ours.db")), "ours")
    if peer_url is not None:  # on a server: the SDK's own store for one, SQLAlchemySession, on the same server
        from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
        theirs = measure(lambda sid: SQLAlchemySession.from_url(sid, url=peer_url, create_tables=True), "sdk")
    else:
        theirs = measure(lambda sid: SQLiteSession(sid, os.path.join(work, "agents-sdk.db")), "sdk")
    return {"ours": ours, "sdk": theirs}


def langgraph_backend(work: str, steps: str = "1000") -> dict:
    """The store as LangGraph's checkpointer beside langgraph's own SqliteSaver (#31): invokes of a one-node
    graph in one thread, each side on its own file; the mean of the first and the last hundred (it must not
    grow with the thread); then how long ours takes to show what its worker had not shown yet (`flush`)."""
    import sqlite3
    from typing import TypedDict

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    from sessionscope.adapters.langgraph import SessionscopeSaver

    class State(TypedDict):  # the same size at every step: what grows is the thread, not the state
        n: int
        note: str

    def work_node(state: State) -> dict:
        return {"n": state["n"] + 1, "note": f"step {state['n']}: " + "lorem ipsum " * 4}

    builder = StateGraph(State)
    builder.add_node("work", work_node)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    n = int(steps)

    def measure(saver) -> dict:
        graph = builder.compile(checkpointer=saver)
        times = []
        for i in range(n):
            config = {"configurable": {"thread_id": "t"}}
            t = time.perf_counter()
            graph.invoke({"n": i, "note": ""}, config)
            times.append(time.perf_counter() - t)
        k = min(100, n // 2)
        t = time.perf_counter()
        if hasattr(saver, "flush"):  # ours: the checkpoints not shown yet as events, shown now (behind the saves)
            saver.flush()
        return {"first": sum(times[:k]) / k, "last": sum(times[-k:]) / k, "mean": sum(times) / n,
                "shown": time.perf_counter() - t}
    theirs = measure(SqliteSaver(sqlite3.connect(os.path.join(work, "lg-sdk.db"), check_same_thread=False)))
    ours = measure(SessionscopeSaver(os.path.join(work, "lg-ours.db")))
    return {"ours": ours, "sdk": theirs, "steps": n}


def claude_backend(work: str, url: str | None = None, peer_url: str | None = None) -> dict:
    """The store as the Claude Agent SDK's SessionStore beside the plainest file-backed store (each append
    writes the lines to <project>/<session>.jsonl on a worker thread, as Claude Code's own transcript is
    written) (#31): Claude Code lines appended one a call and fifty a call, then how long ours takes to show
    them all as events behind the appends (`flush`). Each side's best of two."""
    import asyncio
    import uuid

    import orjson

    from sessionscope.adapters.claude import ClaudeSessionStore

    class JsonlStore:
        def __init__(self, root: str):
            self.root = root

        async def append(self, key, entries) -> None:
            def write():
                folder = os.path.join(self.root, key["project_key"])
                os.makedirs(folder, exist_ok=True)
                with open(os.path.join(folder, key["session_id"] + ".jsonl"), "ab") as fh:
                    fh.write(b"".join(orjson.dumps(e) + b"\n" for e in entries))
            await asyncio.to_thread(write)

    def lines(sid: str, count: int) -> list[dict]:
        out, parent = [], None
        for i in range(count):
            u = str(uuid.uuid4())
            msg = {"role": "user", "content": f"prompt {i}: " + "lorem ipsum " * 8} if i % 2 == 0 else {
                "id": f"msg_{i}", "model": "claude-sonnet-4-5", "role": "assistant", "usage": {
                    "input_tokens": 10, "output_tokens": 5}, "content": [{"type": "text", "text": f"reply {i} " * 8}]}
            out.append({"type": msg["role"], "uuid": u, "parentUuid": parent, "sessionId": sid, "cwd": "/work/app",
                        "timestamp": "2026-11-24T10:00:00.000Z", "message": msg, "version": "2.1.0"})
            parent = u
        return out

    def measure(store) -> dict:
        best: dict = {}
        for _ in range(2):
            one, many = str(uuid.uuid4()), str(uuid.uuid4())
            single_lines, batch_lines = lines(one, 300), lines(many, 8000)

            async def run():
                t = time.perf_counter()
                for line in single_lines:
                    await store.append({"project_key": "p", "session_id": one}, [line])
                single = time.perf_counter() - t
                t = time.perf_counter()
                for i in range(0, 8000, 50):
                    await store.append({"project_key": "p", "session_id": many}, batch_lines[i:i + 50])
                return single, time.perf_counter() - t
            single, batch = asyncio.run(run())
            t = time.perf_counter()
            if hasattr(store, "flush"):  # ours: the 8,300 lines' events, built behind the appends
                store.flush()
            shown = time.perf_counter() - t
            got = {"single": single, "batch": batch, "shown": shown}
            best = {k: min(v, best.get(k, v)) for k, v in got.items()}
        return best
    class TableStore:
        """The plainest store on a server: each append COPYs its lines into one table, in a transaction."""

        def __init__(self, conninfo: str):
            import psycopg
            self.conn = psycopg.connect(conninfo)
            self.conn.execute("CREATE TABLE IF NOT EXISTS lines (id bigserial PRIMARY KEY, project_key text, "
                              "session_id text, entry text)")
            self.conn.commit()

        async def append(self, key, entries) -> None:
            def write():
                with self.conn.transaction(), self.conn.cursor() as cur, \
                        cur.copy("COPY lines (project_key, session_id, entry) FROM STDIN") as copy:
                    for e in entries:
                        copy.write_row((key["project_key"], key["session_id"], orjson.dumps(e).decode()))
            await asyncio.to_thread(write)

    theirs = measure(TableStore(peer_url) if peer_url else JsonlStore(os.path.join(work, "claude-jsonl")))
    ours = measure(ClaudeSessionStore(url or os.path.join(work, "claude-ours.db")))
    return {"ours": ours, "sdk": theirs}


def backends_on_postgres(work: str, appends: str = "200") -> dict:
    """The Agents and Claude rows with the store on a throwaway PostgreSQL server (tests/postgres.py) (#31: "on
    PostgreSQL, the same rows"): the Agents SDK's beside its own SQLAlchemySession on the same server, the
    Claude SDK's (which ships no store) beside the plainest one on the same server, as on SQLite beside a
    JSONL file: each append's lines COPYed into one table. And 8 agents appending at once (`appends` events each)
    beside one alone."""
    from tests import postgres as pg

    server = pg.start()
    if isinstance(server, str):
        return {"skipped": server}
    try:
        peer = server.fresh_database().replace("postgresql://", "postgresql+psycopg://", 1)  # (async SQLAlchemy)
        return {"agents": agents_backend(work, server.fresh_database(migrated=True), peer),
                "claude": claude_backend(work, server.fresh_database(migrated=True),
                                         server.fresh_database().replace("postgresql+psycopg://", "postgresql://", 1)),
                "at_once": appending_at_once(server.fresh_database(migrated=True), int(appends))}
    finally:
        server.stop()


def _appender(args) -> tuple[float, float]:
    """One agent's process: `n` appends to a session of its own, one a transaction, once every writer is ready
    (`ready`, a barrier: a session's opening takes the store's whole lock); (first's start, last's end)."""
    url, n, ready = args
    from sessionscope import open_store
    store = open_store(url)
    sid = store.open_session(title="at once").id
    store.append(sid, "message", role="user", text="warm")  # (its connection open, its statements prepared)
    ready.wait()
    t = time.time()  # (wall clock, compared across processes)
    for i in range(n):
        store.append(sid, "message", role="user" if i % 2 else "assistant", text=f"line {i} of a busy day")
    end = time.time()
    store.close()
    return t, end


def appending_at_once(url: str, n: int, writers: int = 8) -> dict:
    """`writers` processes appending `n` events each to sessions of their own at once (each append holds its
    session's lock and the store's shared), beside one process appending as many alone: events a second, each
    counted from the first append to the last."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager, ctx.Pool(writers) as pool:
        alone = pool.map(_appender, [(url, n * writers, manager.Barrier(1))])[0]
        together = pool.map(_appender, [(url, n, manager.Barrier(writers))] * writers)
    span = max(e for _, e in together) - min(t for t, _ in together)
    return {"events": n * writers, "writers": writers, "together": n * writers / span,
            "alone": n * writers / (alone[1] - alone[0])}


def members_importing(server, home: str, members: int = 2) -> dict:
    """`members` people importing homes of their own into one PostgreSQL store at once (the home's project folders
    dealt out by size, a `sessionscope import` process each), beside the same imports one after another into a
    fresh store, best of 2 each: an import's batch holds its sessions' locks and the store's lock shared, so neither
    waits for the other's (db.write_connection)."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    folders = sorted((p for p in Path(home).iterdir() if p.is_dir()), key=lambda p: -sum(
        f.stat().st_size for f in p.rglob("*.jsonl")))
    shares: list[list[str]] = [[] for _ in range(members)]
    sizes = [0] * members
    for folder in folders:  # (the biggest first, each to the member with least so far)
        least = sizes.index(min(sizes))
        shares[least].append(str(folder))
        sizes[least] += sum(f.stat().st_size for f in folder.rglob("*.jsonl"))
    shares = [share for share in shares if share]  # (a home of one folder: one member)

    def run(together: bool) -> float:
        url = server.fresh_database(migrated=True)
        argv = [[sys.executable, "-m", "sessionscope.cli", "--store", url, "import", *share] for share in shares]
        t = time.perf_counter()
        if together:
            runs = [subprocess.Popen(a, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for a in argv]
            for r in runs:
                _, err = r.communicate()
                assert r.returncode == 0, err[-2000:]
        else:
            for a in argv:
                subprocess.run(a, cwd=repo, capture_output=True, check=True)
        return time.perf_counter() - t
    alone = min(run(False) for _ in range(2))
    together = min(run(True) for _ in range(2))
    return {"members": len(shares), "mb": sum(sizes) / 1e6, "together": together, "alone": alone}
