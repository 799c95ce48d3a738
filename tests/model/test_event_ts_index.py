"""Migration 0030: the events' time index without the session's id (#61: a quarter of the index's bytes), and what
reads events by time reading as before."""
from __future__ import annotations

import sqlite3

from sessionscope import open_store
from sessionscope.insight.spend import entries_query
from tests.model.test_payloads import _downgraded


def _indexes(path) -> dict[str, str]:
    with sqlite3.connect(path) as con:
        return dict(con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'event' "
                                "AND sql IS NOT NULL"))


def _filled(path) -> list[str]:
    store = open_store(path)
    sids = []
    for n in range(3):
        s = store.open_session(title=f"s{n}")
        for i in range(20):
            store.append(s.id, "message", role="assistant" if i % 2 else "user", text=f"line {i} of {n}",
                         tokens_in=10 * i, tokens_out=i)
        sids.append(s.id)
    store.close()
    return sids


def _read(path, sid: str) -> tuple:
    store = open_store(path)
    times = [e.ts for e in store.events(sid)]
    middle = times[len(times) // 2]
    since = [e.id for e in store.events(sid, since=middle)]
    with store.engine.connect() as conn:
        sql, params = entries_query(0, 2e9, kept=False)
        entries = sorted(conn.exec_driver_sql(sql, tuple(params)).all())
    store.close()
    return since, entries


def test_the_migration_swaps_the_index_and_back_and_reads_alike(tmp_path):
    path = tmp_path / "s.db"
    sid = _filled(path)[1]
    assert "ix_event_ts" in _indexes(path) and "ix_event_session_ts" not in _indexes(path)
    now = _read(path, sid)
    assert now[0] and now[1]

    _downgraded(path, "0029")
    assert "ix_event_session_ts" in _indexes(path) and "ix_event_ts" not in _indexes(path)
    store = open_store(path)  # (upgraded as it opens)
    store.close()
    assert set(_indexes(path)) >= {"ix_event_ts"} and "ix_event_session_ts" not in _indexes(path)
    assert _read(path, sid) == now


def test_every_sessions_replies_in_a_range_are_read_by_the_time_index(tmp_path):
    path = tmp_path / "s.db"
    _filled(path)
    sql, params = entries_query(1.0, 2e9)
    with sqlite3.connect(path) as con:
        plan = " ".join(r[3] for r in con.execute("EXPLAIN QUERY PLAN " + sql, params))
    assert "ix_event_ts" in plan
