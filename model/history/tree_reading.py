"""Reading a session's branch tree and its branch points out of the store (the Store's `tree` and
`branch_points`); sessionscope.history.tree lays the tree out, this gathers what it lays out."""

from __future__ import annotations

import json

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.history import reading, tree
from sessionscope.store import gcpause
from sessionscope.store.schema import AUDIT, EVENT, SESSION, plain


def session_tree(conn: Connection, session_id: str):
    """The session's branch tree, compressed and laid out in lanes (sessionscope.history.tree.layout)."""
    s = reading.get_session(conn, session_id)
    q = (sa.select(EVENT.c.id, EVENT.c.parent_id, EVENT.c.seq, EVENT.c.kind, EVENT.c.role,
                   sa.func.substr(plain(EVENT.c.text), 1, 200))
         .where(EVENT.c.session_id == session_id, EVENT.c.sidechain.is_(False), EVENT.c.kind.not_like("fact.%"))
         .order_by(EVENT.c.seq))
    rewinds = (AUDIT.c.session_id == session_id) & (AUDIT.c.action == "rewind") & (AUDIT.c.outcome == "ok")
    made_by_rewind = {json.loads(d or "{}").get("new_session")
                      for d in conn.execute(sa.select(AUDIT.c.detail).where(rewinds)).scalars()}
    forks = [tree.Fork(r.forked_from_event, r.id, r.title, "rewind" if r.id in made_by_rewind else "fork")
             for r in conn.execute(sa.select(SESSION.c.id, SESSION.c.title, SESSION.c.forked_from_event)
                                   .where(SESSION.c.forked_from_session == session_id))]
    own = [tree.TreeInput(*r) for r in conn.execute(q)]
    # a fork's tree starts with the history it shares (referenced, not copied: else a fork's tree is blank)
    shared = [tree.TreeInput(*r) for r in reading.shared_prefix(conn, s)]
    rows, forks = tree.through_hidden(shared + own, forks)
    rewound = frozenset(conn.execute(sa.select(AUDIT.c.event_id).where(rewinds, AUDIT.c.event_id.is_not(None))).scalars())
    laid = tree.layout(rows, s.head_event_id, forks, rewound)
    gcpause.let_go(rows, own, shared)  # (a 200,000-event tree's rows: not freed at once as we return)
    return laid


def branch_points(conn: Connection, session_ids: list[str]) -> dict[str, list[str]]:
    """Where other branches leave these sessions' trees: {event id: notes}. A rewind shows as two user
    prompts under one event; a fork as a session forked there."""
    marks: dict[str, list[str]] = {}
    for parent, n in conn.execute(
            sa.select(EVENT.c.parent_id, sa.func.count()).where(
                EVENT.c.session_id.in_(session_ids), EVENT.c.kind == "message", EVENT.c.role == "user",
                EVENT.c.sidechain.is_(False), EVENT.c.parent_id.is_not(None))
            .group_by(EVENT.c.parent_id).having(sa.func.count() > 1)):
        marks.setdefault(parent, []).append(f"branch point: {n} branches continue from here")
    for sid, title, at in conn.execute(sa.select(SESSION.c.id, SESSION.c.title, SESSION.c.forked_from_event)
                                       .where(SESSION.c.forked_from_session.in_(session_ids))):
        marks.setdefault(at, []).append(f"forked into “{title or sid[:8]}” ({sid[:8]})")
    return marks
