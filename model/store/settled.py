"""The settled key: the largest event key at or below which every event that will ever be stored is stored.

What reads "every event after the largest key seen" (the window's change mark, `Store.changes_since`; the
embedding job) is right only while keys commit in the order they were taken. SQLite has one writer, so they do,
and the settled key is the largest stored. On PostgreSQL appends to different sessions run at once
(`db.write_connection` with a session): one may take key 100, another 101 and commit first. So each such
append, before it takes its key, holds a shared advisory lock on (`db.PG_KEY_MARKS`, the sequence's last value):
no key it takes can be below that mark, and the lock goes when its transaction ends. Store-wide writers (imports,
forks) hold the write lock exclusive, so none of them is in flight beside an append, and they take and commit
their keys in order.

Why one statement is enough: its snapshot is taken before it reads `pg_locks`. An event not committed when the
locks were read either had its mark there already (so the answer is below it) or takes its key later, above
every key taken before the snapshot (a sequence hands keys out in order), so above the largest the snapshot saw.
"""

from __future__ import annotations

import sqlalchemy as sa

from sessionscope.store import db

_PG = ("SELECT (SELECT coalesce(max(pk), 0) FROM event), (SELECT min(objid::bigint) FROM pg_locks "
       "WHERE locktype = 'advisory' AND classid = CAST(:marks AS oid) AND objsubid = 2 AND granted)")


def settled_key(conn: sa.Connection) -> int:
    """The largest event key at or below which nothing is still to commit (see the module's words)."""
    if conn.dialect.name != "postgresql":
        return conn.exec_driver_sql("SELECT coalesce(max(pk), 0) FROM event").scalar() or 0
    top, in_flight = conn.execute(sa.text(_PG), {"marks": db.PG_KEY_MARKS}).one()
    return top if in_flight is None else min(top, in_flight - 1)
