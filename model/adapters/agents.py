"""The OpenAI Agents SDK's `Session` protocol over a Sessionscope store.

    from agents import Runner
    from sessionscope.adapters.agents import SessionscopeSession
    await Runner.run(agent, "hi", session=SessionscopeSession("user-42"))

Each item the SDK adds becomes an event of a native session (its payload the item, verbatim), so the
conversation is browsable, searchable and forkable while the agent runs. `add_items` queues the items and
returns; they become events a moment later, behind the SDK (sources.agents_sdk.queue, adapters.behind),
and what the SDK reads is the session's items to its head, then the queue. Nothing is deleted:
`pop_item` moves the session's head back past the last item and `clear_session` back to the session's
start (each shows the queue first), both rewinds recorded in the audit log, so what was popped or cleared
stays visible as a branch in the tree, and the next items hang under the new head.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
import weakref
from typing import Any

import sqlalchemy as sa

from sessionscope.adapters.behind import Behind
from sessionscope.history import reading, sessions
from sessionscope.safety import audit, untrusted
from sessionscope.sources.agents_sdk import queue
from sessionscope.sources.agents_sdk.queue import SDK, START, store_session_id
from sessionscope.store import db, payloads
from sessionscope.store.payloads import unpack
from sessionscope.store.schema import SESSION

ITEM_KINDS = frozenset({"message", "system", "tool_call", "tool_result", "thinking", "opaque"})
__all__ = ["SDK", "START", "SessionscopeSession", "store_session_id"]


def _path(conn, sid: str) -> list:
    """The events root→head of the session, [] when it was never written."""
    head = conn.execute(sa.select(SESSION.c.head_event_id).where(SESSION.c.id == sid)).scalar()
    return reading.path_events(conn, head) if head else []


def _is_item(e) -> bool:
    return e.kind in ITEM_KINDS and bool(e.payload) and START not in e.payload[:64]


_WALK_UP = """WITH RECURSIVE up(id, parent_id, kind, payload, n) AS (
    SELECT e.id, e.parent_id, e.kind, e.payload, 0 FROM event e
     WHERE e.id = (SELECT head_event_id FROM session WHERE id = ?)
    UNION ALL
    SELECT e.id, e.parent_id, e.kind, e.payload, up.n + 1 FROM up JOIN event e ON e.id = up.parent_id
     WHERE up.n + 1 < ?)
SELECT parent_id, kind, payload FROM up ORDER BY n"""


def _last_items(conn, sid: str, limit: int) -> list[dict]:
    """The last `limit` items on the path to the head, walked back from the head: what `get_items(limit=10)`
    asks on every turn costs about ten index lookups, not the whole history (#31), in one statement (the
    head and the events above it; a round trip on a server, not one an event)."""
    found: list[dict] = []

    def take(parent_id, kind, payload) -> None:
        payload = unpack(payload)
        if kind in ITEM_KINDS and payload and START not in payload[:64]:
            found.append(untrusted.loads(payload))
    rows = db.sql(conn, _WALK_UP, (sid, limit + 2)).fetchall()  # (+2: the session's start, a spare)
    for row in rows:
        if len(found) < limit:
            take(*row)
    cur = rows[-1][0] if rows and len(rows) == limit + 2 and len(found) < limit else None
    for _ in range(reading.MAX_WALK):  # (only when the path holds more than items)
        if cur is None or len(found) >= limit:
            break
        row = db.sql(conn, "SELECT parent_id, kind, payload FROM event WHERE id = ?", (cur,)).fetchone()
        if row is None:
            break
        take(*row)
        cur = row[0]
    return found[::-1]


def _rewind(conn, session_id: str, sid: str, why: str) -> dict | None:
    """pop_item (the last item) or clear_session (all of them): the queue shown first, then the head moves;
    nothing is removed."""
    queue.show(conn, session_id)
    path = _path(conn, sid)
    items = [i for i, e in enumerate(path) if _is_item(e)]
    if not items:
        return None
    cut = items[-1] if why == "pop_item" else items[0]
    to, popped = path[cut - 1].id, path[items[-1]]
    sessions.rewind(conn, sid, to)
    audit.within(conn, "rewind", "ok", session_id=sid, event_id=to,
                 detail={"sdk": SDK, "why": why, "previous_head": path[-1].id})
    return untrusted.loads(popped.payload)


class SessionscopeSession:
    """An Agents SDK `Session` kept in a Sessionscope store (`store`: a Store, a path or URL, or None for
    the default). Each call is one transaction, run on a worker thread; the items added become events a
    moment later (`flush()`: now; `close()`: what is left)."""

    session_settings = None

    def __init__(self, session_id: str, store=None):
        from sessionscope.store.api import Store, open_store
        self.session_id = session_id
        self.id = store_session_id(session_id)
        self._owned = not isinstance(store, Store)
        self.store = open_store(store) if self._owned else store
        from sessionscope.store.locations import sqlite_path
        self._path = sqlite_path(self.store.url)
        self._local = threading.local()  # a plain read-only connection per worker thread, on SQLite
        self._opened: list[sqlite3.Connection] = []
        self._opened_lock = threading.Lock()
        # (the worker holds no reference to the session: dropped, it is collected and its worker ends)
        self._behind = Behind(self.store, queue.show, "agents-queue")
        self._finalizer = weakref.finalize(self, self._behind.release)

    def flush(self) -> None:
        """Make every item added so far an event of the session now (they are otherwise a moment behind)."""
        self._behind.flush()

    def close(self) -> None:
        self._finalizer.detach()
        self._behind.stop()
        with self._opened_lock:
            for c in self._opened:
                c.close()
            self._opened.clear()
        if self._owned:
            self.store.close()

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        if limit is not None:
            return await asyncio.to_thread(self._last, limit) if limit > 0 else []

        def read(conn):
            return [untrusted.loads(e.payload) for e in _path(conn, self.id) if _is_item(e)] + \
                queue.queued(conn, self.session_id)
        return await asyncio.to_thread(self._read, read)

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        if items:
            await asyncio.to_thread(self._add, [dict(i) for i in items])

    def _add(self, items: list[dict[str, Any]]) -> None:
        self.store.write(queue.put, self.session_id, items, time.time())
        self._behind.written(self.session_id)

    async def pop_item(self) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.store.write, _rewind, self.session_id, self.id, "pop_item")

    async def clear_session(self) -> None:
        await asyncio.to_thread(self.store.write, _rewind, self.session_id, self.id, "clear_session")

    def _read(self, work):
        with self.store.reader() as conn:
            return work(conn)

    def _last(self, limit: int) -> list[dict[str, Any]]:
        """get_items(limit): asked on every turn, so on SQLite through a plain read-only connection of this
        worker thread (a pooled SQLAlchemy connection and its transaction cost twice the walk itself)."""
        if self._path is None:
            return self._read(lambda conn: self._tail(conn, limit))
        raw = getattr(self._local, "conn", None)
        if raw is None:
            raw = sqlite3.connect(f"file:{self._path}?mode=ro", uri=True, isolation_level=None,
                                  check_same_thread=False, timeout=30.0)
            payloads.register_sql(raw)  # (`event.payload` and `event.text` are generated by our functions: 0028, 0029)
            self._local.conn = raw
            with self._opened_lock:
                self._opened.append(raw)
        raw.execute("BEGIN")  # one snapshot for the walk and the queue
        try:
            return self._tail(raw, limit)
        finally:
            raw.execute("COMMIT")

    def _tail(self, conn, limit: int) -> list[dict[str, Any]]:
        """The last `limit` items: the queue's, after the session's own to its head."""
        waiting = queue.queued(conn, self.session_id, limit)
        return (_last_items(conn, self.id, limit - len(waiting)) if len(waiting) < limit else []) + waiting
