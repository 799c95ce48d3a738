"""The store's schema brought to this code's revision: Alembic's migrations, run once under the write lock, a backup
of an existing store first, a store newer than this code refused."""

from __future__ import annotations

import re
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sessionscope.errors import SchemaTooNew, StoreUnavailable
from sessionscope.store.db import _describe_operational, sqlstate, write_connection
from sessionscope.store.revision import HEAD_REVISION


def include_name(name, type_, _parents) -> bool:
    """Autogenerate ignores the FTS5 tables and their shadow tables, and the search's vocabulary (made by raw SQL)."""
    return not (type_ == "table" and name and name.startswith(("event_fts", "search_term")))


def include_object(obj, name, type_, reflected, compare_to) -> bool:
    """Autogenerate leaves SQLite's kept text and payload and the `event.text` and `event.payload` generated from them
    (0028, 0029) to their migrations: the models declare the columns PostgreSQL has."""
    if type_ != "column" or obj.table.name != "event":
        return True
    if name in ("text_kept", "payload_kept") and reflected:
        return False
    return not (name in ("text", "payload") and getattr(obj if reflected else compare_to, "computed", None) is not None)


def migrate(engine: Engine, url: str, snapshot: bool = True) -> None:
    """Create or upgrade the schema; refuse a store newer than this code. A new SQLite store gets head's schema
    from its snapshot (sessionscope.store.fresh), without Alembic, unless `snapshot` is False."""
    current = _read_revision(engine)
    if current == HEAD_REVISION:
        return
    if current is None and snapshot:
        from sessionscope.store import fresh
        if fresh.create(engine):
            return
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    scripts = ScriptDirectory.from_config(cfg)
    if current is not None and not _known(scripts, current):
        raise SchemaTooNew(
            f"the store at {url} has schema revision {current}, newer than this "
            f"Sessionscope knows (up to {HEAD_REVISION}); install a newer Sessionscope"
        )
    from alembic import command

    if current is not None:  # an existing store changes shape: a copy of it as it was comes first
        _backup_before_migration(url, current)
    try:
        with write_connection(engine) as conn:
            # Re-read under the write lock: another process may have migrated meanwhile.
            if _read_revision_conn(conn) != HEAD_REVISION:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
    except sa.exc.DatabaseError as exc:
        if sqlstate(exc) != "42501":
            raise
        # a team store's member: only the tables' owner changes their shape (sessionscope.safety.team)
        raise StoreUnavailable(f"the store at {url} is at schema revision {current}, and this Sessionscope needs "
                               f"{HEAD_REVISION}: only the owner of its tables may upgrade it — ask them to open it "
                               "once with this version (then `sessionscope team init` again)") from exc


def _backup_before_migration(url: str, current: str) -> None:
    from sessionscope.safety import backup
    try:
        path = backup.store_file(url)
    except Exception:
        return  # PostgreSQL: its server's own backups
    if path.is_file():
        backup.make(path, "before-" + re.sub(r"[^a-z0-9]", "", HEAD_REVISION.lower())[:16])


def _known(scripts, revision: str) -> bool:
    try:
        return scripts.get_revision(revision) is not None
    except Exception:
        return False


def _read_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as conn:
            return _read_revision_conn(conn)
    except sa.exc.OperationalError as exc:
        raise StoreUnavailable(_describe_operational(exc)) from exc
    except sa.exc.DatabaseError as exc:
        raise StoreUnavailable(f"the store is not a database Sessionscope can read: {exc.orig}") from exc


def _read_revision_conn(conn: Connection) -> str | None:
    if not sa.inspect(conn).has_table("alembic_version"):
        return None
    return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def made_by_alembic(path: Path) -> None:
    """A store at `path` (which must not exist) made by Alembic's migrations alone."""
    from sessionscope.store import db

    engine = db.create_store_engine(db.as_url(path))
    try:
        migrate(engine, str(path), snapshot=False)
    finally:
        engine.dispose()


def write_snapshot() -> None:
    """Write head's snapshot again from Alembic's migrations (sessionscope.store.fresh), after adding one."""
    import json
    import tempfile

    from sessionscope.store import fresh
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "head.db"
        made_by_alembic(path)
        data = fresh.snapshot(path)
    fresh.SNAPSHOT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {fresh.SNAPSHOT} ({len(data['statements'])} statements, revision {data['revision']})")


if __name__ == "__main__":
    write_snapshot()
