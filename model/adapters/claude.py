"""The Claude Agent SDK's `SessionStore` over a Sessionscope store.

The SDK mirrors every transcript line it writes (`append`), reads a session back to resume or fork
it (`load`), and lists, summarises and deletes through the same object. Each entry is kept verbatim
in `mirror_entry` under the SDK's own key (project, session, subpath), which is what `load` returns;
in the same transaction the Claude Code importer turns it into the session's events, so the session
is browsable, searchable and forkable at once. The session's id is the SDK's session id, the name of
its local transcript too: importing that file later finds the same session and adds nothing twice
(lines are keyed by their uuid). `delete` removes the mirror, as the SDK asks, and is recorded in
the audit log; the session stays in the store, as every session does when its tool deletes it.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from typing import Any

import orjson
import sqlalchemy as sa

from .. import audit, db, untrusted
from ..errors import MissingExtra
from ..schema import MIRROR_ENTRY, MIRROR_SUMMARY

SDK = "claude"
_AGENT = re.compile(r"(?:^|/)agent-([^/]+)$")


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


class _Mirror:
    """What reading a key's lines so far taught the Claude Code importer (its FileContext: the title found,
    the facts last extracted, the tokens counted per message), so that each append goes on from there as a
    file import reading the same lines in one go does, and `last_row`, the newest entry it has read."""

    def __init__(self, key, source_id: int):
        project, session, subpath = key["project_key"], key["session_id"], key.get("subpath") or ""
        from ..sources.claude_code.lines import FileContext
        agent = _AGENT.search(subpath)
        self.ctx = FileContext(file_key=f"{project}/{session}/{subpath}.jsonl" if subpath else f"{project}/{session}.jsonl",
                               file_session=session, agent_id=agent.group(1) if agent else (subpath or None),
                               source_id=source_id)
        self.last_row = 0
        self.unfinished = False  # an append's transaction began and was not seen to commit: read again

    def forget_sent(self) -> None:
        """Drop what was handed to the store (events, this batch's tokens); keep what the next lines need."""
        for st in self.ctx.sessions.values():
            st.events.clear()
            st.info.meta.pop("usage_by_model", None)  # (added up by the store: sent once per line)
        self.ctx.summaries.clear()
        self.ctx.backups.clear()


def _sql(conn, sqlite: str, params: tuple):
    """One small statement with `?` placeholders, on SQLite's own driver (sessionscope.db.driver)."""
    raw = db.driver(conn)
    if raw is not None:
        return raw.execute(sqlite, params)
    return conn.exec_driver_sql(sqlite.replace("?", "%s"), params)


_KEY = "sdk = ? AND project_key = ? AND session_id = ? AND subpath = ?"


def _append(conn, key, entries: list[dict[str, Any]], now: float, mirrors: dict) -> int:
    """Keep the entries not already here (by uuid), fold the summary, build the events; returns how many."""
    from ..sources.claude_code.importer import ingest_converted
    from ..sources.claude_code.lines import convert
    from ..sources.scan import source_row

    project, session, subpath = key["project_key"], key["session_id"], key.get("subpath") or ""
    where = (SDK, project, session, subpath)
    mirror = mirrors.get(where)
    if mirror is None or mirror.unfinished:  # (a retried or failed transaction: read everything again)
        source = source_row(conn, "claude_code", f"claude-agent-sdk://{project}", enabled=False)
        mirror = mirrors[where] = _Mirror(key, source)
    mirror.unfinished = True
    # lines written since this process last read the key (another process, or before it started): read
    # for what they teach (title, facts, tokens), never stored twice
    for row_id, raw in _sql(conn, f"SELECT id, entry FROM mirror_entry WHERE {_KEY} AND id > ? ORDER BY id",
                            (*where, mirror.last_row)).fetchall():
        convert(row_id, raw, untrusted.loaded(raw)[1], mirror.ctx)
        mirror.last_row = row_id
    mirror.forget_sent()

    uuids = [e["uuid"] for e in entries if isinstance(e.get("uuid"), str) and e["uuid"]]
    seen: set[str] = set()  # the batch's uuids already here (the SDK retries a batch that may have landed)
    if uuids and db.driver(conn) is not None:
        seen = {u for (u,) in _sql(conn, f"SELECT uuid FROM mirror_entry WHERE {_KEY} AND uuid IN "
                                         "(SELECT value FROM json_each(?))", (*where, orjson.dumps(uuids).decode()))}
    elif uuids:
        seen = set(conn.execute(sa.select(MIRROR_ENTRY.c.uuid).where(_where(MIRROR_ENTRY, key),
                                                                     MIRROR_ENTRY.c.uuid.in_(uuids))).scalars())
    kept: list[tuple[str | None, str, dict]] = []  # (uuid, the line as stored, the line as shown)
    given: list[dict] = []  # the kept lines as the SDK gave them (what its summary folds)
    for e in entries:
        uid = e["uuid"] if isinstance(e.get("uuid"), str) and e["uuid"] else None
        if uid is not None:
            if uid in seen:
                continue  # the SDK retries a batch that may have landed: idempotent on uuid
            seen.add(uid)
        kept.append((uid, *untrusted.dumped(e)))  # (a lone surrogate kept as the SDK gave it; shown as U+FFFD)
        given.append(e)
    if not kept:
        mirror.unfinished = False
        return 0
    # numbered here, under the store's write lock, so the events of uuid-less lines are named by their row
    first = (_sql(conn, "SELECT max(id) FROM mirror_entry", ()).fetchone()[0] or 0) + 1
    rows = [(first + i, SDK, project, session, subpath, uid, raw, now) for i, (uid, raw, _e) in enumerate(kept)]
    insert = "INSERT INTO mirror_entry (id, sdk, project_key, session_id, subpath, uuid, entry, written) " \
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    if (raw_conn := db.driver(conn)) is not None:
        raw_conn.executemany(insert, rows)
    else:
        conn.exec_driver_sql(insert.replace("?", "%s"), rows)
        conn.execute(sa.text("SELECT setval(pg_get_serial_sequence('mirror_entry', 'id'), :id)"), {"id": rows[-1][0]})
    if not subpath:  # a subagent's lines must not touch the main session's summary
        prev = _sql(conn, "SELECT written, data FROM mirror_summary WHERE sdk = ? AND project_key = ? AND "
                          "session_id = ?", where[:3]).fetchone()
        before = {"session_id": session, "mtime": int(prev[0] * 1000), "data": untrusted.loads(prev[1])} if prev else None
        data = untrusted.dumps(_fold()(before, key, given)["data"])
        if prev:
            _sql(conn, "UPDATE mirror_summary SET written = ?, data = ? WHERE sdk = ? AND project_key = ? AND "
                       "session_id = ?", (now, data, *where[:3]))
        else:
            _sql(conn, "INSERT INTO mirror_summary (sdk, project_key, session_id, written, data) VALUES (?, ?, ?, ?, ?)",
                 (*where[:3], now, data))
    # the browsable session, as if these were the next lines of <project>/<session>.jsonl (or its subagent's)
    for (row_id, *_rest), (_uid, raw, e) in zip(rows, kept):
        convert(row_id, raw, e, mirror.ctx)
    ingest_converted(conn, mirror.ctx, [])
    mirror.forget_sent()
    mirror.last_row = rows[-1][0]
    return len(kept)


def _load(conn, key) -> list[dict] | None:
    rows = conn.execute(sa.select(MIRROR_ENTRY.c.entry).where(_where(MIRROR_ENTRY, key))
                        .order_by(MIRROR_ENTRY.c.id)).scalars().all()
    return [untrusted.loads(r) for r in rows] if rows else None


def _delete(conn, key) -> int:
    main = not key.get("subpath")
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
    threads: the database work runs on a worker thread (the SDK's event loop never waits on it), and
    each append is one write transaction, which also serialises the summary's read-fold-write."""

    def __init__(self, store=None):
        from ..store import Store, open_store
        self._owned = not isinstance(store, Store)
        self.store = open_store(store) if self._owned else store
        self._mirrors: dict[tuple, _Mirror] = {}  # each key's reading so far (see _Mirror)
        self._lock = threading.Lock()  # one append at a time reads and moves a key's _Mirror
        _fold()  # the SDK (already loaded by its user): said at once when it is missing

    def close(self) -> None:
        if self._owned:
            self.store.close()

    async def append(self, key, entries) -> None:
        if entries:
            await asyncio.to_thread(self._append, dict(key), list(entries))

    def _append(self, key, entries) -> None:
        with self._lock:
            self.store.write(_append, key, entries, time.time(), self._mirrors)
            mirror = self._mirrors.get((SDK, key["project_key"], key["session_id"], key.get("subpath") or ""))
            if mirror is not None:
                mirror.unfinished = False  # committed: what it read is stored

    async def load(self, key) -> list[dict] | None:
        return await asyncio.to_thread(self._read, _load, dict(key))

    async def list_sessions(self, project_key: str) -> list[dict]:
        q = (sa.select(MIRROR_ENTRY.c.session_id, sa.func.max(MIRROR_ENTRY.c.written))
             .where(MIRROR_ENTRY.c.sdk == SDK, MIRROR_ENTRY.c.project_key == project_key, MIRROR_ENTRY.c.subpath == "")
             .group_by(MIRROR_ENTRY.c.session_id))
        rows = await asyncio.to_thread(self._read, lambda conn: conn.execute(q).all())
        return [{"session_id": sid, "mtime": int(written * 1000)} for sid, written in rows]

    async def list_session_summaries(self, project_key: str) -> list[dict]:
        q = sa.select(MIRROR_SUMMARY).where(MIRROR_SUMMARY.c.sdk == SDK, MIRROR_SUMMARY.c.project_key == project_key)
        rows = await asyncio.to_thread(self._read, lambda conn: conn.execute(q).all())
        return [{"session_id": r.session_id, "mtime": int(r.written * 1000), "data": untrusted.loads(r.data)}
                for r in rows]

    async def delete(self, key) -> None:
        await asyncio.to_thread(self._delete, dict(key))

    def _delete(self, key) -> None:
        with self._lock:
            self.store.write(_delete, key)
            main = not key.get("subpath")
            for k in [k for k in self._mirrors if k[1:3] == (key["project_key"], key["session_id"])
                      and (main or k[3] == key.get("subpath"))]:
                del self._mirrors[k]

    async def list_subkeys(self, key) -> list[str]:
        q = (sa.select(MIRROR_ENTRY.c.subpath).distinct()
             .where(_where(MIRROR_ENTRY, key, subpath=False), MIRROR_ENTRY.c.subpath != "")
             .order_by(MIRROR_ENTRY.c.subpath))
        return list(await asyncio.to_thread(self._read, lambda conn: conn.execute(q).scalars().all()))

    def _read(self, work, *args):
        with self.store.reader() as conn:
            return work(conn, *args)
