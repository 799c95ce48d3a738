"""Reading a damaged store: what `verify` reports of a session it cannot read, and how a row read again with
its bad bytes replaced is marked (sessionscope.store.api reads through these; `repair` rebuilds the file)."""

from __future__ import annotations

import dataclasses
import sqlite3

import sqlalchemy as sa
import zstandard
from sqlalchemy.engine import Connection

from sessionscope.history import reading
from sessionscope.history.read_models import ChainReport, SessionView
from sessionscope.store import chain, db
from sessionscope.store.schema import EVENT, SESSION

# what reading a damaged row raises: a page that cannot be read, text that is not UTF-8, a payload that no longer
# decompresses (or whose damaged header claims a size no machine has)
DAMAGE = (sa.exc.DatabaseError, sqlite3.DatabaseError, zstandard.ZstdError, ValueError, LookupError, MemoryError)


def marked(s: SessionView) -> SessionView:
    """A session read again with bytes replaced says so in its title where they were replaced."""
    if "\ufffd" in (s.title or "") or "\ufffd" in (s.id or ""):
        return dataclasses.replace(s, title=db.DAMAGED_MARK + (s.title or ""))
    return s


def verify_session(store, session_id: str) -> ChainReport:
    """One session's chain, in a read of its own (a damaged page fails that session only)."""
    try:
        with store.reader() as conn:
            expected = conn.execute(SESSION.select().with_only_columns(SESSION.c.last_hash)
                                    .where(SESSION.c.id == session_id)).scalar()
            reading.get_session(conn, session_id)
            checked, broken, reason = chain.first_break(reading.iter_session_events(conn, session_id), expected)
    except DAMAGE as exc:
        try:
            with store.reader() as conn:
                return _unreadable(conn, session_id, exc)
        except DAMAGE:
            return ChainReport(session_id, 0, False, None, None, "damaged: its rows cannot be read")
    return ChainReport(session_id, checked, broken is None, broken["id"] if broken else None,
                       broken["seq"] if broken else None, reason)


def _unreadable(conn: Connection, session_id: str, exc: BaseException) -> ChainReport:
    """The report of a session whose rows cannot be read: the first event (by seq) that cannot, or the
    session's own row."""
    why = " ".join(str(getattr(exc, "orig", None) or exc).split())[:200]
    checked = 0
    try:
        seqs = conn.execute(sa.select(EVENT.c.seq, EVENT.c.id).where(EVENT.c.session_id == session_id)
                            .order_by(EVENT.c.seq)).all()
    except Exception:
        return ChainReport(session_id, 0, False, None, None, f"damaged: its events cannot be listed ({why})")
    for seq, event_id in seqs:
        try:
            conn.execute(sa.select(EVENT).where(EVENT.c.session_id == session_id, EVENT.c.seq == seq)).mappings().one()
        except Exception as inner:
            detail = " ".join(str(getattr(inner, "orig", None) or inner).split())[:200]
            return ChainReport(session_id, checked, False, event_id, seq, f"damaged: this event cannot be read ({detail})")
        checked += 1
    return ChainReport(session_id, checked, False, None, None, f"damaged: the session's own row cannot be read ({why})")
