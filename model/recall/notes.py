"""Notes (#33): Markdown the user writes on a session or on one of its events, the user's own durable facts.

Kept in a table of their own (`note`), never in the rows importers write, so a rescan that rewrites the
tool's file, an archive or a write-back leaves them as they are; found by search with everything else
(their own kind, "note"), written by the exports and carried by our JSONL. Edited and removed through
`sessionscope.ops`, so each change is in the audit log.
"""

from __future__ import annotations

import time
import uuid

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, NotFound
from sessionscope.history import reading
from sessionscope.history.read_models import NoteView, SearchHit
from sessionscope.recall import semantic
from sessionscope.recall.fts import matching_rows, note_hit
from sessionscope.store.schema import EVENT, NOTE, SESSION

MAX_TEXT = 65_536  # characters: a note is prose, not a pasted log


def _text(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise InvalidInput("the note is empty")
    if len(text) > MAX_TEXT:
        raise InvalidInput(f"the note is {len(text):,} characters long; a note holds {MAX_TEXT:,} at most")
    return text


def _view(row) -> NoteView:
    return NoteView(row.id, row.session_id, row.event_id, row.text, row.created_at, row.updated_at,
                    getattr(row, "title", "") or "", row.generated_by)


def _select():
    return sa.select(*NOTE.c, SESSION.c.title).join(SESSION, SESSION.c.id == NOTE.c.session_id)


def get(conn: Connection, note_id: str) -> NoteView:
    row = conn.execute(_select().where(NOTE.c.id == note_id)).first()
    if row is None:
        raise NotFound(f"no note with id {note_id!r} in this store")
    return _view(row)


def resolve(conn: Connection, key: str) -> str:
    """The full id of a note, from it or an unambiguous prefix of it (at least 4 characters)."""
    key = (key or "").strip()
    if len(key) < 4:
        raise InvalidInput(f"note id {key!r} is too short: give at least 4 characters of it")
    found = conn.execute(sa.select(NOTE.c.id).where(NOTE.c.id >= key, NOTE.c.id < key + "\uffff").limit(2)).scalars().all()
    if len(found) > 1 and key not in found:
        raise InvalidInput(f"note id {key!r} is ambiguous: give more characters")
    if not found:
        raise NotFound(f"no note with id {key!r} in this store")
    return key if key in found else found[0]


def add(conn: Connection, session_id: str, text: str, event_id: str | None = None,
        generated_by: str | None = None) -> NoteView:
    """A new note on the session, or on `event_id` of its history (`generated_by`: the model that wrote it)."""
    reading.session_status(conn, session_id)
    if event_id is not None:
        reading.check_reachable(conn, session_id, event_id)
    now = time.time()
    note_id = str(uuid.uuid4())
    conn.execute(NOTE.insert().values(id=note_id, session_id=session_id, event_id=event_id, text=_text(text),
                                      created_at=now, updated_at=now, generated_by=generated_by))
    return get(conn, note_id)


def edit(conn: Connection, note_id: str, text: str) -> NoteView:
    get(conn, note_id)
    semantic.forget_note(conn, note_id)  # embedded again as it now reads
    conn.execute(NOTE.update().where(NOTE.c.id == note_id).values(text=_text(text), updated_at=time.time()))
    return get(conn, note_id)


def remove(conn: Connection, note_id: str) -> NoteView:
    gone = get(conn, note_id)
    semantic.forget_note(conn, note_id)
    conn.execute(NOTE.delete().where(NOTE.c.id == note_id))
    return gone


def of(conn: Connection, session_id: str | None = None) -> list[NoteView]:
    """One session's notes in the order of its history (the session's own first), or every note, newest
    first."""
    q = _select()
    if session_id is None:
        return [_view(r) for r in conn.execute(q.order_by(NOTE.c.updated_at.desc(), NOTE.c.id))]
    q = (q.add_columns(EVENT.c.seq).outerjoin(EVENT, EVENT.c.id == NOTE.c.event_id)
         .where(NOTE.c.session_id == session_id)
         .order_by(sa.func.coalesce(EVENT.c.seq, -1), NOTE.c.created_at, NOTE.c.id))
    return [_view(r) for r in conn.execute(q)]


def matching(conn: Connection, q, limit: int) -> list[SearchHit]:
    """The notes a parsed search (sessionscope.recall.query.Query) finds, newest first, as hits of their own kind:
    every group of words (one of its terms, case-insensitive), none of the words left out, within the
    session, project, source and time the query names. A query for events of a kind, a tool, an error or a
    pin finds no note. Notes are written by hand, so few: matched here, on every engine."""
    if conn.dialect.name == "sqlite":  # (the quick reader's plain SQL: the same notes whichever asks)
        from sessionscope.recall import fts
        return fts.notes(lambda sql, params: conn.exec_driver_sql(sql, tuple(params)).all(), q, limit)
    stmt = _filtered(q)
    if stmt is None:
        return []
    return matching_rows(conn.execute(stmt), q, limit)


def among(conn: Connection, q, note_ids: list[str]) -> list[SearchHit]:
    """Of these notes (search by meaning found them, nearest first), those within the query's filters and
    without its left-out words, in the same order."""
    stmt = _filtered(q)
    if stmt is None or not note_ids:
        return []
    rows = {r[0]: r for r in conn.execute(stmt.where(NOTE.c.id.in_(note_ids)))}
    return [note_hit(r, " ".join(r[3].split())[:80], match="meaning") for nid in note_ids if (r := rows.get(nid))
            and not any(t.text.lower() in " ".join(r[3].lower().split()) for t in q.excluded)]


def _filtered(q):
    """The notes within the query's session, project, source, time and star filters (None: none can match)."""
    from sessionscope.recall.query import moment
    from sessionscope.store.schema import SOURCE, STAR
    if any(f in ("kind", "tool", "has") or (f == "is" and v == "pinned") for f, v, n in q.filters if not n):
        return None
    stmt = (sa.select(NOTE.c.id, NOTE.c.session_id, NOTE.c.event_id, NOTE.c.text, NOTE.c.updated_at, SESSION.c.title,
                      EVENT.c.seq)
            .join(SESSION, SESSION.c.id == NOTE.c.session_id).outerjoin(EVENT, EVENT.c.id == NOTE.c.event_id)
            .outerjoin(SOURCE, SESSION.c.source_id == SOURCE.c.id).order_by(NOTE.c.updated_at.desc()))
    for name, value, negated in q.filters:
        cond = {"session": lambda: NOTE.c.session_id.startswith(value, autoescape=True),
                "project": lambda: SESSION.c.project.ilike("%" + value.replace("%", "").replace("_", "") + "%"),
                "source": lambda: sa.func.coalesce(SOURCE.c.kind, "native") == value,
                "since": lambda: NOTE.c.updated_at >= moment(value),
                "until": lambda: NOTE.c.updated_at < moment(value, end_of_day=True),
                "is": lambda: NOTE.c.session_id.in_(sa.select(STAR.c.session_id))}.get(
            name if name != "is" or value == "starred" else "")  # (-is:pinned leaves every note: none is a pin)
        if cond is not None:
            stmt = stmt.where(sa.not_(cond()) if negated else cond())
    return stmt
