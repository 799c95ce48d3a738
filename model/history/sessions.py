"""Session operations inside a write transaction: create, transition, rewind, fork, delete."""

from __future__ import annotations

import json
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, Refused
from sessionscope.history import lifecycle, reading
from sessionscope.recall import search, semantic
from sessionscope.store import blobs, db, people
from sessionscope.store.ids import new_session_id
from sessionscope.store.schema import (
    CHECKPOINT_BACKUP,
    COMMIT_LINK,
    EVENT,
    EVENT_ALIAS,
    FACT_SNAPSHOT,
    FILE_TOUCH,
    NOTE,
    OUTLINE_CACHE,
    PIN,
    SESSION,
    SOURCE,
    STAR,
    TOOL_CACHE,
    USAGE_CACHE,
    VITALS_CACHE,
)

# Importers rank the titles they find (first prompt 1 … a tool's own custom title 4) and keep the best;
# a rename here ranks with a custom title, so a rescan does not undo it (a newer one set in the tool does).
USER_TITLE_RANK = 4


def native_source_id(conn: Connection) -> int:
    """The `native` source row, created on first use."""
    from sessionscope.safety.team import own_sources
    sid = conn.execute(sa.select(SOURCE.c.id).where(SOURCE.c.kind == "native", SOURCE.c.location == "",
                                                    own_sources(conn))).scalar()
    if sid is None:
        sid = conn.execute(SOURCE.insert().values(kind="native", location="", enabled=True,
                                                  added_at=time.time())).inserted_primary_key[0]
    return sid


def create_session(
    conn: Connection, *, session_id: str | None = None, title: str = "", agent: str = "",
    project: str = "", cwd: str = "", model: str = "", git_branch: str = "",
    meta: dict[str, Any] | None = None, budget: dict[str, Any] | None = None,
    tags: list[str] | None = None, source_id: int | None = None, tool_id: str | None = None,
    status: str = lifecycle.ACTIVE, created_at: float | None = None,
    forked_from_session: str | None = None, forked_from_event: str | None = None,
    head_event_id: str | None = None,
) -> str:
    sid = session_id or new_session_id()
    if db.row(conn, SESSION, id=sid):
        raise InvalidInput(f"session {sid} already exists")
    if status not in lifecycle.STATUSES:
        raise InvalidInput(f"unknown status {status!r}")
    now = time.time() if created_at is None else created_at
    row = dict(  # (every column: an import makes hundreds, through the driver on SQLite)
        id=sid, tool_id=tool_id, source_id=source_id if source_id is not None else native_source_id(conn),
        title=title, project=project, cwd=cwd, git_branch=git_branch, model=model, agent=agent,
        status=status, status_changed_at=now, created_at=now, updated_at=now,
        tokens_in=0, tokens_out=0, event_count=0, last_seq=0, last_hash="",
        tags=json.dumps(sorted(set(tags or []))), meta=json.dumps(meta or {}, default=str),
        budget=json.dumps(budget or {}), head_event_id=head_event_id,
        forked_from_session=forked_from_session, forked_from_event=forked_from_event, imported_by=people.who(),
    )
    try:
        db.insert(conn, SESSION, row)
    except sa.exc.IntegrityError as exc:
        if db.sqlstate(exc) != "23505":
            raise
        # the row check above saw nothing: a team store's rules hide it, another member's (sessionscope.safety.team)
        raise Refused(f"session {sid} is another member's in this team store: only they can add to it") from exc
    return sid


def transition(conn: Connection, session_id: str, action: str) -> tuple[str, str]:
    """Apply a lifecycle action; returns (old status, new status). Archive keeps the status it left, so
    unarchive gives it back (lifecycle.unarchived) instead of every session coming back closed."""
    old = reading.session_status(conn, session_id)
    new = lifecycle.next_status(session_id, old, action)
    values: dict[str, Any] = {}
    if action in ("archive", "unarchive"):
        meta = json.loads(conn.execute(sa.select(SESSION.c.meta).where(SESSION.c.id == session_id)).scalar() or "{}")
        if action == "archive":
            meta["archived_from"] = old
        else:
            new = lifecycle.unarchived(meta.pop("archived_from", None))
        values["meta"] = json.dumps(meta, default=str)
    if new != old:
        values.update(status=new, status_changed_at=time.time())
    if values:
        conn.execute(SESSION.update().where(SESSION.c.id == session_id).values(**values))
    return old, new


def rewind(conn: Connection, session_id: str, event_id: str) -> str | None:
    """Move the head back to `event_id`; returns the previous head."""
    transition(conn, session_id, "rewind")
    reading.check_reachable(conn, session_id, event_id)
    old = conn.execute(sa.select(SESSION.c.head_event_id).where(SESSION.c.id == session_id)).scalar()
    conn.execute(SESSION.update().where(SESSION.c.id == session_id).values(head_event_id=event_id))
    return old


def fork(conn: Connection, session_id: str, event_id: str, title: str | None = None) -> str:
    """A new session whose head is `event_id`: the prefix is referenced, not copied."""
    transition(conn, session_id, "fork")
    reading.check_reachable(conn, session_id, event_id)
    origin = reading.get_session(conn, session_id)
    return create_session(
        conn, title=title if title is not None else f"{origin.title or session_id[:8]} (fork)",
        agent=origin.agent, project=origin.project, cwd=origin.cwd, model=origin.model,
        git_branch=origin.git_branch, meta=origin.meta, budget=origin.budget, tags=list(origin.tags),
        forked_from_session=session_id, forked_from_event=event_id, head_event_id=event_id,
    )


def dependents(conn: Connection, session_id: str) -> list[str]:
    """Other sessions whose history runs through this one's events."""
    child = EVENT.alias("child")
    own = EVENT.alias("own")
    via_events = (
        sa.select(child.c.session_id).join(own, own.c.id == child.c.parent_id)
        .where(own.c.session_id == session_id, child.c.session_id != session_id)
    )
    via_head = (
        sa.select(SESSION.c.id).where(SESSION.c.forked_from_session == session_id, SESSION.c.id != session_id)
    )
    return sorted(set(conn.execute(via_events).scalars()) | set(conn.execute(via_head).scalars()))


def delete(conn: Connection, session_id: str) -> int:
    """Remove a session and its events; returns how many events went."""
    transition(conn, session_id, "delete")
    deps = dependents(conn, session_id)
    if deps:
        raise Refused(
            f"cannot delete session {session_id}: {len(deps)} session(s) fork from it "
            f"({', '.join(d[:8] for d in deps[:5])}); delete or archive those first"
        )
    search.unindex_session(conn, session_id)
    semantic.forget_session(conn, session_id)
    own_ids = sa.select(EVENT.c.id).where(EVENT.c.session_id == session_id)
    conn.execute(FACT_SNAPSHOT.delete().where(FACT_SNAPSHOT.c.event_id.in_(own_ids)))
    n = conn.execute(EVENT.delete().where(EVENT.c.session_id == session_id)).rowcount
    conn.execute(EVENT_ALIAS.delete().where(EVENT_ALIAS.c.session_id == session_id))
    conn.execute(OUTLINE_CACHE.delete().where(OUTLINE_CACHE.c.session_id == session_id))
    conn.execute(USAGE_CACHE.delete().where(USAGE_CACHE.c.session_id == session_id))
    conn.execute(TOOL_CACHE.delete().where(TOOL_CACHE.c.session_id == session_id))
    for derived in (VITALS_CACHE, FILE_TOUCH, COMMIT_LINK):  # the vital signs and blame's index of them
        conn.execute(derived.delete().where(derived.c.session_id == session_id))
    conn.execute(CHECKPOINT_BACKUP.delete().where(CHECKPOINT_BACKUP.c.session_id == session_id))
    conn.execute(STAR.delete().where(STAR.c.session_id == session_id))
    conn.execute(PIN.delete().where(PIN.c.session_id == session_id))
    conn.execute(NOTE.delete().where(NOTE.c.session_id == session_id))
    blobs.collect_garbage(conn)  # its checkpoint backups, unless another session or an undo needs them
    conn.execute(SESSION.delete().where(SESSION.c.id == session_id))
    return n


def star(conn: Connection, session_id: str, on: bool = True) -> bool:
    """Star the session (or take its star away); whether that changed anything."""
    reading.session_status(conn, session_id)
    if not on:
        return conn.execute(STAR.delete().where(STAR.c.session_id == session_id)).rowcount > 0
    if conn.execute(sa.select(STAR.c.session_id).where(STAR.c.session_id == session_id)).first():
        return False
    conn.execute(STAR.insert().values(session_id=session_id, starred_at=time.time()))
    return True


def pin(conn: Connection, session_id: str, event_id: str, on: bool = True) -> bool:
    """Pin an event of the session's history (or take the pin away); whether that changed anything."""
    reading.session_status(conn, session_id)
    if not on:
        return conn.execute(PIN.delete().where(PIN.c.event_id == event_id)).rowcount > 0
    reading.check_reachable(conn, session_id, event_id)
    if conn.execute(sa.select(PIN.c.event_id).where(PIN.c.event_id == event_id)).first():
        return False
    conn.execute(PIN.insert().values(event_id=event_id, session_id=session_id, pinned_at=time.time()))
    return True


def update_fields(conn: Connection, session_id: str, **values: Any) -> None:
    """Rename, retag or re-describe a session (not its events)."""
    reading.session_status(conn, session_id)
    if "title" in values and "meta" not in values:
        # a title the user chose outranks any an importer finds later (sessionscope.store.ingest keeps the better one)
        meta = json.loads(conn.execute(sa.select(SESSION.c.meta).where(SESSION.c.id == session_id)).scalar() or "{}")
        values["meta"] = meta | {"title_rank": USER_TITLE_RANK}
    if "tags" in values:
        values["tags"] = json.dumps(sorted(set(values["tags"])))
    if "meta" in values:
        values["meta"] = json.dumps(values["meta"], default=str)
    conn.execute(SESSION.update().where(SESSION.c.id == session_id).values(**values))
