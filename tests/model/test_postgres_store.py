"""The store on a real PostgreSQL server (tests/postgres.py): the same answers as SQLite for the same
import, PostgreSQL's own text search, and writers on several processes at once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
import sqlalchemy as sa

from sessionscope import open_store
from sessionscope.history.read_models import MARK_END, MARK_START
from sessionscope.sources.claude_code import import_paths
from sessionscope.store import db, numbered
from sessionscope.store.schema import EVENT
from tests.conftest import REPO
from tests.sources.claude_factory import Transcript


def _home(root, sessions: int = 3):
    for n in range(sessions):
        t = Transcript(cwd=f"/work/app{n}")
        t.user(f"fix the flaky login test number {n}")
        call = t.assistant(tool=("Bash", {"command": "pytest tests/test_login.py"}))
        t.tool_result(call, "collected 12 items\n" + "tests/test_login.py::test_session_cookie FAILED\n" * 40)
        t.assistant(f"The cookie expires too early; patched it in attempt {n}.")
        t.user("thanks, ship it")
        t.write(root / "projects" / f"-work-app{n}")
    return root / "projects"


def _snapshot(store):
    with store.reader() as conn:  # through the table's types: SQLite keeps big payloads compressed
        events = conn.execute(sa.select(EVENT.c.id, EVENT.c.session_id, EVENT.c.seq, EVENT.c.hash, EVENT.c.payload)).all()
    return [s.id for s in store.sessions()], sorted(tuple(e) for e in events)


def test_postgresql_store_answers_as_sqlite_does(pg_store, tmp_path):
    home = _home(tmp_path)
    lite = open_store(tmp_path / "lite.db")
    for store in (pg_store, lite):
        report = import_paths(store, [home])
        assert report.events_added > 0 and not report.problems
    assert _snapshot(pg_store) == _snapshot(lite)  # same sessions, ids, order, hashes, payloads
    sid = pg_store.sessions()[0].id
    assert [e.id for e in pg_store.branch(sid)] == [e.id for e in lite.branch(sid)]
    assert pg_store.facts_at(pg_store.session(sid).head_event_id) == lite.facts_at(lite.session(sid).head_event_id)
    assert all(r.ok for r in pg_store.verify())
    with pg_store.reader() as conn:  # a small import leaves the planner's statistics to autovacuum
        assert conn.execute(sa.text("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'event'")).scalar() is None

    # text search: every word must match, newest first, a prefix, one session, snippets marked
    hits = pg_store.search("flaky login")
    assert len(hits) == 3 and [h.ts for h in hits] == sorted((h.ts for h in hits), reverse=True)
    assert f"{MARK_START}flaky{MARK_END}" in hits[0].snippet and f"{MARK_START}login{MARK_END}" in hits[0].snippet
    assert {h.event_id for h in hits} == {h.event_id for h in lite.search("flaky login")}
    assert {h.event_id for h in pg_store.search("cook*")} == {h.event_id for h in lite.search("cook*")}
    assert len(pg_store.search("cookie", session_id=sid)) == 2  # its tool result and its reply
    assert pg_store.search("test_session_cookie")  # tool output is searchable too
    assert pg_store.search("flaky & | ! :*") and not pg_store.search("zebracorn")  # never tsquery syntax
    lite.close()


def test_writers_on_several_machines_neither_lose_nor_double_an_event(postgres_server, tmp_path):
    """Four processes import into one PostgreSQL store at once: two the same home, two homes of their own,
as three people."""
    url = postgres_server.fresh_database()
    shared, own_a, own_b = _home(tmp_path / "shared", 4), _home(tmp_path / "a", 2), _home(tmp_path / "b", 2)
    cli = [sys.executable, "-m", "sessionscope.cli", "--store", url, "import"]
    runs = [subprocess.Popen([*cli, str(home)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "LOGNAME": user})
            for home, user in ((shared, "carol"), (shared, "carol"), (own_a, "alice"), (own_b, "bob"))]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
    store = open_store(url)
    alone = open_store(tmp_path / "alone.db")
    for home in (shared, own_a, own_b):
        import_paths(alone, [home])
    assert _snapshot(store) == _snapshot(alone)  # every event once, each chain as one import makes it
    assert all(r.ok for r in store.verify())
    # each session says who brought it in, and the list filters by person
    host = socket.gethostname()
    mine = {user: {s.id for s in store.sessions(person=f"{user}@{host}")} for user in ("alice", "bob", "carol")}
    assert [len(mine[u]) for u in ("alice", "bob", "carol")] == [2, 2, 4]
    assert store.session_counts()["by_person"] == {f"alice@{host}": 2, f"bob@{host}": 2, f"carol@{host}": 4}
    store.close()
    alone.close()


@pytest.mark.parametrize("command", [["list"], ["search", "flaky"], ["verify"]])
def test_the_command_line_takes_a_postgresql_url(postgres_server, tmp_path, command):
    url = postgres_server.fresh_database()
    home = _home(tmp_path, 1)
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", url, "import", str(home)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", url, *command],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert {"list": "fix the flaky login", "search": "flaky", "verify": "intact"}[command[0]] in run.stdout


def test_a_big_import_refreshes_the_planner_statistics(pg_store, tmp_path, monkeypatch):
    """Without statistics a search for a rare word walks the newest rows instead of asking the index."""
    from sessionscope.store import db
    monkeypatch.setattr(db, "ANALYZE_AFTER", 10)
    import_paths(pg_store, [_home(tmp_path, 3)])
    with pg_store.reader() as conn:
        analysed = conn.execute(sa.text("SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL")).scalars()
        assert {"event", "session"} <= set(analysed)


def test_actions_and_exports_on_postgresql(pg_store, tmp_path):
    """Fork, append, archive, export and delete act on a PostgreSQL store as on SQLite."""
    from sessionscope.export import jsonl as jsonl_export
    from sessionscope.export.core import ExportRequest
    from sessionscope.ops import export

    import_paths(pg_store, [_home(tmp_path, 2)])
    s = pg_store.sessions()[0]
    first = pg_store.branch(s.id)[0]
    fork = pg_store.fork(s.id, first.id, title="try another way").session
    pg_store.append(fork.id, "message", role="user", text="what if we mock the clock")
    assert [e.id for e in pg_store.branch(fork.id)][:1] == [first.id]  # the shared prefix, not copied
    assert pg_store.search("mock clock")[0].session_id == fork.id
    assert pg_store.archive(fork.id).session.status == "archived"
    export(pg_store, ExportRequest("html", (s.id,)), tmp_path / "s.html")
    assert "flaky login" in (tmp_path / "s.html").read_text()
    export(pg_store, ExportRequest("jsonl", (s.id,)), tmp_path / "s.jsonl")
    lite = open_store(tmp_path / "lite.db")
    jsonl_export.import_file(lite, tmp_path / "s.jsonl")  # a team store's session taken home
    assert [e.hash for e in lite.branch(s.id)] == [e.hash for e in pg_store.branch(s.id)]
    assert lite.session(s.id).imported_by == s.imported_by  # who first brought it in travels with it
    lite.close()
    pg_store.delete(fork.id)  # (a session others fork from is refused first)
    pg_store.delete(s.id)
    assert s.id not in {x.id for x in pg_store.sessions(include_archived=True)}
    assert not pg_store.search("flaky login", session_id=s.id)
    assert all(r.ok for r in pg_store.verify())


def test_a_cache_write_takes_the_write_lock_or_gives_way(pg_store):
    """Cache writes (the outline a reader walked) take the writers' lock too: two windows' workers
    storing the same session's outline at once collided on its key before. While an import holds
    the lock, a cache write gives way at once instead of waiting it out."""
    import threading

    from sessionscope.history import outline
    from sessionscope.store import db

    s = pg_store.open_session()
    for i in range(5):
        pg_store.append(s.id, "message", text=f"m{i}")
    with pg_store.reader() as conn:
        _entries, walked = outline.head_entries(conn, s.id)
    errors: list[BaseException] = []

    def store_it():
        try:
            for _ in range(20):
                db.try_write(pg_store.engine, outline.store_entries, s.id, *walked, wait_s=5)
        except BaseException as exc:  # noqa: BLE001 - the test reports whatever escaped
            errors.append(exc)
    threads = [threading.Thread(target=store_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with pg_store.reader() as conn:
        assert outline.cached_entries(conn, s.id, walked[0], walked[1]) is not None

    with db.write_connection(pg_store.engine):  # an import holding the lock
        assert db.try_write(pg_store.engine, outline.store_entries, s.id, *walked, wait_s=0.05) is None


def test_appends_to_other_sessions_go_at_once_and_a_store_wide_writer_waits_for_them(pg_store):
    """An append holds its session's lock and the store's lock shared (db.write_connection): an append to
    another session goes on while it is open; one to the same session, and a store-wide write (a rename, an
    import), wait until it ends."""
    import time

    a, b = pg_store.open_session(title="a").id, pg_store.open_session(title="b").id
    pg_store.append(a, "message", text="a0")
    holder, release = _held_open(pg_store, [a])
    started = time.monotonic()
    pg_store.append(b, "message", text="b0")  # another session's: at once
    assert time.monotonic() - started < 10  # (blocked, it would wait out the holder: 30 s)
    same, same_done = _in_thread(lambda: pg_store.append(a, "message", text="a1"))
    wide, wide_done = _in_thread(lambda: pg_store.rename(b, "renamed"))
    time.sleep(1.0)
    assert not same_done and not wide_done  # both wait for the open append
    released = time.monotonic()
    release.set()
    for t in (holder, same, wide):
        t.join(30)
    assert same_done["at"] >= released and wide_done["at"] >= released
    assert [e.text for e in pg_store.events(a)] == ["a0", "a1"]
    assert pg_store.session(b).title == "renamed"


def _in_thread(work, name: str | None = None) -> tuple[threading.Thread, dict]:
    done: dict = {}

    def run():
        try:
            done["report"] = work()
        except BaseException as exc:  # noqa: BLE001 — the test reports whatever escaped
            done["error"] = exc
        done["at"] = time.monotonic()
    t = threading.Thread(target=run, name=name)
    t.start()
    return t, done


def _held_open(store, names: list[str]) -> tuple[threading.Thread, threading.Event]:
    """A write naming `names` (no name: the store's whole lock) held open on a thread of its own until the event
    returned is set (or 30 s), its locks taken before this returns."""
    holding, release = threading.Event(), threading.Event()

    def hold():
        with db.write_connection(store.engine, names) as conn:
            conn.exec_driver_sql("SELECT 1")
            holding.set()
            release.wait(30)
    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(10)
    return holder, release


def _append_to_own_and_shared(url, own, shared, n):
    store = open_store(url)
    for i in range(n):
        store.append(own, "message", role="user", text=f"own {i}")
        store.append(shared, "message", role="user", text=f"{own} shared {i}")
    store.close()


def test_processes_appending_to_their_sessions_and_one_they_share_keep_every_chain_whole(pg_store):
    """Four processes, each appending to a session of its own and, between, to one they all share, at once: every
    session's seqs run unbroken, each event hangs under the one before, and every chain verifies."""
    import multiprocessing as mp

    shared = pg_store.open_session(title="shared").id
    own = [pg_store.open_session(title=f"own {w}").id for w in range(4)]
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_append_to_own_and_shared, args=(str(pg_store.url), sid, shared, 60)) for sid in own]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    for sid, count in [(shared, 240), *[(s, 60) for s in own]]:
        events = pg_store.events(sid)
        assert [e.seq for e in events] == list(range(1, count + 1))
        assert all(y.parent_id == x.id for x, y in zip(events, events[1:]))
        assert pg_store.verify(sid)[0].ok
    assert {e.text for e in pg_store.events(shared)} == {f"{s} shared {i}" for s in own for i in range(60)}



@contextlib.contextmanager
def _append_held_open(store, session_id: str):
    """An append to `session_id` written in a thread and held open (not committed) while the block runs; yields
    its key."""
    from sessionscope.store import db
    from sessionscope.store.append import append_event

    took, release, late = threading.Event(), threading.Event(), {}

    def hold():
        with db.write_connection(store.engine, session_id) as conn:
            append_event(conn, session_id, kind="message", text="late")
            late["pk"] = conn.exec_driver_sql("SELECT max(pk) FROM event").scalar()
            took.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert took.wait(10)
        yield late["pk"]
    finally:
        release.set()
        holder.join(30)


def _mark_stops_below_an_append_in_flight(held, other, reader):
    """`held` appends to a session of its own in a transaction kept open, `other` appends to another and commits
    (a later key, stored first); `reader`'s change mark and embedding rows must stop below the open one's key."""
    from sessionscope.recall import semantic
    from sessionscope.store import settled

    a, b = held.open_session(title="a").id, other.open_session(title="b").id
    held.append(a, "message", text="before")
    before = reader.change_mark()
    with _append_held_open(held, a) as late:
        other.append(b, "message", text="committed first")  # a later key, committed while the first is open
        with other.reader() as conn:
            assert conn.exec_driver_sql("SELECT max(pk) FROM event").scalar() > late  # (the race)
        with reader.reader() as conn:
            rows = conn.execute(semantic._event_rows(semantic.Config(enabled=True), 0, None, None,
                                                     settled.settled_key(conn))).all()
        mark = reader.change_mark()
        assert before[0] <= mark[0] < late
        assert all(pk < late for pk, *_ in rows)
    assert reader.change_mark()[0] >= late + 1
    return mark, a, b


def test_the_change_mark_stops_below_an_append_still_in_flight(pg_store):
    """Appends at once commit their keys out of order: one holding key 100 open while another commits 101. The
    change mark (and the embedding job, which also reads 'every event after the largest key seen') must stop
    below 100 until it commits, or the window and the job would pass over it for good (sessionscope.store.settled)."""
    mark, a, b = _mark_stops_below_an_append_in_flight(pg_store, pg_store, pg_store)
    assert pg_store.changes_since(mark).session_ids == {a, b}


def test_a_members_change_mark_stops_below_another_members_append_in_flight(team_store):
    """The same on a team store, where members read the key sequence through the owner's function: Bob's mark
    stops below the key of Alice's append still open, though he stored a later one."""
    *_, stores = team_store
    mark, _, b = _mark_stops_below_an_append_in_flight(stores["alice"], stores["bob"], stores["bob"])
    assert b in stores["bob"].changes_since(mark).session_ids


def test_an_append_open_in_another_database_of_the_server_does_not_hold_this_stores_mark(pg_store, postgres_server):
    """Advisory locks are per database, but `pg_locks` lists the whole server's: the settled key reads this
    database's marks only (a team server may hold several stores; the tests' server holds many at once)."""
    other = open_store(postgres_server.fresh_database())
    try:
        theirs = other.open_session(title="elsewhere").id
        ours = pg_store.open_session(title="here").id
        for _ in range(3):
            pg_store.append(ours, "message", text="ours")
        with _append_held_open(other, theirs):
            with pg_store.reader() as conn:
                stored = conn.exec_driver_sql("SELECT max(pk) FROM event").scalar()
            assert pg_store.change_mark()[0] == stored
    finally:
        other.close()
        postgres_server.drop(other.url)


def test_a_cache_write_goes_on_beside_appends_in_flight(pg_store):
    """A cache's write holds the store's lock shared (and the caches' own): with agents appending (an append held
    open here, to another session and to the session itself) the outline a reader walked is stored at once; with
    the store's whole lock every cache write gave way while any append was open."""
    from sessionscope.history import outline
    from sessionscope.store import db

    s, other = pg_store.open_session().id, pg_store.open_session().id
    for i in range(5):
        pg_store.append(s, "message", text=f"m{i}")
    with pg_store.reader() as conn:
        _entries, walked = outline.head_entries(conn, s)

    def stored() -> bool:
        with pg_store.reader() as conn:
            return outline.cached_entries(conn, s, walked[0], walked[1]) is not None
    for busy in (other, s):
        pg_store.write(lambda conn: conn.exec_driver_sql("DELETE FROM outline_cache"))
        with _append_held_open(pg_store, busy):
            db.try_write(pg_store.engine, outline.store_entries, s, *walked, wait_s=0.5)
            assert stored(), busy


@pytest.mark.parametrize("who", ["owner", "member"])
def test_numbered_rows_of_every_batch_size_keep_their_order_and_move_the_key_past_them(pg_store, team_store, who):
    """A few rows go as one INSERT (numbered.VALUES_ROWS), more by COPY; each moves the key's sequence past its rows (the
    next append numbers from it), for the owner and for a member under the row rules."""
    claude = pytest.importorskip("sessionscope.adapters.claude")
    pytest.importorskip("claude_agent_sdk")
    store = pg_store if who == "owner" else team_store[3]["alice"]
    backend = claude.ClaudeSessionStore(store)
    t = Transcript()
    for n in range(2 * numbered.VALUES_ROWS + 4):
        t.user(f"prompt {n}")
    key = {"project_key": "p", "session_id": t.session_id}
    sizes, at = [1, numbered.VALUES_ROWS, numbered.VALUES_ROWS + 1, 1, 1], 0
    for size in sizes:
        asyncio.run(backend.append(key, t.lines[at:at + size]))
        at += size
    assert [line["uuid"] for line in asyncio.run(backend.load(key))] == [line["uuid"] for line in t.lines[:at]]
    backend.flush()
    assert [e.text for e in store.events(t.session_id) if e.kind == "message"] == [f"prompt {n}" for n in range(at)]
    backend.close()


def test_a_pooled_connection_whose_server_end_was_ended_is_not_handed_out(pg_store, postgres_server):
    """A connection back in the pool a moment ago goes out again unasked (db.PING_AFTER_S), unless its backend was
    ended since (an admin, a restart): the next read and write start on a new one."""
    import psycopg
    sid = pg_store.open_session(title="before").id
    pg_store.append(sid, "message", role="user", text="one")
    database = pg_store.url.rsplit("/", 1)[1]
    with psycopg.connect(host="127.0.0.1", port=postgres_server.port, user="postgres", dbname=database,
                         autocommit=True) as admin:
        ended = admin.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = %s "
                              "AND pid <> pg_backend_pid()", (database,)).fetchall()
    assert ended and all(ok for (ok,) in ended)
    assert [e.text for e in pg_store.events(sid)] == ["one"]  # a read
    pg_store.append(sid, "message", role="user", text="two")  # a write
    assert [e.text for e in pg_store.events(sid)] == ["one", "two"]
