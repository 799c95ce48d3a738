"""The sessions that need you now (#35), across tools, the longest waiting first: each with the agent's last words
(the question it ended on) and what it waits to be allowed to do (the permission its hook says is asked for, or
the tool call left without a result), for the window's Needs You view and its notifications."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from sessionscope.history.read_models import SessionView
from sessionscope.live.states import Live
from sessionscope.live.words import NEEDS_YOU  # noqa: F401 (said here too)
from sessionscope.store.schema import EVENT, plain

SAID_CHARS = 600  # of the agent's last words: enough for its question


@dataclass(frozen=True)
class Waiting:
    session: SessionView
    live: Live
    said: str  # the agent's last message
    pending: str  # what it asks to do (a permission, a tool call), or ""

    @property
    def since(self) -> float:
        return self.live.written


def _last_words(conn, session_id: str) -> str:
    text = conn.execute(sa.select(sa.func.substr(plain(EVENT.c.text), 1, SAID_CHARS)).where(
        EVENT.c.session_id == session_id, EVENT.c.kind == "message", EVENT.c.role == "assistant")
        .order_by(EVENT.c.seq.desc()).limit(1)).scalar()
    return (text or "").strip()


def _pending(conn, session_id: str, live: Live) -> str:
    """The permission asked for (the hook's words), else the newest event when it is a tool call."""
    if live.state == "needs_approval" and ": " in live.why:
        return live.why.split(": ", 1)[1]
    kind, text = conn.execute(sa.select(EVENT.c.kind, sa.func.substr(plain(EVENT.c.text), 1, 300)).where(
        EVENT.c.session_id == session_id).order_by(EVENT.c.seq.desc()).limit(1)).one_or_none() or (None, "")
    return (text or "").strip() if kind == "tool_call" else ""


def _login(conn) -> str:
    return conn.exec_driver_sql("SELECT session_user").scalar() if conn.dialect.name == "postgresql" else ""


def waiting(store, states: dict[str, Live]) -> list[Waiting]:
    """Every session whose state is needs approval or waiting for you, the longest waiting first. In a team store,
    only your own: another member's shared session waits for them, not for you."""
    ids = [sid for sid, st in states.items() if st.state in NEEDS_YOU]
    if not ids:
        return []
    sessions = {s.id: s for s in store.sessions(session_ids=ids, limit=None)}
    out = []
    with store.reader() as conn:
        me = _login(conn)
        for sid in ids:
            s = sessions.get(sid)
            if s is not None and s.owner in ("", me):
                out.append(Waiting(s, states[sid], _last_words(conn, sid), _pending(conn, sid, states[sid])))
    out.sort(key=lambda w: w.since)
    return out
