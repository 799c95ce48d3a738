"""Identifiers: new session ids, deterministic event ids, prefix resolution."""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, NotFound
from sessionscope.store.incoming import name_id

_NATIVE_NS = uuid.UUID("6f1d3a52-8c1b-4a57-9d0e-5e55105c09e1")


def new_session_id() -> str:
    return str(uuid.uuid4())


def native_event_id(session_id: str, seq: int) -> str:
    """Deterministic: the same session and position always give the same id."""
    return name_id(_NATIVE_NS, f"{session_id}/{seq}")



def resolve(conn: Connection, table: sa.Table, key: str, what: str) -> str:
    """The full id for `key`, an id or an unambiguous prefix of one (≥ quick.MIN_PREFIX characters)."""
    if not key:
        raise InvalidInput(f"no {what} id given")
    from sessionscope.store.quick import MIN_PREFIX
    col = table.c.id
    if conn.execute(sa.select(col).where(col == key)).first():
        return key
    if len(key) < MIN_PREFIX:
        raise InvalidInput(f"{what} id {key!r} is too short: give at least {MIN_PREFIX} characters of it")
    if len(key) >= MIN_PREFIX:
        rows = conn.execute(
            sa.select(col).where(col >= key, col < key + "\uffff").limit(2)
        ).scalars().all()
        if len(rows) == 1:
            return rows[0]
        if len(rows) > 1:
            raise InvalidInput(f"{what} id {key!r} is ambiguous: give more characters")
    raise NotFound(f"no {what} with id {key!r} in this store")


def short_ids(conn: Connection, table: sa.Table, ids: list[str], least: int = 8) -> dict[str, str]:
    """{id: its shortest prefix of at least `least` characters that names it alone}, as git shortens
    hashes: each id is compared with its neighbours in the table's order."""
    from sessionscope.store.quick import NEIGHBOUR_QUERIES, prefixes_among, unique_prefix
    col = table.c.id
    if len(ids) > NEIGHBOUR_QUERIES:
        return prefixes_among(sorted(conn.execute(sa.select(col)).scalars()), ids, least)  # code-point order
    out = {}
    for full in ids:
        before = conn.execute(sa.select(col).where(col < full).order_by(col.desc()).limit(1)).scalar()
        after = conn.execute(sa.select(col).where(col > full).order_by(col).limit(1)).scalar()
        out[full] = unique_prefix(full, [other for other in (before, after) if other], least)
    return out
