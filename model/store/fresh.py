"""A new SQLite store made at once from the schema Alembic's migrations leave, without loading Alembic.

Alembic, with the Mako it imports and the Pygments lexers Mako's plugin loads, is ~10 MB of a process that stays
for as long as it runs: the first run's window carried it beside its first import for nothing (#61: the first
run's peak memory). A new file instead gets head's schema from `migrations/head_sqlite.json`: the statements
`sqlite_master` holds after every migration has run on an empty file, tables first, and the rows they leave.

The snapshot is only a shortcut: a store that is not empty, a snapshot of another revision, or PostgreSQL go
through Alembic as before. tests/model/test_fresh_store.py holds a store made either way equal (schema, every
table's rows, shadow tables included); after a new migration, `python -m sessionscope.store.migrating` writes
the snapshot again.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sqlalchemy.engine import Engine

from sessionscope.store.revision import HEAD_REVISION

SNAPSHOT = Path(__file__).with_name("migrations") / "head_sqlite.json"
_ORDER = {"table": 0, "index": 1, "view": 2, "trigger": 3}  # what a statement may name exists before it


def statements() -> list[str] | None:
    """The snapshot's statements when it is head's; None otherwise (a migration added since it was written)."""
    try:
        data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("revision") != HEAD_REVISION or not isinstance(data.get("statements"), list):
        return None
    return data["statements"]


def create(engine: Engine) -> bool:
    """Give an empty SQLite store head's schema from the snapshot, under the write lock (two processes opening a
    new store at once: the second finds it made). False when the snapshot cannot: Alembic then migrates."""
    from sessionscope.store.db import write_connection

    made = statements()
    if made is None or engine.dialect.name != "sqlite":
        return False
    with write_connection(engine) as conn:
        if conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar():
            # not empty (made meanwhile, or another program's database): Alembic reads where it stands
            return False
        for statement in made:
            conn.exec_driver_sql(statement)
    return True


def snapshot(path: Path) -> dict:
    """What a store that Alembic made at `path` holds: its schema's statements in an order that can run
    (tables, indexes, views, triggers; each kind in the order made) and its ordinary tables' rows as INSERTs.
    Shadow tables (FTS5's) are left to the virtual tables that make them, and SQLite's own to SQLite."""
    conn = sqlite3.connect(path)
    try:
        shadow = {row[1] for row in conn.execute("PRAGMA table_list") if row[2] == "shadow"}
        schema = [(kind, name, sql) for kind, name, sql in conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
            if name not in shadow and not name.startswith("sqlite_")]
        made = [sql for _, _, sql in sorted(schema, key=lambda s: _ORDER[s[0]])]
        for kind, name, sql in schema:
            if kind == "table" and not sql.upper().startswith("CREATE VIRTUAL TABLE"):
                made += _inserts(conn, name)
    finally:
        conn.close()
    return {"revision": HEAD_REVISION, "statements": made}


def _inserts(conn: sqlite3.Connection, table: str) -> list[str]:
    columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
    if not columns:
        return []
    quoted = " || ',' || ".join(f'quote("{c}")' for c in columns)
    names = ", ".join(f'"{c}"' for c in columns)
    return [f'INSERT INTO "{table}" ({names}) VALUES ({values})'
            for (values,) in conn.execute(f'SELECT {quoted} FROM "{table}" ORDER BY rowid')]
