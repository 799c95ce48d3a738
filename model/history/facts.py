"""Durable facts: the fold of `fact.set` / `fact.delete` events along a path, and diffs.

The facts at event E are the fold of the fact events on the path root→E, across
fork boundaries (the path follows parent_id into the origin session). Snapshots
cache the fold every SNAPSHOT_EVERY levels of depth, so a fold walks at most that
far once they exist; they are derived data, written the first time a walk passes.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, NotFound
from sessionscope.history.read_models import FactDiff
from sessionscope.history.reading import MAX_WALK
from sessionscope.store.schema import EVENT, FACT_SNAPSHOT

FACT_SET, FACT_DELETE = "fact.set", "fact.delete"
FACT_KINDS = (FACT_SET, FACT_DELETE)
SNAPSHOT_EVERY = 200
EXTRACTED = "extracted"  # role of facts an importer attached beside the chain


def fact_payload(kind: str, key: object, value: Any = None) -> dict[str, Any]:
    """The payload of a fact event, validated (`key` as given: checked to be a non-empty string here)."""
    if not isinstance(key, str) or not key:
        raise InvalidInput("a fact needs a non-empty key")
    if kind == FACT_SET:
        return {"key": key, "value": value}
    if kind == FACT_DELETE:
        return {"key": key}
    raise InvalidInput(f"{kind!r} is not a fact event kind")


def apply(facts: dict[str, Any], kind: str, payload: str) -> None:
    """Apply one fact event to `facts` in place; a payload we cannot read is skipped."""
    try:
        body = json.loads(payload)
        key = body["key"]
    except (ValueError, TypeError, KeyError):
        return
    if kind == FACT_SET:
        facts[key] = body.get("value")
    elif kind == FACT_DELETE:
        facts.pop(key, None)


def fold_at(conn: Connection, event_id: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The facts at `event_id`, and snapshots worth storing as (event_id, json).

    Walks up from the event until it meets a snapshot (or the root), then folds
    forward. The caller may store the returned snapshots (see Store.facts_at).
    """
    e = EVENT.alias("e")
    s = FACT_SNAPSHOT.alias("s")
    base = (
        sa.select(e.c.id, e.c.parent_id, e.c.depth, sa.literal(0).label("n"), s.c.facts.label("snap"))
        .outerjoin(s, s.c.event_id == e.c.id).where(e.c.id == event_id)
    )
    up = base.cte("up", recursive=True)
    step = (
        sa.select(e.c.id, e.c.parent_id, e.c.depth, (up.c.n + 1).label("n"), s.c.facts.label("snap"))
        .join(up, e.c.id == up.c.parent_id)
        .outerjoin(s, s.c.event_id == e.c.id)
        .where(up.c.snap.is_(None), up.c.n < MAX_WALK)
    )
    up = up.union_all(step)
    # root first; position = steps from the root, so order never depends on depth estimates
    walked = conn.execute(sa.select(up.c.id, up.c.depth, up.c.snap).order_by(up.c.n.desc())).all()
    if not walked:
        raise NotFound(f"no event with id {event_id!r} in this store")
    on_path = {r[0]: i for i, r in enumerate(walked)}
    # Fact events on the path, and facts an importer attached under a path event
    # (role "extracted": they sit beside the conversation, not in its chain).
    fact_rows = []
    ids = list(on_path)
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for ev_id, parent, kind, payload, seq, role in conn.execute(
            sa.select(EVENT.c.id, EVENT.c.parent_id, EVENT.c.kind, EVENT.c.payload, EVENT.c.seq, EVENT.c.role)
            .where(EVENT.c.kind.in_(FACT_KINDS))
            .where(sa.or_(EVENT.c.id.in_(chunk), sa.and_(EVENT.c.parent_id.in_(chunk), EVENT.c.role == EXTRACTED)))
        ):
            if ev_id in on_path:
                fact_rows.append((on_path[ev_id], 0, seq, ev_id, kind, payload))
            elif role == EXTRACTED:
                fact_rows.append((on_path[parent], 1, seq, parent, kind, payload))
    fact_rows.sort()
    facts: dict[str, Any] = {}
    start = 0
    if walked[0][2] is not None:  # the walk stopped at a snapshot: it includes its event
        facts = json.loads(walked[0][2])
        start = 1
    skip = walked[0][0] if start else None
    pending = iter(fact_rows)
    nxt = next(pending, None)
    new_snapshots: list[tuple[str, str]] = []
    for position, (ev_id, depth, _snap) in enumerate(walked[start:], start):
        while nxt is not None and nxt[0] <= position:
            if nxt[3] != skip:
                apply(facts, nxt[4], nxt[5])
            nxt = next(pending, None)
        if depth % SNAPSHOT_EVERY == 0 and depth > 0:
            new_snapshots.append((ev_id, json.dumps(facts, sort_keys=True)))
    return facts, new_snapshots


def store_snapshots(conn: Connection, snapshots: list[tuple[str, str]]) -> None:
    """Insert snapshots another writer has not stored meanwhile (they are identical)."""
    if not snapshots:
        return
    have = set(conn.execute(
        sa.select(FACT_SNAPSHOT.c.event_id).where(FACT_SNAPSHOT.c.event_id.in_([i for i, _ in snapshots]))
    ).scalars())
    fresh = [{"event_id": i, "facts": f} for i, f in snapshots if i not in have]
    if fresh and conn.dialect.name == "postgresql" and conn.exec_driver_sql(
            "SELECT row_security_active('fact_snapshot')").scalar():  # a team store: of one's own sessions only
        mine = {i for (i,) in conn.exec_driver_sql(
            "SELECT e.id FROM event e JOIN session s ON s.id = e.session_id WHERE e.id = ANY(%s) "
            "AND sessionscope_may_change(s.owner)", ([r["event_id"] for r in fresh],)).all()}
        fresh = [r for r in fresh if r["event_id"] in mine]
    if fresh and conn.dialect.name == "postgresql":
        # (appends to two sessions run at once there, sessionscope.store.db.write_connection: two forks of one
        # origin may store the same origin event's snapshot together)
        from sqlalchemy.dialects.postgresql import insert
        conn.execute(insert(FACT_SNAPSHOT).on_conflict_do_nothing(), fresh)
    elif fresh:
        conn.execute(FACT_SNAPSHOT.insert(), fresh)


def diff(a: dict[str, Any], b: dict[str, Any]) -> FactDiff:
    """Keys in b but not a (added), in a but not b (removed), in both but unequal (changed)."""
    return FactDiff(
        added={k: b[k] for k in sorted(b.keys() - a.keys())},
        removed={k: a[k] for k in sorted(a.keys() - b.keys())},
        changed={k: (a[k], b[k]) for k in sorted(a.keys() & b.keys()) if a[k] != b[k]},
    )
