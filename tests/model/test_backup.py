"""Backups of the store (#29 item 17): made with SQLite's online backup API while the store is in use,
before a migration, once a day, on request; pruned to a few of each kind; restored after a check, the
store as it was kept first. Real SQLite files throughout."""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
import time
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from sessionscope import open_store
from sessionscope.errors import Refused
from sessionscope.safety import backup


def _filled(path, n=200):
    store = open_store(path)
    sid = store.open_session(title="kept").id
    for i in range(n):
        store.append(sid, "message", role="user", text=f"message {i}")
    return store, sid


def test_a_backup_is_a_whole_store_made_while_it_is_written(tmp_path):
    store, sid = _filled(tmp_path / "store.db")
    stop = threading.Event()

    def writer():
        while not stop.is_set():
            store.append(sid, "message", role="user", text="written during the backup")
    t = threading.Thread(target=writer)
    t.start()
    try:
        made = backup.make(tmp_path / "store.db")
    finally:
        stop.set()
        t.join()
    assert made.path.parent == tmp_path / "store-backups" and made.kind == "manual"
    assert stat.S_IMODE(os.stat(made.path).st_mode) == 0o600
    backup.check(made.path)
    with open_store(made.path) as copy:
        assert copy.session(sid).title == "kept" and all(r.ok for r in copy.verify())
    store.close()


def test_old_backups_are_pruned_per_kind_and_the_schedule_waits_a_day(tmp_path, monkeypatch):
    store, _ = _filled(tmp_path / "store.db", 5)
    store.close()
    monkeypatch.setitem(backup.KEEP, "manual", 2)
    for _ in range(3):
        backup.make(tmp_path / "store.db")
    assert [b.kind for b in backup.backups(tmp_path / "store.db")] == ["manual", "manual"]
    assert not backup.due(tmp_path / "store.db")
    assert backup.due(tmp_path / "store.db", now=time.time() + backup.SCHEDULE_S + 1)
    assert backup.scheduled(f"sqlite:///{tmp_path / 'store.db'}") is None  # not due yet
    with pytest.raises(Refused, match="pg_dump"):
        backup.store_file("postgresql+psycopg://u@h/db")


def test_a_migration_is_preceded_by_a_backup_of_the_store_as_it_was(tmp_path):
    from alembic import command
    from alembic.config import Config

    from sessionscope.store import db
    from sessionscope.store.revision import HEAD_REVISION
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).with_name("migrations")))
    previous = ScriptDirectory.from_config(cfg).get_revision(HEAD_REVISION).down_revision
    url = f"sqlite:///{tmp_path / 'store.db'}"
    engine = db.create_store_engine(url)
    with db.write_connection(engine) as conn:  # a store as the previous version of Sessionscope left it
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, previous)
    engine.dispose()
    open_store(tmp_path / "store.db").close()  # migrates to head
    [made] = backup.backups(tmp_path / "store.db")
    assert made.kind.startswith("before-")
    con = sqlite3.connect(made.path)
    assert con.execute("SELECT version_num FROM alembic_version").fetchone()[0] == previous
    con.close()
    with open_store(tmp_path / "store.db"):
        pass
    assert len(backup.backups(tmp_path / "store.db")) == 1  # a store at head is not copied again


def test_restore_checks_the_backup_and_keeps_the_store_as_it_was(tmp_path):
    store, sid = _filled(tmp_path / "store.db", 5)
    made = backup.make(tmp_path / "store.db")
    store.append(sid, "message", role="user", text="after the backup")
    store.delete(sid)
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(made.path.read_bytes()[:4096] + b"\xff" * 8192)
    with pytest.raises(Refused):
        backup.restore(tmp_path / "store.db", damaged)
    kept = backup.restore(tmp_path / "store.db", made.path)
    assert kept.kind == "before-restore"
    assert store.session(sid).event_count == 5  # the open store reads the restored data
    with open_store(kept.path) as before:
        assert before.count_sessions(include_archived=True) == 0  # the store as it was, deleted session and all
    store.close()


def test_a_backup_that_fails_leaves_no_partial_file_nor_journal(tmp_path, monkeypatch):
    """#58 item 19: a backup that failed on a full disk left a `.part-journal` that nothing cleaned."""
    from sessionscope.safety import backup
    store = open_store(tmp_path / "s.db")
    store.open_session(title="kept")
    store.close()
    folder = backup.folder_of(tmp_path / "s.db")

    def full(source, target, progress=None):
        Path(f"{target}-journal").write_bytes(b"half a journal")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(backup, "_copy", full)
    with pytest.raises(OSError):
        backup.make(tmp_path / "s.db")
    assert [p.name for p in folder.iterdir() if ".part" in p.name] == []
    (folder / ".s-20260101-000000-manual.db.part-journal").write_bytes(b"left by a crash")
    monkeypatch.undo()
    backup.make(tmp_path / "s.db")
    assert [p.name for p in folder.iterdir() if ".part" in p.name] == []
