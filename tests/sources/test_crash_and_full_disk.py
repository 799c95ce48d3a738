"""Crashes and a full disk in the middle of an import (#18 part 4): the store stays consistent and the
next import makes it equal to a clean one.

- kill -9 of `sessionscope import` at 20 random moments of one generated Claude Code home (each run
  resumes where the last one's committed batches stopped), `verify` and SQLite's integrity check after
  every kill, then a last import: the same sessions, events and hashes as one clean import;
- a disk that fills mid-import (SQLite's `max_page_count` on every connection): one clear error, a
  consistent store, and once there is room the next import completes, equal to a clean one.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa

from tests.benchmarks.generate import generate

KILLS = 20


def _home(tmp_path, size: int = 3_000_000):
    home = tmp_path / "home" / "projects"
    generate(home, size, seed=11)
    return home


def _content(store) -> tuple:
    """What must be equal: sessions with their heads and chain ends, every event with its hash, search."""
    with store.reader() as conn:
        sessions = conn.exec_driver_sql(
            "SELECT id, event_count, head_event_id, last_hash, last_seq FROM session ORDER BY id").fetchall()
        events = conn.exec_driver_sql("SELECT id, session_id, parent_id, seq, kind, hash FROM event ORDER BY id"
                                      ).fetchall()
    found = sorted(h.event_id for h in store.search("the", limit=100_000))
    return sessions, events, found


def _consistent(store) -> None:
    assert all(r.ok for r in store.verify()), [r for r in store.verify() if not r.ok][:3]
    with store.reader() as conn:
        assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"


def _import_process(store_path, home) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sessionscope.cli", "--store", str(store_path), "import",
                             str(home)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


@pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")
def test_kill_nine_at_twenty_points_then_a_reimport_equals_a_clean_one(tmp_path):
    from sessionscope import open_store
    home = _home(tmp_path)
    clean_path = tmp_path / "clean.db"
    started = time.monotonic()
    proc = _import_process(clean_path, home)
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    whole = time.monotonic() - started
    rng = random.Random(18)
    crashed = tmp_path / "crashed.db"
    killed = 0
    for _ in range(KILLS):
        proc = _import_process(crashed, home)
        time.sleep(rng.uniform(0.05, whole))
        died = proc.poll() is None
        if died:
            os.killpg(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait(timeout=60)
        if crashed.exists():
            with open_store(crashed) as s:
                _consistent(s)
        if not died:  # it finished what the others left: start over, so the next kill lands mid-way again
            for f in tmp_path.glob("crashed.db*"):
                f.unlink()
    assert killed >= KILLS // 2  # most runs died mid-way
    proc = _import_process(crashed, home)
    assert proc.wait(timeout=300) == 0, proc.stderr.read()
    with open_store(crashed) as after, open_store(clean_path) as clean:
        _consistent(after)
        assert _content(after) == _content(clean)


def test_a_disk_that_fills_mid_import_is_one_clear_error_and_the_next_import_completes(tmp_path, monkeypatch):
    from sessionscope import open_store
    from sessionscope.errors import StoreUnavailable
    from sessionscope.sources.claude_code.importer import SharedCommits
    from sessionscope.sources.importing import import_paths
    # small files share a commit up to 4 MB, which would be this whole home: a commit every few files
    # here, so the disk fills after some of them are in
    monkeypatch.setattr(SharedCommits, "SHARE_BYTES", 64 << 10)
    home = _home(tmp_path)
    with open_store(tmp_path / "clean.db") as clean:
        import_paths(clean, [home])
        expected = _content(clean)
        with clean.reader() as conn:
            needed = conn.exec_driver_sql("PRAGMA page_count").scalar()
    store = open_store(tmp_path / "full.db")
    with store.reader() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
    # room for most of what the import needs (the newest file, read first, is two thirds of this home)
    limit = pages + (needed - pages) * 4 // 5

    def full_disk(dbapi_conn, _record):
        dbapi_conn.execute(f"PRAGMA max_page_count={limit}")
    sa.event.listen(store.engine, "connect", full_disk)
    store.engine.dispose()  # every connection from now on has the limit
    with pytest.raises(StoreUnavailable) as failed:
        import_paths(store, [home])
    assert "full" in str(failed.value) and "free some disk space" in str(failed.value)
    _consistent(store)
    with store.reader() as conn:
        assert 0 < conn.exec_driver_sql("SELECT count(*) FROM event").scalar() < len(expected[1])  # a part came in
    sa.event.remove(store.engine, "connect", full_disk)
    store.engine.dispose()  # room again
    report = import_paths(store, [home])
    assert report.events_added > 0 and not report.cancelled
    _consistent(store)
    assert _content(store) == expected
    store.close()
