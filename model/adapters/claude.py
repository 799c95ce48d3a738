"""The Claude Agent SDK's `SessionStore` over a Sessionscope store.

The SDK mirrors every transcript line it writes (`append`), reads a session back to resume or fork
it (`load`), and lists, summarises and deletes through the same object. Each entry is kept verbatim
in `mirror_entry` under the SDK's own key (project, session, subpath), which is what `load` returns,
and the SDK's summary is folded in the same transaction. The Claude Code importer turns the kept rows
into the session's events a moment later, behind the SDK (sources.claude_code.mirror), so an append
costs what the SDK reads back and the session is browsable and searchable once the agent pauses; a
process killed first leaves them to the app's next scan. The session's id is the SDK's session id, the
name of its local transcript too: importing that file later finds the same session and adds nothing
twice (lines are keyed by their uuid). `delete` removes the mirror, as the SDK asks, and is recorded in
the audit log; the session stays in the store, as every session does when its tool deletes it.
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from typing import Any

import sqlalchemy as sa

from sessionscope.adapters.behind import Behind
from sessionscope.errors import MissingExtra
from sessionscope.safety import audit, untrusted
from sessionscope.sources.claude_code import mirror
from sessionscope.store import keys, numbered
from sessionscope.store.db import sql
from sessionscope.store.schema import MIRROR_ENTRY, MIRROR_SUMMARY

SDK = mirror.SDK


def _fold():
    try:
        from claude_agent_sdk import fold_session_summary
    except ImportError as exc:
        raise MissingExtra("the Claude Agent SDK's session store", "claude", exc.name or "claude_agent_sdk") from exc
    return fold_session_summary


def _where(table, key, subpath: bool = True):
    cond = (table.c.sdk == SDK) & (table.c.project_key == key["project_key"]) & (table.c.session_id == key["session_id"])
    if subpath:
        cond &= table.c.subpath == (key.get("subpath") or "")
    return cond


_KEY = "sdk = ? AND project_key = ? AND session_id = ? AND subpath = ?"
MIRROR_COLUMNS = ("id", "sdk", "project_key", "session_id", "subpath", "uuid", "entry", "written")


class _Known:
    """The uuids of a key's rows this process has seen, so that the lines the SDK sends again (a retried
    batch, a re-import) are dropped without an index over random uuids, which cost more per append than
    the rows themselves (#31). `first` tells a key deleted and written anew; rows after `last` are
    another writer's, read on the next append."""

    __slots__ = ("first", "last", "uuids")

    def __init__(self, first: int, last: int, uuids: set[str]):
        self.first, self.last, self.uuids = first, last, uuids


def _append(conn, key, entries: list[dict[str, Any]], now: float, known: dict):
    """Keep the entries whose uuid the key does not hold yet, as rows; (how many, the key's first and last
    row, the uuids this process had not seen: see _learn). The summary and the events follow from the rows."""
    where = mirror.key_of(key)
    _sdk, project, session, subpath = where
    had = known.get(where)
    # in one statement (a round trip on a server): the key's first row, the store's last, the key's rows since
    # this process last looked
    # (ORDER BY … LIMIT 1, not min(): PostgreSQL reads a key's whole index range for its min())
    found = sql(conn, f"SELECT 0, (SELECT id FROM mirror_entry WHERE {_KEY} ORDER BY id LIMIT 1), NULL UNION ALL "
                      f"SELECT 1, {keys.last_key_sql(conn, 'mirror_entry', 'id')}, NULL UNION ALL "
                      f"SELECT 2, id, uuid FROM mirror_entry WHERE {_KEY} AND id > ?",
                (*where, *where, had.last if had is not None else 0)).fetchall()
    first = next(v for part, v, _u in found if part == 0)
    top = (next(v for part, v, _u in found if part == 1) or 0) + 1
    since = [(v, u) for part, v, u in found if part == 2]
    if had is not None and had.first != first:  # (deleted since, here or by another process: read it again)
        had = None
        since = list(sql(conn, f"SELECT id, uuid FROM mirror_entry WHERE {_KEY}", where))
    old = had.uuids if had is not None else frozenset()
    fresh: set[str] = set()  # uuids of rows this process has not seen, and of the kept entries
    last = had.last if had is not None else 0
    for row_id, uid in since:
        last = max(last, row_id)
        if uid is not None:
            fresh.add(uid)
    kept: list[tuple[str | None, str]] = []
    for e in entries:
        uid = e["uuid"] if isinstance(e.get("uuid"), str) and e["uuid"] else None
        if uid is not None:
            if uid in old or uid in fresh:
                continue  # the SDK sends a batch again when it may have landed: idempotent on uuid
            fresh.add(uid)
        kept.append((uid, untrusted.dumped(e)[0]))  # (a lone surrogate kept as the SDK gave it; shown as U+FFFD)
    if kept:
        # numbered here (`top`), under the store's write lock, so that ids follow commits on every engine: the
        # mirror is shown up to a row id (sources.claude_code.mirror); a row committed below it never would be
        rows = [(top + i, SDK, project, session, subpath, uid, raw, now) for i, (uid, raw) in enumerate(kept)]
        numbered.insert_numbered(conn, MIRROR_ENTRY, MIRROR_COLUMNS, rows)
        last, first = rows[-1][0], first if first is not None else top
    return len(kept), first, last, fresh


def _learn(known: dict, where: mirror.Key, first: int | None, last: int, fresh: set[str]) -> None:
    """After an append committed: what it read and wrote, added to the key's _Known (never before: a
    transaction tried again must not find its own uuids already known)."""
    had = known.get(where)
    if first is None:
        known.pop(where, None)
    elif had is not None and had.first == first:
        had.uuids |= fresh
        had.last = last
    else:
        known[where] = _Known(first, last, fresh)


def _fold_pending(conn, project: str, session: str) -> None:
    """Fold the main transcript's rows the SDK's summary has not taken in yet (its own fold, entry by entry
    in row order, as each append folding its own would), stamped with the last row's time: behind the
    appends, and before summaries are listed."""
    prev = sql(conn, "SELECT written, data, folded_to FROM mirror_summary WHERE sdk = ? AND project_key = ? AND "
                     "session_id = ?", (SDK, project, session)).fetchone()
    rows = sql(conn, f"SELECT id, entry, written FROM mirror_entry WHERE {_KEY} AND id > ? ORDER BY id",
               (SDK, project, session, "", prev[2] if prev else 0)).fetchall()
    if not rows:
        return
    before = {"session_id": session, "mtime": int(prev[0] * 1000), "data": untrusted.loads(prev[1])} if prev else None
    summary = _fold()(before, {"project_key": project, "session_id": session}, [untrusted.loads(r[1]) for r in rows])
    values = (rows[-1][2], untrusted.dumps(summary["data"]), rows[-1][0])
    if prev:
        sql(conn, "UPDATE mirror_summary SET written = ?, data = ?, folded_to = ? WHERE sdk = ? AND project_key = ? "
                  "AND session_id = ?", (*values, SDK, project, session))
    else:
        sql(conn, "INSERT INTO mirror_summary (written, data, folded_to, sdk, project_key, session_id) "
                  "VALUES (?, ?, ?, ?, ?, ?)", (*values, SDK, project, session))


def _unfolded(conn, project: str) -> list[str]:
    """The project's sessions with main-transcript rows their summary has not folded."""
    return [r[0] for r in sql(conn, (
        "SELECT e.session_id FROM (SELECT session_id, max(id) AS top FROM mirror_entry WHERE sdk = ? AND "
        "project_key = ? AND subpath = '' GROUP BY session_id) e LEFT JOIN mirror_summary s ON s.sdk = ? AND "
        "s.project_key = ? AND s.session_id = e.session_id WHERE s.folded_to IS NULL OR s.folded_to < e.top"),
        (SDK, project, SDK, project)).fetchall()]


def _show(conn, key: mirror.Key, readings: dict) -> None:
    """A key's rows as events and, for a main transcript, in its summary: one transaction."""
    mirror.show(conn, key, readings)
    if not key[3]:
        _fold_pending(conn, key[1], key[2])


def _load(conn, key) -> list[dict] | None:
    rows = conn.execute(sa.select(MIRROR_ENTRY.c.entry).where(_where(MIRROR_ENTRY, key))
                        .order_by(MIRROR_ENTRY.c.id)).scalars().all()
    return [untrusted.loads(r) for r in rows] if rows else None


def _delete(conn, key, readings: dict) -> int:
    main = not key.get("subpath")
    where = mirror.key_of(key)
    # what was appended and not shown yet is shown first: the session stays when the SDK deletes its mirror
    subpaths = [r[0] for r in sql(conn, "SELECT DISTINCT subpath FROM mirror_entry WHERE sdk = ? AND project_key = ? "
                                        "AND session_id = ?", where[:3]).fetchall()] if main else [where[3]]
    for subpath in subpaths:
        mirror.show(conn, (*where[:3], subpath), readings)
    gone = conn.execute(MIRROR_ENTRY.delete().where(_where(MIRROR_ENTRY, key, subpath=not main))).rowcount
    if main:
        conn.execute(MIRROR_SUMMARY.delete().where(_where(MIRROR_SUMMARY, key, subpath=False)))
    audit.within(conn, "sdk.delete", "ok", session_id=key["session_id"] if gone else None,
                 detail={"sdk": SDK, "project_key": key["project_key"], "session_id": key["session_id"],
                         "subpath": key.get("subpath") or "", "entries_removed": gone,
                         "kept": "the session's events stay in the store"})
    return gone


class ClaudeSessionStore:
    """claude_agent_sdk's SessionStore protocol over a Sessionscope store (all five optional methods).

    `store` is a Store, a path or URL, or None for the default store. Safe to share between tasks and
    threads: the database work runs on a worker thread (the SDK's event loop never waits on it). Each
    append is one write transaction of the SDK's rows and its summary; the session's events follow a
    moment later (`behind.Behind`), or at once with `flush()`; `close()` shows what is left."""

    def __init__(self, store=None):
        from sessionscope.store.api import Store, open_store
        self._owned = not isinstance(store, Store)
        self.store = open_store(store) if self._owned else store
        self._readings = readings = {}  # each key's Reading (see mirror.Reading)
        # (the worker holds no reference to the adapter: dropped, it is collected and its worker ends)
        self._behind = Behind(self.store, lambda conn, key: _show(conn, key, readings), "claude-mirror",
                              shown=lambda key: mirror.committed(readings, key))
        self._known: dict[mirror.Key, _Known] = {}  # each key's uuids seen (see _Known)
        self._known_lock = threading.Lock()  # appends to one key, one at a time: each goes on from the last
        # dropped without close(): the worker shows what is left on its own thread, then ends
        self._finalizer = weakref.finalize(self, self._behind.release)
        _fold()  # the SDK (already loaded by its user): said at once when it is missing

    def flush(self) -> None:
        """Show every appended line as the session's events now (they are otherwise a moment behind)."""
        self._behind.flush()

    def close(self) -> None:
        self._finalizer.detach()
        self._behind.stop()
        if self._owned:
            self.store.close()

    async def append(self, key, entries) -> None:
        if entries:
            await asyncio.to_thread(self._append, dict(key), list(entries))

    def _append(self, key, entries) -> None:
        where = mirror.key_of(key)
        with self._known_lock:
            kept, *seen = self.store.write(_append, key, entries, time.time(), self._known)
            _learn(self._known, where, *seen)
        if kept:
            self._behind.written(where)

    async def load(self, key) -> list[dict] | None:
        return await asyncio.to_thread(self._read, _load, dict(key))

    async def list_sessions(self, project_key: str) -> list[dict]:
        q = (sa.select(MIRROR_ENTRY.c.session_id, sa.func.max(MIRROR_ENTRY.c.written))
             .where(MIRROR_ENTRY.c.sdk == SDK, MIRROR_ENTRY.c.project_key == project_key, MIRROR_ENTRY.c.subpath == "")
             .group_by(MIRROR_ENTRY.c.session_id))
        rows = await asyncio.to_thread(self._read, lambda conn: conn.execute(q).all())
        return [{"session_id": sid, "mtime": int(written * 1000)} for sid, written in rows]

    async def list_session_summaries(self, project_key: str) -> list[dict]:
        return await asyncio.to_thread(self._summaries, project_key)

    def _summaries(self, project_key: str) -> list[dict]:
        """The summaries, each first folded up to its last row (appends leave that to the worker)."""
        if unfolded := self._read(_unfolded, project_key):
            self.store.write(lambda conn: [_fold_pending(conn, project_key, sid) for sid in unfolded])
        q = sa.select(MIRROR_SUMMARY).where(MIRROR_SUMMARY.c.sdk == SDK, MIRROR_SUMMARY.c.project_key == project_key)
        rows = self._read(lambda conn: conn.execute(q).all())
        return [{"session_id": r.session_id, "mtime": int(r.written * 1000), "data": untrusted.loads(r.data)}
                for r in rows]

    async def delete(self, key) -> None:
        await asyncio.to_thread(self._delete, dict(key))

    def _delete(self, key) -> None:
        with self._behind.showing:
            self.store.write(_delete, key, self._readings)
            main = not key.get("subpath")
            readings = self._readings
            for k in [k for k in readings if k[1:3] == (key["project_key"], key["session_id"])
                      and (main or k[3] == key.get("subpath"))]:
                del readings[k]
            with self._known_lock:
                for k in [k for k in self._known if k[1:3] == (key["project_key"], key["session_id"])]:
                    del self._known[k]

    async def list_subkeys(self, key) -> list[str]:
        q = (sa.select(MIRROR_ENTRY.c.subpath).distinct()
             .where(_where(MIRROR_ENTRY, key, subpath=False), MIRROR_ENTRY.c.subpath != "")
             .order_by(MIRROR_ENTRY.c.subpath))
        return list(await asyncio.to_thread(self._read, lambda conn: conn.execute(q).scalars().all()))

    def _read(self, work, *args):
        with self.store.reader() as conn:
            return work(conn, *args)
