"""What the agents' hooks said (#35): the signals `sessionscope hook` keeps, read as the exact turn of a session
(sessionscope.live.states), and the spool of those the store could not take at once brought in.

A hook's event says what its transcript can only suggest: a permission prompt is open (PermissionRequest, or a
Notification of that kind), the turn ended (Stop, AfterAgent, Codex's agent-turn-complete), the session was
closed (SessionEnd). Claude Code and Codex share their event names; Gemini CLI has its own.
"""

from __future__ import annotations

import glob
import json
import os
import time
from dataclasses import dataclass

import sqlalchemy as sa

from sessionscope.live import hook
from sessionscope.live.turns import Turn
from sessionscope.store import db
from sessionscope.store.schema import LIVE_SIGNAL

KEEP_S = 7 * 86400.0  # a signal older than this says nothing of a session's state any more
PRUNE_S = 3600.0  # how often a process forgets the old ones (a drain runs every few seconds in the app)
_pruned: dict[str, float] = {}  # store URL → when this process last forgot the old signals

APPROVAL = {"PermissionRequest", "Notification/permission_prompt", "Notification/ToolPermission"}
ENDED = {"Stop", "AfterAgent", "agent-turn-complete", "Notification/idle_prompt"}
WORKING = {"UserPromptSubmit", "BeforeAgent", "PreToolUse", "PostToolUse", "PostToolUseFailure", "BeforeTool",
           "AfterTool", "SubagentStop", "PreCompact", "PreCompress", "BeforeModel", "AfterModel"}


@dataclass(frozen=True)
class Signal:
    event: str
    detail: str
    ts: float
    pid: int | None

    def turn(self) -> Turn | None:
        """The turn this signal says the session is at, or None when it says nothing of it."""
        said = f": {self.detail}" if self.detail else ""
        if self.event in APPROVAL:
            return Turn("approval", f"a permission prompt is open{said}", exact=True)
        if self.event in ENDED:
            return Turn("ended", "the turn ended (its hook said so)", exact=True)
        if self.event == "StopFailure":
            return Turn("ended", f"the turn stopped on an error{said}", exact=True)
        if self.event == "SessionEnd":
            return Turn("closed", f"the session ended ({self.detail or 'its hook said so'})", exact=True)
        if self.event == "SessionStart":
            return Turn("ended", "the session started and waits for a prompt", exact=True)
        if self.event in WORKING:
            return Turn("answering", f"working{said}" if self.event not in ("UserPromptSubmit", "BeforeAgent")
                        else "your prompt was sent", exact=True)
        return None


def latest(conn, since: float) -> dict[tuple[str, str], Signal]:
    """{(source kind, the tool's session id): its newest signal} of the signals newer than `since`."""
    rows = conn.execute(sa.select(LIVE_SIGNAL.c.tool, LIVE_SIGNAL.c.tool_session, LIVE_SIGNAL.c.event,
                                  LIVE_SIGNAL.c.detail, LIVE_SIGNAL.c.ts, LIVE_SIGNAL.c.pid)
                        .where(LIVE_SIGNAL.c.ts >= since)).all()
    return {(tool, sid): Signal(event, detail or "", ts, pid) for tool, sid, event, detail, ts, pid in rows}


def mark(store) -> tuple:
    """What changes whenever a hook speaks: the newest signal's time, how many there are, and whether any wait
    in the spool (the app looks every second, and decides the states again only when this moved)."""
    with store.reader() as conn:
        newest, count = conn.execute(sa.select(sa.func.max(LIVE_SIGNAL.c.ts), sa.func.count())).one()
    return newest, count, os.path.exists(hook.spool_file(store.url))


def spoken_since(store, since: float) -> set[str]:
    """The sessions (our ids) whose tool's hook spoke after `since`: the ones whose state a new signal may move."""
    from sessionscope.store.schema import SESSION, SOURCE
    with store.reader() as conn:
        said = conn.execute(sa.select(LIVE_SIGNAL.c.tool, LIVE_SIGNAL.c.tool_session)
                            .where(LIVE_SIGNAL.c.ts > since)).all()
        if not said:
            return set()
        keys = {sid for _tool, sid in said}
        rows = conn.execute(sa.select(SESSION.c.id, SESSION.c.tool_id, SOURCE.c.kind)
                            .select_from(SESSION.join(SOURCE, SESSION.c.source_id == SOURCE.c.id))
                            .where(sa.or_(SESSION.c.tool_id.in_(keys), SESSION.c.id.in_(keys)))).all()
    wanted = set(said)
    return {sid for sid, tool_id, kind in rows if (kind, tool_id or sid) in wanted}


def _upsert(conn, rows: list[dict]) -> None:
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    stmt = insert(LIVE_SIGNAL)
    stmt = stmt.on_conflict_do_update(
        index_elements=["tool", "tool_session"],
        set_={c: stmt.excluded[c] for c in ("event", "detail", "ts", "pid")},
        where=stmt.excluded.ts >= LIVE_SIGNAL.c.ts)
    for row in rows:  # one by one: two of one session in a batch would trouble PostgreSQL's ON CONFLICT
        conn.execute(stmt, row)


def record(store, tool: str, tool_session: str, event: str, detail: str = "", ts: float | None = None,
           pid: int | None = None) -> None:
    """Keep a signal (as `sessionscope hook` does, through the store)."""
    row = {"tool": tool, "tool_session": tool_session, "event": event, "detail": detail[:hook.DETAIL],
           "ts": time.time() if ts is None else ts, "pid": pid}
    store.write(_upsert, [row])


def _row(line: bytes) -> dict | None:
    try:
        tool, sid, event, detail, ts, pid = json.loads(line)
    except (ValueError, TypeError):
        return None
    if not all(isinstance(v, str) for v in (tool, sid, event, detail)) or not isinstance(ts, (int, float)):
        return None
    return {"tool": tool[:40], "tool_session": sid[:200], "event": event[:60], "detail": detail[:hook.DETAIL],
            "ts": float(ts), "pid": pid if isinstance(pid, int) else None}


def drain(store) -> int:
    """Bring in the signals the hook spooled while the store could not take them (locked, not made yet, a
    database server), and forget those too old to matter. The spool is renamed first, so a hook writes a new one
    meanwhile; a drain cut short leaves its renamed file for the next. Returns how many were brought in."""
    path = hook.spool_file(store.url)
    taken = f"{path}.{os.getpid()}.draining"
    try:
        os.replace(path, taken)
    except OSError:
        pass  # none waiting (or another drain has it)
    rows: list[dict] = []
    files = sorted(glob.glob(glob.escape(path) + ".*.draining"))
    for f in files:
        try:
            fd = os.open(f, os.O_RDONLY)
        except OSError:
            continue
        try:
            hook._lock(fd)  # a hook that opened the spool before the rename finishes its line first
            with os.fdopen(os.dup(fd), "rb") as lines:
                rows += [r for r in map(_row, lines) if r is not None]
        finally:
            os.close(fd)
    now = time.time()
    old, prune = now - KEEP_S, now - _pruned.get(store.url, 0.0) >= PRUNE_S

    def work(conn) -> None:
        _upsert(conn, [r for r in rows if r["ts"] >= old])
        if prune:
            conn.execute(LIVE_SIGNAL.delete().where(LIVE_SIGNAL.c.ts < old))
    if rows or prune:  # (beside other sessions' writers on PostgreSQL: an import waits for none of them here)
        store.write_beside([db.LIVE_SIGNALS_LOCK], work)
        _pruned[store.url] = now if prune else _pruned.get(store.url, 0.0)
    for f in files:
        try:
            os.remove(f)
        except OSError:
            pass
    return len(rows)
