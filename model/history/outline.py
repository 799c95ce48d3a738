"""The head branch of a session, kept ready: the outline cache.

Walking a branch means reading every event of the session (200,000 rows take
seconds in Python), but the timeline, exports and resume all start from the
session's head branch. So the walk's result for the head is stored, keyed by the
head and the session's last seq: any new event or a moved head makes it stale,
and the next reader walks again and stores the new result. Importers warm it
for the sessions they touched (sessionscope.store.api.Store.warm), so a session opens from
one row. Any other branch is walked on demand.

The cache holds the full walk (every kind, subagent runs included); a reader's
choice of kinds and subagents is a filter over it, which keeps the order the
walk gives (skipping never moves what is shown).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.history.branch import Outline, walk_entries
from sessionscope.store.schema import EVENT, OUTLINE_CACHE, SESSION

FORMAT = 2  # 2: subagent runs that name no spawner are kept, where they were written


def _encode(entries: list[tuple]) -> bytes:
    """Columns, not rows: ids joined by newlines, one character a kind, one a sidechain
    flag, and the turns' tokens summed both ways (with and without subagent runs); a
    reader splits strings in C instead of parsing 200,000 lines in Python."""
    vocab: dict[str, str] = {}
    kinds, side = [], []
    turns_all: dict[str, int] = {}
    turns_main: dict[str, int] = {}
    current = None
    for event_id, kind, role, tokens, sidechain in entries:
        kinds.append(vocab.setdefault(kind, chr(48 + len(vocab))))
        side.append("1" if sidechain else "0")
        if kind == "message" and role == "user" and not sidechain:
            current = event_id
            turns_all[current] = turns_main[current] = 0
        if current is not None and tokens:
            turns_all[current] += tokens
            if not sidechain:
                turns_main[current] += tokens
    position = {e[0]: i for i, e in enumerate(entries) if e[0] in turns_all}
    body = {"format": FORMAT, "ids": "\n".join(e[0] for e in entries), "kinds": "".join(kinds),
            "vocab": sorted(vocab, key=vocab.get), "side": "".join(side),
            # parallel int arrays parse far faster than a dict keyed by ids
            "turn_at": [position[p] for p in turns_all], "turn_all": list(turns_all.values()),
            "turn_main": list(turns_main.values())}
    return orjson.dumps(body)  # uncompressed: zlib costs more to undo than the bytes cost to read


@dataclass(frozen=True)
class Entries:
    """A decoded walk: parallel columns."""

    ids: list[str]
    kinds: list[str]
    side: str  # "0"/"1" a row
    turns_all: dict[str, int]
    turns_main: dict[str, int]


def _decode(blob: bytes) -> Entries | None:
    """The cached walk, or None for a row this code cannot read (then it is walked again)."""
    try:
        body = orjson.loads(blob)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        return None
    ids = body["ids"].split("\n") if body["ids"] else []
    by_code = {chr(48 + i): sys.intern(k) for i, k in enumerate(body["vocab"])}
    kinds = list(map(by_code.__getitem__, body["kinds"]))  # (one lookup a row: half the time of two)
    prompts = [ids[i] for i in body["turn_at"]]
    return Entries(ids, kinds, body["side"], dict(zip(prompts, body["turn_all"])),
                   dict(zip(prompts, body["turn_main"])))


def _from_walk(entries: list[tuple]) -> Entries:
    return _decode(_encode(entries))


def cached_entries(conn: Connection, session_id: str, head: str, last_seq: int) -> Entries | None:
    if conn.dialect.name == "postgresql":
        # in PostgreSQL's binary form: as text, a 200,000-event branch's 7 MB come as 15 MB of hex to decode
        # (90 ms of the 150 a first page took; 20 ms so)
        row = conn.connection.driver_connection.execute(
            "SELECT head_event_id, last_seq, entries FROM outline_cache WHERE session_id = %s", (session_id,),
            binary=True).fetchone()
        if row is None or row[0] != head or row[1] != last_seq:
            return None
        return _decode(bytes(row[2]))
    row = conn.execute(sa.select(OUTLINE_CACHE.c.head_event_id, OUTLINE_CACHE.c.last_seq, OUTLINE_CACHE.c.entries)
                       .where(OUTLINE_CACHE.c.session_id == session_id)).first()
    if row is None or row.head_event_id != head or row.last_seq != last_seq:
        return None
    return _decode(row.entries)


def store_entries(conn: Connection, session_id: str, head: str, last_seq: int, blob: bytes) -> None:
    """Record the walk, unless the session moved on while it ran (then it would be stale at once)."""
    now = conn.execute(sa.select(SESSION.c.head_event_id, SESSION.c.last_seq).where(SESSION.c.id == session_id)).first()
    if now is None or now.head_event_id != head or now.last_seq != last_seq:
        return
    from sessionscope.safety.team import changeable
    if not changeable(conn, [session_id]):  # another member's session, read on a team store: not kept
        return
    conn.execute(OUTLINE_CACHE.delete().where(OUTLINE_CACHE.c.session_id == session_id))
    conn.execute(OUTLINE_CACHE.insert().values(session_id=session_id, head_event_id=head, last_seq=last_seq,
                                               entries=blob))


def head_entries(conn: Connection, session_id: str) -> tuple[Entries, tuple[str, int, bytes] | None]:
    """(the head branch, and (head, last seq, encoded) to store when it was walked now;
    None when it came from the cache)."""
    s = conn.execute(sa.select(SESSION.c.head_event_id, SESSION.c.last_seq).where(SESSION.c.id == session_id)).first()
    if s is None:
        return Entries([], [], "", {}, {}), None
    # a session of subagent work alone (a subagent file kept without its parent) has no head of its
    # own: its newest event stands in, and the walk gives its runs
    head = s.head_event_id or conn.execute(
        sa.select(EVENT.c.id).where(EVENT.c.session_id == session_id, ~EVENT.c.kind.startswith("fact."))
        .order_by(EVENT.c.seq.desc()).limit(1)).scalar()
    if head is None:
        return Entries([], [], "", {}, {}), None
    cached = cached_entries(conn, session_id, head, s.last_seq)
    if cached is not None:
        return cached, None
    # a fork whose head is still its fork point holds its origin up to that point, not what the
    # origin wrote after it (as for every session a branch crosses into: sessionscope.history.branch)
    owner = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == head)).scalar()
    blob = _encode(walk_entries(conn, head, ending_at_head=owner != session_id))
    return _decode(blob), (head, s.last_seq, blob)


def walked(conn: Connection, head: str, ending_at_head: bool = True) -> Entries:
    """Any branch, walked now (not cached); by default the branch up to `head`, which ends there."""
    return _from_walk(walk_entries(conn, head, ending_at_head))


def shape(e: Entries, skip_kinds: tuple[str, ...] = (), include_subagents: bool = False) -> Outline:
    """The outline a reader asked for, from the full walk."""
    turns = e.turns_all if include_subagents else e.turns_main
    skip = set(skip_kinds) & set(e.kinds) if skip_kinds else set()
    if not skip and (include_subagents or "1" not in e.side):
        flags = [False] * len(e.side) if "1" not in e.side else [c == "1" for c in e.side]  # (most have no subagent)
        return Outline(e.ids, e.kinds, turns, flags)
    keep = [i for i, (k, c) in enumerate(zip(e.kinds, e.side)) if k not in skip and (include_subagents or c == "0")]
    kinds = [e.kinds[i] for i in keep]
    return Outline([e.ids[i] for i in keep], kinds, turns, [e.side[i] == "1" for i in keep])
