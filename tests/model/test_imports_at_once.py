"""Imports beside each other on a real PostgreSQL server (tests/postgres.py): an import's batch holds the locks of the
sessions it writes and the store's lock shared (db.write_connection), so members importing their own sessions go at
once, two imports of one session take turns, and a race neither could see coming (two files holding the same lines)
is run again rather than failing."""

from __future__ import annotations

import json
import threading
import time

from sessionscope import open_store
from sessionscope.recall import search
from sessionscope.sources import scan
from sessionscope.sources.claude_code import import_paths
from sessionscope.store import db
from tests.model.test_postgres_store import _held_open, _in_thread, _snapshot
from tests.sources.claude_factory import Transcript


def _session(root, n: int, session_id: str | None = None) -> Transcript:
    t = Transcript(session_id, cwd=f"/work/app{n}")
    t.user(f"fix the flaky login test number {n}")
    call = t.assistant(tool=("Bash", {"command": "pytest tests/test_login.py"}))
    t.tool_result(call, "collected 12 items\n" + "tests/test_login.py::test_session_cookie FAILED\n" * 40)
    t.assistant(f"The cookie expires too early; patched it in attempt {n}.")
    t.write(root / "projects" / f"-work-app{n}")
    return t


def test_an_import_goes_on_beside_another_sessions_write_and_waits_for_its_own(pg_store, tmp_path):
    """With a write to session A held open, an import of session B is stored at once; one that brings A new lines
    waits until that write ends, then adds them after it."""
    a = _session(tmp_path / "a", 0)
    b = _session(tmp_path / "b", 1)
    import_paths(pg_store, [tmp_path / "a" / "projects"])
    holder, release = _held_open(pg_store, [a.session_id])
    started = time.monotonic()
    report = import_paths(pg_store, [tmp_path / "b" / "projects"])
    assert report.events_added > 0 and not report.problems
    assert time.monotonic() - started < 10  # (blocked, it would wait out the holder: 30 s)
    assert len(pg_store.branch(b.session_id)) == len(b.lines)

    a.user("and the logout test too")
    a.write(tmp_path / "a" / "projects" / "-work-app0")
    same, same_done = _in_thread(lambda: import_paths(pg_store, [tmp_path / "a" / "projects"]))
    time.sleep(1.0)
    assert not same_done  # A's own new line waits for the write open on A
    released = time.monotonic()
    release.set()
    holder.join(30)
    same.join(30)
    assert "error" not in same_done and same_done["at"] >= released
    assert same_done["report"].events_added == 1 and not same_done["report"].problems
    assert [e.text for e in pg_store.branch(a.session_id)][-1] == "and the logout test too"
    assert all(r.ok for r in pg_store.verify())


def test_two_files_holding_the_same_lines_imported_at_once_store_each_line_once(pg_store, tmp_path, monkeypatch):
    """A resumed copy (a file of another session that starts with the first one's lines, uuids and all) imported
    while the first file's batch is still open: its insert waits on the lines' ids, meets them taken when the first
    commits, and is run again, so it adds only its own lines, as one import after the other does."""
    first = _session(tmp_path / "first", 0)
    copy = tmp_path / "copy" / "projects" / "-work-app0"
    copy.mkdir(parents=True)
    resumed = Transcript(cwd="/work/app0")
    lines = [json.dumps(line | {"sessionId": resumed.session_id}) for line in first.lines]
    resumed.last, resumed.n = first.lines[-1]["uuid"], 100
    resumed.user("and now the logout test")
    resumed.assistant("Done: the logout test passes.")
    (copy / f"{resumed.session_id}.jsonl").write_text("\n".join(lines + [json.dumps(x) for x in resumed.lines]) + "\n")

    holding, release = threading.Event(), threading.Event()
    index_rows = search.index_rows

    def index_then_hold(conn, rows):  # the first import's batch, its rows inserted and not yet committed
        index_rows(conn, rows)
        if threading.current_thread().name == "first":
            holding.set()
            release.wait(30)
    monkeypatch.setattr(search, "index_rows", index_then_hold)
    # each file a transaction of its own, as a big file's batches are (small ones share one, and a shared one that
    # fails is stored file by file: that would hide whether the write itself is run again)
    monkeypatch.setattr(scan.SharedCommits, "takes", lambda *_: False)
    raced: list[str] = []
    sqlstate = db.sqlstate
    monkeypatch.setattr(db, "sqlstate", lambda exc: raced.append(sqlstate(exc)) or raced[-1])

    one, one_done = _in_thread(lambda: import_paths(pg_store, [tmp_path / "first" / "projects"]), "first")
    assert holding.wait(10)
    two, two_done = _in_thread(lambda: import_paths(pg_store, [tmp_path / "copy" / "projects"]))
    time.sleep(1.0)
    assert not two_done  # its insert waits on the uncommitted ids
    release.set()
    one.join(30)
    two.join(30)
    for done in (one_done, two_done):
        assert "error" not in done and not done["report"].problems, done
    assert "23505" in raced  # (the copy's first try met the ids taken, and was run again)
    assert two_done["report"].events_added == 2

    alone = open_store(tmp_path / "alone.db")
    for home in ("first", "copy"):
        import_paths(alone, [tmp_path / home / "projects"])
    assert _snapshot(pg_store) == _snapshot(alone)
    assert all(r.ok for r in pg_store.verify())
    alone.close()


def test_a_write_of_several_sessions_takes_their_locks_in_one_order(pg_store):
    """Two batches holding the same two sessions, named in opposite orders, never wait on each other in a ring: each
    takes the locks in the ids' order."""
    s1, s2 = pg_store.open_session().id, pg_store.open_session().id
    errors: list[BaseException] = []

    def write(order):
        try:
            for _ in range(20):
                pg_store.write_beside(order, lambda conn: time.sleep(0.005))
        except BaseException as exc:  # noqa: BLE001 — the test reports whatever escaped
            errors.append(exc)
    threads = [threading.Thread(target=write, args=(order,)) for order in ([s1, s2], [s2, s1])]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and not any(t.is_alive() for t in threads)


def test_a_batch_of_no_session_holds_the_whole_lock(pg_store):
    """A write naming no session (a file whose lines stored nothing but its offset, among others) is a store-wide one:
    the store's lock, exclusive."""
    s = pg_store.open_session().id
    holder, release = _held_open(pg_store, [])
    append, done = _in_thread(lambda: pg_store.append(s, "message", text="waits"))
    time.sleep(0.5)
    assert not done
    release.set()
    holder.join(30)
    append.join(30)
    assert "error" not in done


def test_members_of_a_team_store_import_their_own_homes_at_once(team_store, tmp_path, monkeypatch):
    """On a team store (each member under the row rules, keys through the owner's functions) too: Bob's import is
    stored while Alice's first batch is still open, and each reads their own sessions whole."""
    *_, stores = team_store
    alice, bob = stores["alice"], stores["bob"]
    theirs = {"alice": _session(tmp_path / "alice", 0), "bob": _session(tmp_path / "bob", 1)}
    holding, release = threading.Event(), threading.Event()
    index_rows = search.index_rows

    def index_then_hold(conn, rows):
        index_rows(conn, rows)
        if threading.current_thread().name == "alice":
            holding.set()
            release.wait(30)
    monkeypatch.setattr(search, "index_rows", index_then_hold)
    hers, done = _in_thread(lambda: import_paths(alice, [tmp_path / "alice" / "projects"]), "alice")
    assert holding.wait(10)
    started = time.monotonic()
    report = import_paths(bob, [tmp_path / "bob" / "projects"])
    assert report.events_added > 0 and not report.problems
    assert time.monotonic() - started < 10  # (blocked, it would wait out Alice's batch: 30 s)
    release.set()
    hers.join(30)
    assert "error" not in done and done["report"].events_added > 0 and not done["report"].problems
    for who, store in (("alice", alice), ("bob", bob)):
        alone = open_store(tmp_path / f"{who}.db")
        import_paths(alone, [tmp_path / who / "projects"])
        sid = theirs[who].session_id
        assert [(e.id, e.hash) for e in store.branch(sid)] == [(e.id, e.hash) for e in alone.branch(sid)]
        assert all(r.ok for r in store.verify())
        alone.close()
