"""The hash chain catches tampering; concurrent writers lose nothing."""

from __future__ import annotations

import multiprocessing as mp

import sqlalchemy as sa

from sessionscope import open_store


def _tamper(store, sql, **params):
    """Change the store behind its back, as someone with the database's password could."""
    with store.engine.begin() as conn:
        conn.execute(sa.text(sql), params)


def test_verify_names_the_altered_event(store):
    s = store.open_session()
    events = [store.append(s.id, "message", text=f"m{i}") for i in range(6)]
    other = store.open_session()
    store.append(other.id, "message", text="fine")
    assert all(r.ok for r in store.verify())
    text = "text_kept" if store.engine.dialect.name == "sqlite" else "text"  # (SQLite's `text` is generated: 0028)
    _tamper(store, f"UPDATE event SET {text} = 'forged' WHERE id = :id", id=events[3].id)
    reports = {r.session_id: r for r in store.verify()}
    assert reports[other.id].ok
    bad = reports[s.id]
    assert not bad.ok and bad.broken_event_id == events[3].id and bad.broken_seq == 4 and bad.checked == 3


def test_verify_catches_removed_events(store):
    s = store.open_session()
    events = [store.append(s.id, "message", text=f"m{i}") for i in range(4)]
    _tamper(store, "DELETE FROM event WHERE id = :id", id=events[1].id)
    r = store.verify(s.id)[0]
    assert r.broken_event_id == events[2].id and "missing" in r.reason
    _tamper(store, "DELETE FROM event WHERE id IN (:a, :b)", a=events[2].id, b=events[3].id)
    r = store.verify(s.id)[0]
    assert not r.ok and "removed from the end" in r.reason


def _append_worker(url, session_id, worker, n):
    store = open_store(url)
    for i in range(n):
        store.append(session_id, "message", role="user", text=f"worker {worker} event {i}")
    store.close()


def test_four_processes_append_concurrently(store):
    """Four processes append 250 events each to one session (on each engine: SQLite's write lock, the
    advisory lock on PostgreSQL)."""
    s = store.open_session(title="shared")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_append_worker, args=(str(store.url), s.id, w, 250)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    events = store.events(s.id)
    assert len(events) == 1000
    assert [e.seq for e in events] == list(range(1, 1001))
    texts = {e.text for e in events}
    assert texts == {f"worker {w} event {i}" for w in range(4) for i in range(250)}
    # each append hung under the head of its moment: one unbroken line
    assert all(b.parent_id == a.id for a, b in zip(events, events[1:]))
    report = store.verify(s.id)[0]
    assert report.ok and report.checked == 1000
    assert store.session(s.id).event_count == 1000


def test_a_cache_write_gives_way_to_a_busy_store(tmp_path):
    """Opening a session while another process imports must not wait for the import."""
    import sqlite3
    import time

    import sqlalchemy as sa

    from sessionscope import open_store
    from sessionscope.store.schema import OUTLINE_CACHE

    store = open_store(tmp_path / "busy.db")
    sid = store.open_session(title="t").id
    store.append(sid, "message", role="user", text="hello")
    other = sqlite3.connect(tmp_path / "busy.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        started = time.monotonic()
        assert [e.text for e in store.branch_view(sid)] == ["hello"]  # read, walked, not stored
        assert time.monotonic() - started < 5
    finally:
        other.execute("ROLLBACK")
        other.close()
    with store.reader() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(OUTLINE_CACHE)).scalar() == 0
    store.branch_view(sid)
    with store.reader() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(OUTLINE_CACHE)).scalar() == 1
