"""Appending one event: seq, parent, depth and hash are assigned under the write lock."""

from __future__ import annotations

import json
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, NotFound
from sessionscope.history import facts, lifecycle
from sessionscope.history.read_models import EventView
from sessionscope.recall import search
from sessionscope.safety import untrusted
from sessionscope.store import chain, db, ingest, keys, payloads
from sessionscope.store.ids import native_event_id
from sessionscope.store.schema import EVENT, SESSION

HEAD = object()  # sentinel: hang the new event under the session's head


def encode_payload(payload: Any) -> str:
    """Payloads are stored verbatim: a str as given, anything else as JSON."""
    if payload is None:
        return ""
    if isinstance(payload, str):
        return payload
    try:
        return untrusted.dumps(payload)  # (a lone surrogate kept as its JSON escape, as an SDK's store keeps it)
    except TypeError as exc:
        raise InvalidInput(f"payload is not JSON-serialisable: {exc}") from exc


def fact_text(kind: str, body: dict[str, Any]) -> str:
    if kind == facts.FACT_SET:
        return f"{body['key']} = {json.dumps(body['value'], ensure_ascii=False, default=str)}"
    return f"{body['key']} deleted"


def append_event(
    conn: Connection, session_id: str, *, kind: str, role: str | None = None, text: str = "",
    payload: Any = None, ts: float | None = None, event_id: str | None = None,
    parent_id: Any = HEAD, tokens_in: int = 0, tokens_out: int = 0, sidechain: bool = False,
    agent_id: str | None = None, action: str = "append",
) -> EventView:
    """Append one event to the session's log inside the caller's write transaction."""
    if not isinstance(kind, str) or not kind.strip():
        raise InvalidInput("an event needs a kind (message, tool_call, tool_result, fact.set, …)")
    if kind in facts.FACT_KINDS:
        if not isinstance(payload, dict):
            raise InvalidInput(f"a {kind} event needs a payload object with a key")
        payload = facts.fact_payload(kind, payload.get("key"), payload.get("value"))
        text = text or fact_text(kind, payload)
    s = conn.execute(sa.select(SESSION).where(SESSION.c.id == session_id)).mappings().first()
    if s is None:
        raise NotFound(f"no session with id {session_id!r} in this store")
    status = lifecycle.next_status(session_id, s["status"], action)
    parent = s["head_event_id"] if parent_id is HEAD else parent_id
    if sidechain and parent_id is HEAD and agent_id:
        # a subagent's events chain among themselves, beside the main conversation
        parent = conn.execute(sa.select(EVENT.c.id).where(
            EVENT.c.session_id == session_id, EVENT.c.agent_id == agent_id, EVENT.c.sidechain.is_(True))
            .order_by(EVENT.c.seq.desc()).limit(1)).scalar() or parent
    depth = 0
    if parent is not None:
        parent_depth = conn.execute(sa.select(EVENT.c.depth).where(EVENT.c.id == parent)).scalar()
        if parent_depth is None:
            raise NotFound(f"parent event {parent!r} is not in this store")
        depth = parent_depth + 1
    seq = s["last_seq"] + 1
    now = time.time()
    row = {
        "id": event_id or native_event_id(session_id, seq), "session_id": session_id,
        "parent_id": parent, "seq": seq, "depth": depth, "ts": now if ts is None else float(ts),
        "kind": kind, "role": role, "text": text or "", "payload": encode_payload(payload),
        "tokens_in": int(tokens_in), "tokens_out": int(tokens_out), "sidechain": bool(sidechain),
        "agent_id": agent_id,
    }
    row["hash"] = chain.link(s["last_hash"], row)
    if conn.execute(sa.select(EVENT.c.seq).where(EVENT.c.id == row["id"])).first():
        raise InvalidInput(f"event id {row['id']!r} is already in this store")
    if conn.dialect.name == "sqlite":  # (the text kept as the bulk writers keep it: `event.text` is generated there)
        pk = keys.reserve_keys(conn, "event", "pk", 1)
        ingest.insert_rows(conn, [row | {"pk": pk}], pack=False)
    else:
        inserted = conn.execute(EVENT.insert().values(**row, response_id=payloads.response_id(role, row["payload"]),
                                                       failed=payloads.failed(kind, row["payload"]))).inserted_primary_key
        assert inserted is not None  # (a single-row insert names its key)
        pk = inserted[0]
    search.index_range(conn, pk, pk)
    values = {
        "last_seq": seq, "last_hash": row["hash"],
        "event_count": SESSION.c.event_count + 1,
        "tokens_in": SESSION.c.tokens_in + row["tokens_in"],
        "tokens_out": SESSION.c.tokens_out + row["tokens_out"],
        # last activity is the newest event's time (a backfilled log keeps its own dates)
        "updated_at": row["ts"] if s["event_count"] == 0 else max(s["updated_at"], row["ts"]),
    }
    if row["ts"] < s["created_at"]:
        values["created_at"] = row["ts"]
    if not sidechain:
        values["head_event_id"] = row["id"]  # a subagent's event never becomes the head
    if status != s["status"]:
        values |= {"status": status, "status_changed_at": now}
    conn.execute(SESSION.update().where(SESSION.c.id == session_id).values(**values))
    if depth % facts.SNAPSHOT_EVERY == 0 and depth > 0:
        facts.store_snapshots(conn, facts.fold_at(conn, row["id"])[1])
    return EventView(**row)


def append_events(conn: Connection, session_id: str, events: list[dict[str, Any]], *, action: str = "append") -> int:
    """Append several events under the session's head, each under the one before, in the caller's write
    transaction: what `append_event` would do for each in turn (seq, parent, depth, hash, the session's
    counts and head, fact snapshots), with one insert, one search index pass and one update of the session
    for all of them (an SDK's batch of items: #31). Each event is a dict of kind, role, text, payload and
    optionally ts, tokens_in, tokens_out; facts go through `append_event`, which checks their payload."""
    if not events:
        return 0
    from sessionscope.store.ingest import _existing, insert_rows
    # (small statements on SQLite's own driver where it runs: an agent's backend pays them on every call)
    s = db.row(conn, SESSION, id=session_id)
    if s is None:
        raise NotFound(f"no session with id {session_id!r} in this store")
    status = lifecycle.next_status(session_id, s["status"], action)
    parent = s["head_event_id"]
    depth = 0
    if parent is not None:
        depth = _existing(conn, [parent])[parent] + 1
    first_pk = keys.reserve_keys(conn, "event", "pk", len(events))
    seq, last_hash, now = s["last_seq"], s["last_hash"], time.time()
    rows = []
    for i, ev in enumerate(events):
        kind = ev.get("kind")
        if not isinstance(kind, str) or not kind.strip() or kind in facts.FACT_KINDS:
            raise InvalidInput(f"a batch takes events of a kind (message, tool_call, …), not {kind!r}")
        seq += 1
        ts = ev.get("ts")
        row = {"pk": first_pk + i, "id": native_event_id(session_id, seq), "session_id": session_id,
               "parent_id": parent, "seq": seq, "depth": depth, "ts": now if ts is None else float(ts),
               "kind": kind, "role": ev.get("role"), "text": ev.get("text") or "",
               "payload": encode_payload(ev.get("payload")), "tokens_in": int(ev.get("tokens_in", 0)),
               "tokens_out": int(ev.get("tokens_out", 0)), "sidechain": False, "agent_id": None}
        row["hash"] = last_hash = chain.link(last_hash, row)
        rows.append(row)
        parent, depth = row["id"], depth + 1
    taken = _existing(conn, [r["id"] for r in rows])
    if taken:
        raise InvalidInput(f"event id {next(iter(taken))!r} is already in this store")
    insert_rows(conn, rows)
    search.index_rows(conn, rows)
    newest, oldest = max(r["ts"] for r in rows), min(r["ts"] for r in rows)
    added = {"event_count": len(rows), "tokens_in": sum(r["tokens_in"] for r in rows),
             "tokens_out": sum(r["tokens_out"] for r in rows)}
    values = {
        "last_seq": seq, "last_hash": last_hash, "head_event_id": parent,
        # the row read above is current: this transaction holds the store's write lock (db.write_connection)
        **{k: s[k] + n for k, n in added.items()},
        "updated_at": newest if s["event_count"] == 0 else max(s["updated_at"], newest),
    }
    if oldest < s["created_at"]:
        values["created_at"] = oldest
    if status != s["status"]:
        values |= {"status": status, "status_changed_at": now}
    db.update(conn, SESSION, values, id=session_id)
    due = [r["id"] for r in rows if r["depth"] % facts.SNAPSHOT_EVERY == 0 and r["depth"] > 0]
    if due and not s["forked_from_session"] and not _has_facts(conn, session_id):
        facts.store_snapshots(conn, [(i, "{}") for i in due])  # (no fact on any path of it: no walk to fold)
    else:
        for i in due:
            facts.store_snapshots(conn, facts.fold_at(conn, i)[1])
    return len(rows)


def _has_facts(conn: Connection, session_id: str) -> bool:
    return conn.execute(sa.select(EVENT.c.pk).where(EVENT.c.session_id == session_id,
                                                    EVENT.c.kind.in_(facts.FACT_KINDS)).limit(1)).first() is not None
