"""A LangGraph checkpointer database, read through langgraph's own saver and serializer: a SQLite file
(SqliteSaver) or a database on a PostgreSQL server (PostgresSaver), named by its address.

We never decode a checkpoint blob ourselves (FORMATS.md §5: two serializer
generations, msgpack extension types for LangChain messages): the saver gives
each checkpoint as langgraph's own `CheckpointTuple`. Only which rows exist is
asked in plain SQL (cheap, no blobs), so a rescan decodes just the threads that
changed, and one checkpoint that cannot be decoded is counted, not fatal.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessionscope.errors import MissingExtra
from sessionscope.sources import databases
from sessionscope.sources.databases import columns

# langgraph < 0.2 wrote checkpoints(thread_id, thread_ts, parent_ts, …): its current saver cannot read them
LEGACY_COLUMN = "thread_ts"


class Unreadable(Exception):
    """The database is LangGraph's but cannot be read here (legacy schema, langgraph missing)."""


Place = Path | str  # a SQLite file, or a database's address on a server (sessionscope.sources.server_databases)


def connect(place: Place, write: bool = False):
    """Read only (sessionscope.sources.databases, server_databases), or read-write only to fork."""
    if isinstance(place, str):
        from sessionscope.sources import server_databases
        return server_databases.connect(place, write=write)
    return sqlite3.connect(place, check_same_thread=False) if write else databases.open_readonly(place)


def _on_server(con) -> bool:
    return not isinstance(con, sqlite3.Connection)


def claims_server(conn) -> bool:
    """Whether a database on a server holds PostgresSaver's tables."""
    from sessionscope.sources.server_databases import tables
    return {"checkpoints", "checkpoint_writes", "checkpoint_blobs"} <= tables(conn)


def _langgraph_tables(con: sqlite3.Connection) -> bool:
    cols = columns(con, "checkpoints")
    return bool(columns(con, "writes")) and "thread_id" in cols and ("checkpoint_id" in cols or LEGACY_COLUMN in cols)


def claims(path: Path) -> bool:
    """Whether a file is a LangGraph SqliteSaver database (its `checkpoints` and `writes` tables)."""
    return databases.inspect(path, _langgraph_tables)


def saver(con):
    """langgraph's saver over our connection, SqliteSaver or PostgresSaver (imported here: only a LangGraph
    database needs it)."""
    try:
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
        if _on_server(con):
            from langgraph.checkpoint.postgres import PostgresSaver as Saver
        else:
            from langgraph.checkpoint.sqlite import SqliteSaver as Saver
    except ImportError as exc:  # the [langgraph] extra is not installed: say which one to install
        raise MissingExtra("reading, forking and rewinding LangGraph checkpoints", "langgraph", exc.name or "langgraph") from exc
    # A database we are given is untrusted: langgraph's default serializer rebuilds any type a checkpoint
    # names (a constructor of os.system runs a command). Strict mode rebuilds only langgraph's own list of
    # safe types (LangChain messages, datetimes, …); any other value comes back as its undecoded arguments,
    # never run; no pickle fallback either.
    return Saver(con, serde=JsonPlusSerializer(allowed_msgpack_modules=None, allowed_json_modules=None,
                                               pickle_fallback=False))


# the writes that become events (sessionscope.sources.langgraph.importer.INTERNAL_WRITES); a task's own channel
# writes show nowhere, so they do not make a thread "changed"
SHOWN_WRITES = ("__interrupt__", "__resume__", "__error__")


def thread_marks(con, only: str | None = None) -> dict[str, str]:
    """{thread_id: a mark that changes whenever a checkpoint, or a write that is shown, is added to the
    thread}; of every thread, or `only` that one. In a SQLite file it is the newest rowid of each (rowids only
    grow; langgraph replaces a write by deleting and inserting it), so a mirror that has read up to a rowid
    knows the same mark without asking (sessionscope.sources.langgraph.mirror)."""
    if _on_server(con):
        return _server_marks(con, only)
    if LEGACY_COLUMN in columns(con, "checkpoints"):
        raise Unreadable("written by LangGraph before 0.2 (checkpoints.thread_ts): the current saver cannot "
                         "read this schema; open it with the langgraph version that wrote it and migrate")
    where, args = ("AND thread_id = ?", (only,)) if only is not None else ("", ())
    shown = ", ".join("?" * len(SHOWN_WRITES))
    marks = {str(t): [top, 0] for t, top in con.execute(
        f"SELECT thread_id, max(rowid) FROM checkpoints WHERE 1 {where} GROUP BY thread_id", args)}
    for t, top in con.execute(f"SELECT thread_id, max(rowid) FROM writes WHERE channel IN ({shown}) {where} "
                              "GROUP BY thread_id", SHOWN_WRITES + args):
        marks.setdefault(str(t), [0, 0])[1] = top
    return {t: mark(*m) for t, m in marks.items()}


def _server_marks(con, only: str | None) -> dict[str, str]:
    """PostgresSaver's tables have no rowids: a thread's mark is how many checkpoints and shown writes it has and
    the newest of each (checkpoint ids are time-ordered; a write is keyed by its checkpoint, task and index)."""
    where, args = ("WHERE thread_id = %s", (only,)) if only is not None else ("", ())
    marks = {str(r["thread_id"]): [f"{r['n']}:{r['newest']}", "0"] for r in con.execute(
        f"SELECT thread_id, count(*) AS n, max(checkpoint_id) AS newest FROM checkpoints {where} GROUP BY thread_id",
        args)}
    shown = "channel = ANY(%s)" + (" AND thread_id = %s" if only is not None else "")
    for r in con.execute(f"SELECT thread_id, count(*) AS n, max(checkpoint_id || ':' || task_id || ':' || idx) AS newest "
                         f"FROM checkpoint_writes WHERE {shown} GROUP BY thread_id", (list(SHOWN_WRITES), *args)):
        marks.setdefault(str(r["thread_id"]), ["0", "0"])[1] = f"{r['n']}:{r['newest']}"
    return {t: mark(*m) for t, m in marks.items()}


def mark(checkpoints_rowid: int | str, writes_rowid: int | str) -> str:
    return f"{checkpoints_rowid}/{writes_rowid}"


@dataclass
class Thread:
    """A thread's checkpoints as langgraph decodes them, oldest first (checkpoint ids are time-ordered)."""

    thread_id: str
    tuples: list[Any] = field(default_factory=list)  # langgraph CheckpointTuple
    problems: list[str] = field(default_factory=list)  # checkpoints that could not be decoded


def read_thread(sv, con, thread_id: str) -> Thread:
    """Every checkpoint of a thread (all namespaces), each through the saver, one failure at a time."""
    out = Thread(thread_id)
    sql = "SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id, checkpoint_ns"
    if _on_server(con):
        rows = [(r["checkpoint_ns"], r["checkpoint_id"]) for r in con.execute(sql.replace("?", "%s"), (thread_id,))]
    else:
        rows = con.execute(sql, (thread_id,)).fetchall()
    for ns, cid in rows:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": cid}}
        try:
            t = sv.get_tuple(config)
        except Exception as exc:  # noqa: BLE001 - a blob langgraph cannot decode (unknown type, damage)
            out.problems.append(f"checkpoint {cid}{f' ({ns})' if ns else ''}: {type(exc).__name__}: {exc}")
            continue
        if t is not None:
            out.tuples.append(t)
    return out
