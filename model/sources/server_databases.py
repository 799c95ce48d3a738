"""Databases on a PostgreSQL server that another tool writes (#38 item 5): LangGraph's PostgresSaver checkpoints and
the Agents SDK's SQLAlchemySession, the forms teams run their agents with in production.

A user adds one by its address (`sessionscope import postgresql://user@host/db`, File ▸ Import Database…); each
tool whose tables are there (`claims_server`) reads it as it reads the SQLite form of the same library, in
read-only transactions: nothing there is ever written, except by an action the user asks for (a LangGraph fork or
rewind, through langgraph's own saver). The address is the source's location without its password, and the
sessions' ids are made from it; the password comes from ~/.pgpass or $PGPASSWORD (libpq's own), never from a file
of ours. A rescan reads again what changed (each tool's marks).
"""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

from sessionscope.errors import MissingExtra

PREFIXES = ("postgresql://", "postgres://", "postgresql+psycopg://")


def is_address(text: str | os.PathLike) -> bool:
    return isinstance(text, str) and text.startswith(PREFIXES)


def shown(address: str) -> str:
    """The address as it may be shown, stored and recorded: its password left out."""
    from sessionscope.store import db
    return db.split_address(address)[0]


def name(address: str) -> str:
    """The database's name (what its sessions are filed under, as a file's are under its name)."""
    from sqlalchemy.engine import make_url
    return make_url(shown(address)).database or "database"


def connect(address: str, *, write: bool = False):
    """A psycopg connection (autocommit; rows as dicts, which langgraph's saver reads). Read only unless `write`:
    the server itself refuses any change then."""
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ImportError:
        raise MissingExtra("reading databases on a PostgreSQL server", "postgres", "psycopg") from None
    conninfo = address.replace("postgresql+psycopg://", "postgresql://", 1)
    options = {} if write else {"options": "-c default_transaction_read_only=on"}
    return psycopg.connect(conninfo, autocommit=True, row_factory=dict_row, connect_timeout=15, **options)


def tables(conn) -> set[str]:
    return {r["table_name"] for r in conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = ANY(current_schemas(false))")}


def columns(conn, table: str) -> set[str]:
    return {r["column_name"] for r in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND table_schema = ANY(current_schemas(false))", (table,))}


def stat() -> SimpleNamespace:
    """What a scan state records of a database on a server (no size or inode: its tools' marks say what changed)."""
    return SimpleNamespace(st_size=0, st_mtime=time.time(), st_ino=0)


def import_address(store, address: str):
    """Read what the database at `address` holds, by each tool whose tables are there (an ImportReport); a database
    that none claims, or that cannot be reached, is said as the problem of that address."""
    from sessionscope.sources import tools
    from sessionscope.sources.scan import ImportReport
    started, report = time.monotonic(), ImportReport()
    bare = shown(address)
    try:
        conn = connect(address)
    except MissingExtra:
        raise
    except Exception as exc:  # a server that does not answer, a refused login: this address's problem
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        report.problems.append({"path": bare, "line": None, "offset": None, "problem": f"cannot connect: {first}"})
        return report.finish(store, started, database=bare)
    with conn:
        report.files_seen += 1
        readers = [t for t in tools() if t.claims_server(conn)]
        if not readers:
            report.problems.append({"path": bare, "line": None, "offset": None, "problem":
                                    "no LangGraph checkpoints (PostgresSaver) or Agents SDK sessions "
                                    "(SQLAlchemySession) in that database: left alone"})
        for tool in readers:
            tool.import_server(store, address, conn, report)
    return report.finish(store, started, database=bare)
