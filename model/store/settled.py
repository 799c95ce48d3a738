"""The settled key: the largest key of a table at or below which every row that will ever be stored is stored.

What reads "every row after the largest key seen" (the window's change mark, `Store.change_mark` /
`changes_since`, over events and the audit log; the embedding job over events) is right only while keys commit
in the order they were taken. SQLite has one writer, so they do, and the settled key is the largest stored. On
PostgreSQL writes to different sessions run at once (`db.write_connection` with sessions: an append, a sync's
page, an import's batch): one may take event key 100, another 101 and commit first. So each of them, before it
takes a key, holds a shared advisory lock on (the table's mark space, the sequence's next value) for events and
for the audit log (`marks_sql`): no key it takes can be below that mark, and the lock goes when its transaction
ends. Store-wide writers (forks, deletes, other tools' imports) hold the write lock exclusive, so none of them is
in flight beside those, and they take and commit their keys in order.

Why one statement is enough to read it: its snapshot is taken before it reads `pg_locks`. A row not committed when
the locks were read either had its mark there already (so the answer is below it) or takes its key later, above
every key taken before the snapshot (a sequence hands keys out in order), so above the largest the snapshot saw.
"""

from __future__ import annotations

import sqlalchemy as sa

from sessionscope.store.keys import key_functions

# the mark space of each table whose keys are read in order: (its key column, the advisory lock's first key)
MARKED = {"event": ("pk", 0x5E551097), "audit": ("id", 0x5E551098)}
_INT_MAX = 2_147_483_647  # (an advisory lock's second key is an int: a larger key marks at this, too low, never above)


def marks_sql(conn) -> str:
    """The select-list items that mark, in this transaction, where its keys of every marked table may land."""
    return ", ".join(f"pg_advisory_xact_lock_shared({space}, least({_next_key(conn, table, column)}, {_INT_MAX})::int)"
                     for table, (column, space) in MARKED.items())


def _next_key(conn, table: str, column: str) -> str:
    """SQL for a bound below every key nextval may hand out from now on: the next one; on a team store, whose
    members read the sequence through the owner's function (no is_called), its last value, one too low at worst."""
    if key_functions(conn):
        return f"(SELECT sessionscope_last_key('{table}', '{column}'))"
    return f"(SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END FROM {table}_{column}_seq)"


def settled_key(conn: sa.Connection, table: str = "event") -> int:
    """The largest key of `table` (event or audit) at or below which nothing is still to commit."""
    column, space = MARKED[table]
    top = f"SELECT coalesce(max({column}), 0) FROM {table}"
    if conn.dialect.name != "postgresql":
        return conn.exec_driver_sql(top).scalar() or 0
    found, in_flight = conn.execute(sa.text(
        f"SELECT ({top}), (SELECT min(objid::bigint) FROM pg_locks WHERE locktype = 'advisory' "
        "AND classid = CAST(:space AS oid) AND objsubid = 2 AND granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))"),  # (a server holds more)
        {"space": space}).one()
    return found if in_flight is None else min(found, in_flight - 1)
