"""The WAL beside a SQLite store is cut back after a checkpoint (#61): SQLite reuses the file and never shrinks it,
so a big import left hundreds of MB beside the store for as long as the window ran."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.sqlite_only


def test_the_wal_is_cut_back_past_a_checkpoint(tmp_path, monkeypatch):
    from sessionscope import open_store
    from sessionscope.store import db
    monkeypatch.setattr(db, "WAL_LIMIT", 256 * 1024)  # (a small limit, so a small write shows it)
    store = open_store(tmp_path / "s.db")
    sid = store.open_session(title="big").id
    with store.reader() as conn:  # a reader holding its snapshot: no checkpoint gets past it while it reads
        conn.exec_driver_sql("SELECT count(*) FROM session").all()
        for i in range(300):
            store.append(sid, "message", role="assistant", text=f"{i} " + "x" * 8_000)
    wal = tmp_path / "s.db-wal"
    grown = os.path.getsize(wal)
    assert grown > 2 * 1024 * 1024
    with store.engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").all()
    store.append(sid, "message", role="user", text="one more")  # the next write past the checkpoint cuts the file
    assert os.path.getsize(wal) <= 256 * 1024 < grown
    store.close()



def test_each_connection_keeps_a_small_page_cache(tmp_path):
    """Each pooled connection fills its own page cache as it reads: a small one each (#61's memory; an import with
    its WAL checkpointed far apart is as fast with it, the benchmark's measure)."""
    from sessionscope import open_store
    from sessionscope.store import db
    with open_store(tmp_path / "s.db") as store, store.reader() as a, store.reader() as b:
        assert [c.exec_driver_sql("PRAGMA cache_size").scalar() for c in (a, b)] == [-db.CACHE_KIB] * 2
    assert db.CACHE_KIB <= 8 * 1024
