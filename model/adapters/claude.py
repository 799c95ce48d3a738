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
import time
from typing import Any

import orjson
import sqlalchemy as sa

from .. import audit
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


def _append(conn, key, entries: list[dict[str, Any]], now: float) -> int:
    """Keep the entries not already here (by uuid), fold the summary, build the events; returns how many."""
    from ..sources.claude_code.importer import ingest_converted
    from ..sources.claude_code.lines import FileContext, convert
    from ..sources.scan import source_row

    project, session, subpath = key["project_key"], key["session_id"], key.get("subpath") or ""
    uuids = [e["uuid"] for e in entries if isinstance(e.get("uuid"), str) and e["uuid"]]
    seen = set(conn.execute(sa.select(MIRROR_ENTRY.c.uuid).where(_where(MIRROR_ENTRY, key),
                                                                 MIRROR_ENTRY.c.uuid.in_(uuids))).scalars()) \
        if uuids else set()
    kept: list[tuple[int, str, dict]] = []
    for e in entries:
        uid = e["uuid"] if isinstance(e.get("uuid"), str) and e["uuid"] else None
        if uid is not None:
            if uid in seen:
                continue  # the SDK retries a batch that may have landed: idempotent on uuid
            seen.add(uid)
        raw = orjson.dumps(e).decode()
        row_id = conn.execute(MIRROR_ENTRY.insert().values(
            sdk=SDK, project_key=project, session_id=session, subpath=subpath, uuid=uid, entry=raw,
            written=now)).inserted_primary_key[0]
        kept.append((row_id, raw, e))
    if not kept:
        return 0
    if not subpath:  # a subagent's lines must not touch the main session's summary
        prev = conn.execute(sa.select(MIRROR_SUMMARY).where(_where(MIRROR_SUMMARY, key, subpath=False))).first()
        before = {"session_id": session, "mtime": int(prev.written * 1000), "data": orjson.loads(prev.data)} \
            if prev else None
        folded = _fold()(before, key, [e for _, _, e in kept])
        data = orjson.dumps(folded["data"]).decode()
        if prev:
            conn.execute(MIRROR_SUMMARY.update().where(_where(MIRROR_SUMMARY, key, subpath=False))
                         .values(written=now, data=data))
        else:
            conn.execute(MIRROR_SUMMARY.insert().values(sdk=SDK, project_key=project, session_id=session,
                                                        written=now, data=data))
    # the browsable session, as if these were the lines of <project>/<session>.jsonl (or its subagent's file)
    agent = _AGENT.search(subpath)
    ctx = FileContext(file_key=f"{project}/{session}/{subpath}.jsonl" if subpath else f"{project}/{session}.jsonl",
                      file_session=session, agent_id=agent.group(1) if agent else (subpath or None),
                      source_id=source_row(conn, "claude_code", f"claude-agent-sdk://{project}", enabled=False))
    for row_id, raw, e in kept:
        convert(row_id, raw, e, ctx)
    ingest_converted(conn, ctx, [])
    return len(kept)


def _load(conn, key) -> list[dict] | None:
    rows = conn.execute(sa.select(MIRROR_ENTRY.c.entry).where(_where(MIRROR_ENTRY, key))
                        .order_by(MIRROR_ENTRY.c.id)).scalars().all()
    return [orjson.loads(r) for r in rows] if rows else None


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

    def close(self) -> None:
        if self._owned:
            self.store.close()

    async def append(self, key, entries) -> None:
        if entries:
            await asyncio.to_thread(self.store.write, _append, dict(key), list(entries), time.time())

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
        return [{"session_id": r.session_id, "mtime": int(r.written * 1000), "data": orjson.loads(r.data)}
                for r in rows]

    async def delete(self, key) -> None:
        await asyncio.to_thread(self.store.write, _delete, dict(key))

    async def list_subkeys(self, key) -> list[str]:
        q = (sa.select(MIRROR_ENTRY.c.subpath).distinct()
             .where(_where(MIRROR_ENTRY, key, subpath=False), MIRROR_ENTRY.c.subpath != "")
             .order_by(MIRROR_ENTRY.c.subpath))
        return list(await asyncio.to_thread(self._read, lambda conn: conn.execute(q).scalars().all()))

    def _read(self, work, *args):
        with self.store.reader() as conn:
            return work(conn, *args)
