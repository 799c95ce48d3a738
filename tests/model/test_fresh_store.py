"""A new SQLite store made from head's snapshot (sessionscope.store.fresh) is the store Alembic's migrations make."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

from sessionscope import open_store
from sessionscope.store import fresh, migrating, payloads
from sessionscope.store.revision import HEAD_REVISION


def _contents(path) -> dict:
    """Everything a store file holds but where its pages lie: the schema, each table's rows (FTS5's shadow tables
    included), and the pragmas a file keeps."""
    conn = sqlite3.connect(path)
    payloads.register_sql(conn)
    try:
        schema = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
        tables = [row[1] for row in conn.execute("PRAGMA table_list") if row[0] == "main" and row[2] in ("table", "shadow")]
        rows = {t: sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))) for t in tables
                if t != "sqlite_schema"}
        pragmas = {p: conn.execute(f"PRAGMA {p}").fetchone()[0]
                   for p in ("user_version", "application_id", "auto_vacuum", "page_size", "encoding", "journal_mode")}
    finally:
        conn.close()
    return {"schema": schema, "rows": rows, "pragmas": pragmas}


def test_the_snapshot_is_heads():
    assert fresh.statements() is not None, (
        f"{fresh.SNAPSHOT.name} is not revision {HEAD_REVISION}'s: run `python -m sessionscope.store.migrating` after "
        "adding a migration")


def test_a_store_made_from_the_snapshot_is_the_one_alembic_makes(tmp_path):
    by_alembic, by_snapshot = tmp_path / "alembic.db", tmp_path / "snapshot.db"
    migrating.made_by_alembic(by_alembic)
    open_store(by_snapshot).close()
    made, expected = _contents(by_snapshot), _contents(by_alembic)
    assert made["schema"] == expected["schema"]
    assert made["rows"] == expected["rows"]
    assert made["pragmas"] == expected["pragmas"]
    assert expected["rows"]["alembic_version"] == [repr((HEAD_REVISION,))]


def test_the_snapshot_holds_what_alembic_made_not_a_copy_of_itself(tmp_path):
    """(The comparison above can differ: a schema changed after the snapshot was written is found.)"""
    path = tmp_path / "s.db"
    open_store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE INDEX ix_extra ON session (title)")
    assert _contents(path)["schema"] != _contents(_made_by_alembic(tmp_path))["schema"]


def _made_by_alembic(tmp_path):
    path = tmp_path / "alembic.db"
    migrating.made_by_alembic(path)
    return path


def test_a_new_store_opens_without_loading_alembic(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        from sessionscope import open_store
        open_store({str(tmp_path / 'new.db')!r}).close()
        print(sorted({{m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('alembic', 'mako')}}))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_database_that_is_not_empty_goes_through_alembic(tmp_path):
    """Another program's SQLite file named as the store: its tables stay and Alembic adds the store's beside them, as
    before the snapshot."""
    path = tmp_path / "theirs.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE theirs (x)")
        conn.execute("INSERT INTO theirs VALUES (1)")
    open_store(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT x FROM theirs").fetchall() == [(1,)]
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(HEAD_REVISION,)]


def test_a_snapshot_of_another_revision_is_left_to_alembic(tmp_path, monkeypatch):
    monkeypatch.setattr(fresh, "HEAD_REVISION", "0000")
    assert fresh.statements() is None
    monkeypatch.undo()
    path = tmp_path / "s.db"
    monkeypatch.setattr(fresh, "statements", lambda: None)
    open_store(path).close()
    assert _contents(path)["schema"] == _contents(_made_by_alembic(tmp_path))["schema"]
