"""Read queries: sessions, slices of a log, and paths through the event tree."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, NotFound, Refused
from sessionscope.history.lifecycle import ARCHIVED
from sessionscope.history.read_models import EventView, PinView, SessionView
from sessionscope.store import gcpause
from sessionscope.store.schema import EVENT, PIN, SESSION, SOURCE, STAR, plain

_SESSION_COLUMNS = [*SESSION.c, SOURCE.c.kind.label("source_kind"), STAR.c.session_id.is_not(None).label("starred")]
# on PostgreSQL, whether the login may change the session: the server's own test (migration 0020), so the app
# offers what a team store's rules allow (sessionscope.safety.team); SQLite has no logins (`yours` stays True)
_YOURS = sa.func.sessionscope_may_change(SESSION.c.owner).label("yours")
_SESSION_FROM = SESSION.outerjoin(SOURCE, SESSION.c.source_id == SOURCE.c.id).outerjoin(
    STAR, STAR.c.session_id == SESSION.c.id)


def _columns(conn: Connection) -> list:
    return [*_SESSION_COLUMNS, _YOURS] if conn.dialect.name == "postgresql" else _SESSION_COLUMNS

SORT_COLUMNS = {
    "updated": SESSION.c.updated_at,
    "created": SESSION.c.created_at,
    "title": SESSION.c.title,
    "events": SESSION.c.event_count,
    "tokens": SESSION.c.tokens_in + SESSION.c.tokens_out,
    "status": SESSION.c.status,
    "project": SESSION.c.project,
}


def get_session(conn: Connection, session_id: str) -> SessionView:
    row = conn.execute(
        sa.select(*_columns(conn)).select_from(_SESSION_FROM).where(SESSION.c.id == session_id)
    ).first()
    if row is None:
        raise NotFound(f"no session with id {session_id!r} in this store")
    return SessionView.from_row(row)


def same_tool_id(conn, session: SessionView) -> list[SessionView]:
    """Other sessions that carry this one's tool id: an id an SDK's user chose ("user-42") is unique only
    within that SDK, so two SDKs writing into one store may both carry it (`show` says so)."""
    if not session.tool_id:
        return []
    rows = conn.execute(sa.select(*_columns(conn)).select_from(_SESSION_FROM).where(
        SESSION.c.tool_id == session.tool_id, SESSION.c.id != session.id).order_by(SESSION.c.id)).mappings().all()
    return [SessionView.from_row(r) for r in rows]


def session_query(
    *,
    status: str | None = None,
    include_archived: bool = False,
    source_kind: str | None = None,
    project: str | None = None,
    text: str | None = None,
    session_ids: list[str] | None = None,
    person: str | None = None,
    starred: bool = False,
    pinned: bool = False,
    tag: str | None = None,
):
    """The filtered session selection, shared by listing and counting (`session_ids`: only these, as the
    Usage view lists the sessions behind a bar; `starred`: only the starred; `tag`: those carrying that tag)."""
    q = sa.select(*_SESSION_COLUMNS).select_from(_SESSION_FROM)
    if tag:
        # the tags are a JSON list written by json.dumps (sessions.update_fields): a tag is in it exactly when its
        # JSON string is, quotes included ("ui" does not find "build"); the same test in SQLite and PostgreSQL
        q = q.where(SESSION.c.tags.contains(json.dumps(tag.strip()), autoescape=True))
    if starred:
        q = q.where(STAR.c.session_id.is_not(None))
    if pinned:  # sessions with an event pinned
        q = q.where(SESSION.c.id.in_(sa.select(PIN.c.session_id)))
    if status:
        q = q.where(SESSION.c.status == status)
    elif not include_archived:
        q = q.where(SESSION.c.status != ARCHIVED)
    if source_kind:
        q = q.where(sa.func.coalesce(SOURCE.c.kind, "native") == source_kind)
    if project:
        q = q.where(SESSION.c.project == project)
    if person:
        q = q.where(SESSION.c.imported_by == person)
    if session_ids is not None:
        q = q.where(SESSION.c.id.in_(list(session_ids)[:30_000]))  # under SQLite's bound-parameter limit
    if text:
        like = f"%{text.replace('%', '').replace('_', '')}%"
        q = q.where(sa.or_(SESSION.c.title.ilike(like), SESSION.c.id.ilike(like), SESSION.c.project.ilike(like)))
    return q


def session_counts(conn: Connection) -> dict[str, Any]:
    """Counts for the sidebar: by source kind and project (not archived), archived, by person, and starred
    (what Starred lists: the archived ones are under Archived)."""
    kind = sa.func.coalesce(SOURCE.c.kind, "native")
    live = SESSION.c.status != ARCHIVED
    j = SESSION.outerjoin(SOURCE, SESSION.c.source_id == SOURCE.c.id)
    by_source = dict(conn.execute(sa.select(kind, sa.func.count()).select_from(j).where(live).group_by(kind)).all())
    by_project = dict(conn.execute(sa.select(SESSION.c.project, sa.func.count()).where(live, SESSION.c.project != "")
                                   .group_by(SESSION.c.project)).all())
    archived = conn.execute(sa.select(sa.func.count()).where(~live)).scalar_one()
    who = SESSION.c.imported_by
    by_person = dict(conn.execute(sa.select(who, sa.func.count()).where(live).group_by(who)).all())
    starred = conn.execute(sa.select(sa.func.count()).select_from(STAR.join(SESSION, SESSION.c.id == STAR.c.session_id))
                           .where(live)).scalar_one()
    return {"total": sum(by_source.values()), "by_source": by_source, "by_project": by_project, "archived": archived,
            "by_person": by_person, "starred": starred, "by_tag": tag_counts(conn)}


def tag_counts(conn: Connection, *, include_archived: bool = False) -> dict[str, int]:
    """Every tag in use and how many sessions carry it (not archived ones unless asked), most used first: the
    sidebar's Tags and what tag editing completes from. Counted here from the sessions that have tags at all
    (a JSON list per session: no SQL both dialects share unnests it)."""
    q = sa.select(SESSION.c.tags).where(SESSION.c.tags != "[]", SESSION.c.tags != "")
    if not include_archived:
        q = q.where(SESSION.c.status != ARCHIVED)
    counts: dict[str, int] = {}
    for (tags,) in conn.execute(q):
        try:
            for t in set(orjson.loads(tags)):
                if isinstance(t, str) and t:
                    counts[t] = counts.get(t, 0) + 1
        except (orjson.JSONDecodeError, TypeError):
            continue  # a row written by hand: its tags are not a list, and are not counted
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].lower())))


def pins(conn: Connection, session_id: str | None = None) -> list[PinView]:
    """The pinned events, newest pin first; of one session (`session_id`) or of every session."""
    q = (sa.select(PIN.c.event_id, PIN.c.session_id, SESSION.c.title, PIN.c.pinned_at, EVENT.c.kind, EVENT.c.role,
                   EVENT.c.ts, sa.func.substr(plain(EVENT.c.text), 1, 300))
         .join(EVENT, EVENT.c.id == PIN.c.event_id).join(SESSION, SESSION.c.id == PIN.c.session_id)
         .order_by(PIN.c.pinned_at.desc(), PIN.c.event_id))
    if session_id is not None:
        q = q.where(PIN.c.session_id == session_id)
    return [PinView(*row) for row in conn.execute(q).all()]


def list_sessions(
    conn: Connection, *, sort: str = "updated", descending: bool = True,
    limit: int | None = None, offset: int = 0, **filters,
) -> list[SessionView]:
    """Sessions matching `filters`, sorted in SQL (the list can hold 20,000)."""
    if sort not in SORT_COLUMNS:
        raise InvalidInput(f"cannot sort by {sort!r}; use one of {', '.join(SORT_COLUMNS)}")
    if conn.dialect.name == "sqlite":
        # straight from the driver: SQLAlchemy's row objects cost more than the rows themselves
        sql, params = _sqlite_listing(sort, descending, limit, offset, tuple(sorted(
            (k, tuple(v) if isinstance(v, (list, set, frozenset)) else v) for k, v in filters.items())))
        rows = conn.connection.driver_connection.execute(sql, params).fetchall()
        with gcpause.paused():  # hundreds of views and no cycles: no collector pass over the whole heap
            return SessionView.from_tuples(_SESSION_NAMES, rows)
    col = SORT_COLUMNS[sort]
    q = session_query(**filters).add_columns(_YOURS).order_by(col.desc() if descending else col.asc(), SESSION.c.id)
    if limit is not None:
        q = q.limit(limit).offset(offset)
    return [SessionView.from_row(r) for r in conn.execute(q)]


_SESSION_NAMES = [c.name for c in _SESSION_COLUMNS]


@functools.lru_cache(maxsize=64)
def _sqlite_listing(sort: str, descending: bool, limit: int | None, offset: int, filters: tuple) -> tuple[str, tuple]:
    """The listing's SQL for SQLite and its parameters, compiled once for the same filters (the window
    asks again every time the store changes; compiling took a fifth of a 600-session listing)."""
    from sqlalchemy.dialects import sqlite

    col = SORT_COLUMNS[sort]
    q = session_query(**{k: list(v) if isinstance(v, tuple) else v for k, v in filters}).order_by(
        col.desc() if descending else col.asc(), SESSION.c.id)
    if limit is not None:
        q = q.limit(limit).offset(offset)
    compiled = q.compile(dialect=sqlite.dialect(), compile_kwargs={"render_postcompile": True})  # IN (…) lists
    return str(compiled), tuple(compiled.params[k] for k in compiled.positiontup or ())


def session_stamps(conn: Connection) -> list[tuple]:
    """(id, tool id, source kind, updated_at, status, whether its meta names a sync) of every session the listing
    shows by default (not archived), newest first: what the live pass needs of the thousands of sessions it only
    ends by their age (sessionscope.live.states), without making each a SessionView."""
    if conn.dialect.name == "sqlite":  # straight from the driver, as the listing (20,000 rows a pass)
        return conn.connection.driver_connection.execute(_stamps_sql()).fetchall()
    return [tuple(r) for r in conn.execute(_stamps_query())]


@functools.cache
def _stamps_query():
    return session_query().with_only_columns(
        SESSION.c.id, SESSION.c.tool_id, sa.func.coalesce(SOURCE.c.kind, "native"), SESSION.c.updated_at,
        SESSION.c.status, SESSION.c.meta.contains('"synced"', autoescape=True)).order_by(
        SESSION.c.updated_at.desc(), SESSION.c.id)


@functools.cache
def _stamps_sql() -> str:
    from sqlalchemy.dialects import sqlite
    return str(_stamps_query().compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))


def count_sessions(conn: Connection, **filters) -> int:
    q = session_query(**filters).subquery()
    return conn.execute(sa.select(sa.func.count()).select_from(q)).scalar_one()


def get_event(conn: Connection, event_id: str) -> EventView:
    row = conn.execute(sa.select(EVENT).where(EVENT.c.id == event_id)).first()
    if row is None:
        raise NotFound(f"no event with id {event_id!r} in this store")
    return EventView.from_row(row)


def event_slice(
    conn: Connection, session_id: str, *, from_seq: int | None = None, to_seq: int | None = None,
    since: float | None = None, until: float | None = None, limit: int | None = None,
) -> list[EventView]:
    """Events of one session's log in append order, by seq range and/or time range."""
    q = sa.select(EVENT).where(EVENT.c.session_id == session_id)
    if from_seq is not None:
        q = q.where(EVENT.c.seq >= from_seq)
    if to_seq is not None:
        q = q.where(EVENT.c.seq <= to_seq)
    if since is not None:
        q = q.where(EVENT.c.ts >= since)
    if until is not None:
        q = q.where(EVENT.c.ts <= until)
    q = q.order_by(EVENT.c.seq)
    if limit is not None:
        q = q.limit(limit)
    return [EventView.from_row(r) for r in conn.execute(q)]


MAX_WALK = 5_000_000  # a guard: no real path is this long; a cycle in bad data stops here


def ancestors_query(event_id: str, stop_after_kind: str | None = None):
    """Recursive CTE of (id, parent_id, n, kind) from event_id (n=0) up to its root.

    `n` counts steps from the start, so callers order a path by it (not by depth,
    which an importer can only estimate when a parent arrives after its child).
    With `stop_after_kind`, the walk includes the first such event and stops there.
    """
    e = EVENT.alias("e")
    base = sa.select(e.c.id, e.c.parent_id, sa.literal(0).label("n"), e.c.kind).where(e.c.id == event_id)
    up = base.cte("up", recursive=True)
    step = (sa.select(e.c.id, e.c.parent_id, (up.c.n + 1).label("n"), e.c.kind)
            .join(up, e.c.id == up.c.parent_id).where(up.c.n < MAX_WALK))
    if stop_after_kind:
        step = step.where(up.c.kind != stop_after_kind)
    return up.union_all(step)


def path_events(conn: Connection, head: str, stop_after_kind: str | None = None) -> list[EventView]:
    """The events from the root (or the stop event) down to `head`."""
    up = ancestors_query(head, stop_after_kind)
    q = sa.select(EVENT).join(up, EVENT.c.id == up.c.id).order_by(up.c.n.desc())
    return [EventView.from_row(r) for r in conn.execute(q)]


def is_ancestor(conn: Connection, ancestor: str, of: str) -> bool:
    """Whether `ancestor` lies on the path from the root to `of` (inclusive)."""
    up = ancestors_query(of)
    return conn.execute(sa.select(up.c.id).where(up.c.id == ancestor).limit(1)).first() is not None


def iter_session_events(conn: Connection, session_id: str, batch: int = 2000) -> Iterator[dict]:
    """All events of a session as mappings in seq order, fetched in keyset pages."""
    last = 0
    while True:
        rows = conn.execute(
            sa.select(EVENT).where(EVENT.c.session_id == session_id, EVENT.c.seq > last)
            .order_by(EVENT.c.seq).limit(batch)
        ).mappings().all()
        if not rows:
            return
        yield from rows
        last = rows[-1]["seq"]


# Lines that hang beside the conversation without continuing it: never a branch tip themselves.
NOT_TIPS = ("fact.set", "fact.delete", "checkpoint", "progress", "meta", "opaque", "context")


def leaves(conn: Connection, session_id: str) -> list[str]:
    """Events of the session that no conversation event (in any session) hangs under: branch tips."""
    child = EVENT.alias("child")
    q = (
        sa.select(EVENT.c.id)
        .where(EVENT.c.session_id == session_id, EVENT.c.kind.not_in(NOT_TIPS))
        .where(~sa.exists().where(child.c.parent_id == EVENT.c.id, child.c.kind.not_in(NOT_TIPS)))
        .order_by(EVENT.c.seq)
    )
    return list(conn.execute(q).scalars())


def heads_of_big(conn: Connection, session_ids: list[str], min_events: int) -> list[tuple[str, str]]:
    """(id, head event) of the sessions among `session_ids` with a head and at least `min_events` events."""
    return [tuple(r) for i in range(0, len(session_ids), 500) for r in conn.execute(
        sa.select(SESSION.c.id, SESSION.c.head_event_id).where(
            SESSION.c.id.in_(session_ids[i:i + 500]), SESSION.c.event_count >= min_events,
            SESSION.c.head_event_id.is_not(None)))]


def shared_prefix(conn: Connection, s) -> list[tuple]:
    """(id, parent_id, seq, kind, role, text's start) of the path a fork shares with its origin, root first, up
    to its fork point (conversation lines only), numbered before any seq of the fork's own; [] for a session that
    is no fork. One query a session the path crosses (a fork of a fork crosses two)."""
    if not s.forked_from_session or not s.forked_from_event:
        return []
    rows: dict[str, tuple] = {}
    loaded: set[str] = set()
    path, seen, cur = [], set(), s.forked_from_event
    while cur and cur not in seen:  # (a cycle, in a damaged store, ends the walk)
        seen.add(cur)
        if cur not in rows:
            owner = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == cur)).scalar()
            if owner is None or owner in loaded:
                break
            loaded.add(owner)
            rows.update((r[0], r) for r in conn.execute(
                sa.select(EVENT.c.id, EVENT.c.parent_id, EVENT.c.seq, EVENT.c.kind, EVENT.c.role,
                          sa.func.substr(plain(EVENT.c.text), 1, 200), EVENT.c.sidechain)
                .where(EVENT.c.session_id == owner)).all())
            if cur not in rows:
                break
        path.append(rows[cur])
        cur = rows[cur][1]
    path = [r for r in reversed(path) if not r[6] and not r[3].startswith("fact.")]
    return [(r[0], r[1], i - len(path) - 1_000_000_000, r[3], r[4], r[5]) for i, r in enumerate(path)]


def session_status(conn: Connection, session_id: str) -> str:
    """The session's status; NotFound when there is no such session."""
    status = conn.execute(sa.select(SESSION.c.status).where(SESSION.c.id == session_id)).scalar()
    if status is None:
        raise NotFound(f"no session with id {session_id!r} in this store")
    return status


def check_reachable(conn: Connection, session_id: str, event_id: str) -> None:
    """An event a session can move to or fork at: its own, or on its current path."""
    ev_session = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == event_id)).scalar()
    if ev_session is None:
        raise NotFound(f"no event with id {event_id!r} in this store")
    if ev_session == session_id:
        return
    head = conn.execute(sa.select(SESSION.c.head_event_id).where(SESSION.c.id == session_id)).scalar()
    if head is None or not is_ancestor(conn, event_id, head):
        raise Refused(f"event {event_id} belongs to session {ev_session}, not to the history of {session_id}")
