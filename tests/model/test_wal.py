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


def test_the_window_reads_with_a_small_page_cache_and_an_import_with_a_large_one(tmp_path, monkeypatch):
    """Each pooled connection fills its own page cache as it reads: the window's (its big imports run in a process
    of their own) keep a small one, #61's memory; a process that imports keeps the large one its speed needs."""
    from sessionscope import open_store
    from sessionscope.store import db
    monkeypatch.setattr(db, "cache_kib", db.IMPORT_CACHE_KIB)  # as a process starts (a window's test ran here maybe)
    with open_store(tmp_path / "s.db") as store, store.reader() as conn:
        assert conn.exec_driver_sql("PRAGMA cache_size").scalar() == -db.IMPORT_CACHE_KIB
    db.reading_mostly()
    with open_store(tmp_path / "s.db") as store, store.reader() as conn:
        assert conn.exec_driver_sql("PRAGMA cache_size").scalar() == -db.READING_CACHE_KIB < -1024
