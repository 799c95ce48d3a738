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

from .errors import InvalidInput, NotFound
from .schema import EVENT, FACT_SNAPSHOT
from .views import FactDiff

FACT_SET, FACT_DELETE = "fact.set", "fact.delete"
FACT_KINDS = (FACT_SET, FACT_DELETE)
SNAPSHOT_EVERY = 200


def fact_payload(kind: str, key: str, value: Any = None) -> dict[str, Any]:
    """The payload of a fact event, validated."""
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
        sa.select(e.c.id, e.c.parent_id, e.c.depth, s.c.facts.label("snap"))
        .outerjoin(s, s.c.event_id == e.c.id).where(e.c.id == event_id)
    )
    up = base.cte("up", recursive=True)
    step = (
        sa.select(e.c.id, e.c.parent_id, e.c.depth, s.c.facts.label("snap"))
        .join(up, e.c.id == up.c.parent_id)
        .outerjoin(s, s.c.event_id == e.c.id)
        .where(up.c.snap.is_(None))
    )
    up = up.union(step)
    is_fact = EVENT.c.kind.in_(FACT_KINDS)
    rows = conn.execute(
        sa.select(up.c.id, up.c.depth, up.c.snap, EVENT.c.kind, sa.case((is_fact, EVENT.c.payload)))
        .join(EVENT, EVENT.c.id == up.c.id)
    ).all()
    if not rows:
        raise NotFound(f"no event with id {event_id!r} in this store")
    rows.sort(key=lambda r: r[1])
    facts: dict[str, Any] = {}
    start = 0
    if rows[0][2] is not None:  # the walk stopped at a snapshot: it already includes its event
        facts = json.loads(rows[0][2])
        start = 1
    new_snapshots: list[tuple[str, str]] = []
    for ev_id, depth, _snap, kind, payload in rows[start:]:
        if payload is not None:
            apply(facts, kind, payload)
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
    if fresh:
        conn.execute(FACT_SNAPSHOT.insert(), fresh)


def diff(a: dict[str, Any], b: dict[str, Any]) -> FactDiff:
    """Keys in b but not a (added), in a but not b (removed), in both but unequal (changed)."""
    return FactDiff(
        added={k: b[k] for k in sorted(b.keys() - a.keys())},
        removed={k: a[k] for k in sorted(a.keys() - b.keys())},
        changed={k: (a[k], b[k]) for k in sorted(a.keys() & b.keys()) if a[k] != b[k]},
    )
