"""Bulk insertion of imported events: SQLAlchemy Core executemany, one transaction a batch.

Importers hand over plain `NewEvent`s grouped by session; this module assigns
seq, depth and hash exactly as a single append would, drops events whose id is
already stored (so re-importing a file, or a resumed copy of a session, adds
nothing), inserts with executemany and indexes the new rows for search. A line
the store keeps as a reference to an event it copies (`event_alias`: a Claude
Code fork Sessionscope wrote) is never stored a second time, and a line that
names one as its parent hangs under the event it copies.
"""

from __future__ import annotations

import functools
import json
import operator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.history import lifecycle, sessions, titles
from sessionscope.recall import search
from sessionscope.store import chain, db, dictionaries, keys, links, numbered, payloads
from sessionscope.store.incoming import NewEvent, SessionInfo
from sessionscope.store.packed_sql import compact_hash
from sessionscope.store.schema import EVENT, EVENT_ALIAS, SESSION

# the kinds of a conversation's own lines: a stored one of these under a fresh event keeps it from being the head
HEAD_KINDS = frozenset({"message", "tool_call", "tool_result", "thinking", "compaction", "compaction_summary"})
_CHUNK = 500  # ids per IN (...) lookup, well under SQLite's variable limit
COLUMNS = ("pk", "id", "session_id", "parent_id", "seq", "depth", "ts", "kind", "role", "text", "payload",
            "tokens_in", "tokens_out", "sidechain", "agent_id", "hash", "response_id", "failed")
_BEFORE_TEXT = operator.itemgetter(*COLUMNS[:COLUMNS.index("text")])  # a row's values as a tuple (the text, then
# the payload, follow: each packed)
_AFTER_PAYLOAD = operator.itemgetter(*COLUMNS[COLUMNS.index("payload") + 1:COLUMNS.index("hash")])
_AFTER_HASH = operator.itemgetter(*COLUMNS[COLUMNS.index("hash") + 1:])
_ROW = operator.itemgetter(*COLUMNS)
# SQLite keeps an event's text as `text_kept` and its payload as `payload_kept` (`event.text` and `event.payload` are
# columns generated from them: payloads.keep_text, payloads.pack_kept)
_KEPT = {"text": "text_kept", "payload": "payload_kept"}
INSERT_SQL = (f"INSERT INTO event ({', '.join(_KEPT.get(c, c) for c in COLUMNS)}) "
              f"VALUES ({', '.join('?' * len(COLUMNS))})")


def _lookup(conn: Connection, key, value, values: list[str]) -> dict[str, Any]:
    """{key: value} of the rows whose `key` column is one of `values`."""
    found: dict[str, Any] = {}
    if conn.dialect.name == "sqlite":
        # one JSON parameter instead of hundreds of bound literals (SQLAlchemy coerces each)
        sql = f"SELECT {key.name}, {value.name} FROM {key.table.name} WHERE {key.name} IN (SELECT value FROM json_each(?))"
        raw = db.driver(conn)
        assert raw is not None  # (SQLite's, as the dialect said)
        for i in range(0, len(values), 20_000):
            found.update(dict(raw.execute(sql, (json.dumps(values[i:i + 20_000]),)).fetchall()))
        return found
    if conn.dialect.name == "postgresql":  # one array parameter, one round trip
        sql = f"SELECT {key.name}, {value.name} FROM {key.table.name} WHERE {key.name} = ANY(%s)"
        return dict(conn.exec_driver_sql(sql, (values,)).all()) if values else found
    for i in range(0, len(values), _CHUNK):
        found.update(dict(conn.execute(sa.select(key, value).where(key.in_(values[i:i + _CHUNK]))).all()))
    return found


def _existing(conn: Connection, values: list[str]) -> dict[str, Any]:
    """{id: depth} for the values already stored."""
    return _lookup(conn, EVENT.c.id, EVENT.c.depth, values)


def _aliases(conn: Connection, values: list[str]) -> dict[str, str]:
    """{id: the event it copies} for the values kept as references (almost always none: one query then)."""
    if not values:
        return {}
    raw = db.driver(conn)
    if (raw.execute("SELECT 1 FROM event_alias LIMIT 1") if raw else conn.exec_driver_sql(
            "SELECT 1 FROM event_alias LIMIT 1")).fetchone() is None:  # (plain SQL: a Core statement costs more)
        return {}
    return _lookup(conn, EVENT_ALIAS.c.id, EVENT_ALIAS.c.event_id, values)


def _resolve_logical_parents(conn: Connection, fresh: list[NewEvent], batch_ids: set[str],
                             depth: dict[str, Any], head: str | None) -> None:
    """A logical parent that is neither stored nor in the batch falls back (see NewEvent)."""
    written: set[str] = set()
    for e in fresh:
        if e.logical_parent and e.parent_id not in depth and e.parent_id not in written:
            e.parent_id = e.fallback_parent or head
            if e.parent_id and e.parent_id not in batch_ids and e.parent_id not in depth:
                depth.update(_existing(conn, [e.parent_id]))
        written.add(e.id)


def ingest(conn: Connection, info: SessionInfo, events: list[NewEvent], problems: list[str] | None = None) -> int:
    """Store one session's new events in the caller's write transaction; returns how many."""
    s = db.row(conn, SESSION, id=info.id)
    if s is None:
        first_ts = min((e.ts for e in events), default=None)
        sessions.create_session(conn, session_id=info.id, source_id=info.source_id, tool_id=info.tool_id,
                                status=lifecycle.IDLE, created_at=first_ts,
                                forked_from_session=info.forked_from_session,
                                forked_from_event=info.forked_from_event)
        s = db.row(conn, SESSION, id=info.id)
        assert s is not None  # (made just now, in this transaction)
    # An archived session still takes imported events: the tool kept writing it,
    # and nothing is dropped on import. Only appends through Sessionscope are refused.

    seen = _existing(conn, [e.id for e in events])
    seen |= _aliases(conn, [e.id for e in events if e.id not in seen])
    fresh: list[NewEvent] = []
    batch_ids: set[str] = set()
    for e in events:
        if e.id in seen or e.id in batch_ids:
            continue
        batch_ids.add(e.id)
        fresh.append(e)
    meta = _update_session(conn, s, info, fresh)
    if not fresh:
        return 0
    parents = sorted({e.parent_id for e in fresh if e.parent_id} - batch_ids)
    depth = _existing(conn, parents)
    copied = _aliases(conn, [p for p in parents if p not in depth])
    if copied:  # a line under a copy hangs under the event it copies; a fact drawn from a copy, its event has
        fresh = [e for e in fresh if not (e.role == "extracted" and e.parent_id in copied)]
        if not fresh:
            return 0
        for e in fresh:
            if e.parent_id is not None:
                e.parent_id = copied.get(e.parent_id, e.parent_id)
        depth.update(_existing(conn, sorted(set(copied.values()))))
    _resolve_logical_parents(conn, fresh, batch_ids, depth, s["head_event_id"])
    waiting = meta.get(links.WAITING_KEY) or {}
    self_linked = {e.id for e in fresh if e.parent_id == e.id}
    links.cut_loops(fresh, waiting, functools.partial(_stored_parent, conn), problems)
    depths, under_stored = _depths(conn, fresh, batch_ids, depth, waiting)

    pks = keys.new_keys(conn, len(fresh))
    seq, last_hash = s["last_seq"], s["last_hash"]
    rows = []
    for pk, e in zip(pks, fresh):
        seq += 1
        d = depths[e.id]
        row = {
            "pk": pk, "id": e.id, "session_id": info.id, "parent_id": e.parent_id, "seq": seq,
            "depth": d, "ts": e.ts, "kind": e.kind, "role": e.role, "text": e.text, "payload": e.payload,
            "tokens_in": e.tokens_in, "tokens_out": e.tokens_out, "sidechain": e.sidechain,
            "agent_id": e.agent_id, "packed": e.packed,
        }
        if e.response_known:
            row["response_id"] = e.response_id
        row["hash"] = last_hash = chain.link(last_hash, row)
        rows.append(row)
    insert_rows(conn, rows)
    search.index_rows(conn, rows)

    added = {"event_count": sum(1 for e in fresh if e.counted), "tokens_in": sum(e.tokens_in for e in fresh),
             "tokens_out": sum(e.tokens_out for e in fresh)}
    # the row read above is current: this transaction holds the store's write lock, or the session's (db.write_connection)
    values: dict[str, Any] = {"last_seq": seq, "last_hash": last_hash} | {k: s[k] + n for k, n in added.items()}
    head = links.head(events, batch_ids, {e.id: e.parent_id for e in fresh}, self_linked, under_stored)
    if head is not None:
        values["head_event_id"] = head
    still = links.waiting_now(fresh, depth, waiting)
    if still != waiting:
        meta = {k: v for k, v in meta.items() if k != links.WAITING_KEY} | ({links.WAITING_KEY: still} if still else {})
        values["meta"] = json.dumps(meta, default=str)
    activity = [e.ts for e in fresh if e.activity]
    if activity:
        newest = max(activity)
        values["updated_at"] = newest if s["event_count"] == 0 else max(s["updated_at"], newest)
        values["created_at"] = min(s["created_at"], min(activity))
    db.update(conn, SESSION, values, id=info.id)
    return len(rows)


def _stored_parent(conn: Connection, event_id: str) -> str | None:
    return conn.execute(sa.select(EVENT.c.parent_id).where(EVENT.c.id == event_id)).scalar()


def _depths(conn: Connection, fresh: list[NewEvent], batch_ids: set[str], stored: dict[str, Any],
            waiting: dict[str, str]) -> tuple[dict[str, int], set[str]]:
    """The fresh events' depths, after re-linking the stored events that waited for a parent this batch brings
    (sessionscope.store.links); and the fresh events such a stored main-chain line now hangs under."""
    found = links.depths(fresh, stored)
    came = {child: parent for child, parent in waiting.items() if parent in batch_ids}
    if not came:
        return found, set()
    under: set[str] = set()
    for child, parent in came.items():
        links.relink(conn, child, found[parent] + 1)
        kind = conn.execute(sa.select(EVENT.c.kind, EVENT.c.sidechain).where(EVENT.c.id == child)).first()
        if kind is not None and kind[0] in HEAD_KINDS and not kind[1]:
            under.add(parent)
    # a fresh event under a re-linked subtree counts from the depths it has now
    stored.update(_existing(conn, sorted({e.parent_id for e in fresh if e.parent_id in stored})))
    return links.depths(fresh, stored), under


def insert_rows(conn: Connection, rows: list[dict[str, Any]], *, pack: bool = True) -> None:
    """Insert event rows (every column of COLUMNS but the two drawn from the payload, which are filled here where
    a row lacks them; payload as text; hashed already). On SQLite the text is kept once where the payload holds it
    (`payloads.keep_text`), and with `pack` the rest compressed; without (an append), kept as it is."""
    for r in rows:
        if "response_id" not in r:
            r["response_id"] = payloads.response_id(r["role"], r["payload"])
        if "failed" not in r:
            r["failed"] = payloads.failed(r["kind"], r["payload"])
    if conn.dialect.name == "sqlite":
        # plain executemany: SQLAlchemy's insertmanyvalues costs ~30 µs a row here; texts and payloads compressed
        # with their tool's dictionary (sessionscope.store.payloads): fewer pages to write than bytes to compress
        raw = db.driver(conn)
        assert raw is not None  # (SQLite's, as the dialect said)
        if pack:
            dictionary = dictionaries.for_rows(raw, rows)
            ids_in = _ids_in_payloads(rows)
            kept = [(payloads.keep_text(r["text"], r["payload"], dictionary), _packed(r, dictionary, ids_in))
                    for r in rows]
        else:
            kept = [(payloads.text_ref(r["text"], r["payload"]) or r["text"], r["payload"]) for r in rows]
        values = [_BEFORE_TEXT(r) + k + _AFTER_PAYLOAD(r) + (compact_hash(r["hash"]),) + _AFTER_HASH(r)
                  for r, k in zip(rows, kept)]
        with payloads.inserting(raw):  # (SQLite would work out each referenced text, to throw it away)
            raw.executemany(INSERT_SQL, values)
    else:
        # numbered by the caller (keys.new_keys): on PostgreSQL one COPY, an executemany being a statement a
        # row over the socket (it kept an import at a quarter of SQLite's rate)
        numbered.insert_numbered(conn, EVENT, COLUMNS, [_ROW(r) for r in rows], reserved=True)


def _packed(row: dict[str, Any], dictionary, ids_in: bool) -> str | bytes:
    """The payload as SQLite keeps it: packed already by an import's reader process (a big one, its ids left in), or
    now, without the row's ids where it holds them (`ids_in`: the batch's lines hold their ids)."""
    packed = row.get("packed")
    if packed is not None:
        return packed
    return payloads.pack_kept(row["payload"], row["kind"], row["role"], dictionary,
                              (row["id"], row["parent_id"], row["session_id"]) if ids_in else None)


_IDS_SAMPLE = 8


def _ids_in_payloads(rows: list[dict[str, Any]]) -> bool:
    """Whether the batch's lines hold their rows' ids (Claude Code's do; a tool whose events are named from the
    document, as Aider's, never): asked of its first rows alone, as a batch is one session of one tool, so the lines
    of a tool that writes no ids are not searched for them (8 % of an Aider import)."""
    return any(payloads.leave_ids_out(r["payload"], (r["id"], r["parent_id"], r["session_id"])) is not None
               for r in rows[:_IDS_SAMPLE] if r.get("packed") is None)


def _update_session(conn: Connection, s, info: SessionInfo, fresh: list[NewEvent]) -> dict[str, Any]:
    """Set the fields the importer found and merge its metadata; the session's metadata now."""
    values = {k: v for k, v in info.fields.items() if v not in (None, "") and s.get(k) != v}
    if info.fields.get("tags") == [] and s.get("tags") not in ("[]", ""):
        values["tags"] = []  # a cleared tag clears
    if info.tool_id and not s["tool_id"]:
        values["tool_id"] = info.tool_id
    if info.forked_from_session and not s["forked_from_session"]:
        values["forked_from_session"] = info.forked_from_session
        values["forked_from_event"] = info.forked_from_event
    if not s.get("title") and not values.get("title") and (said := _first_said(fresh)):
        values["title"] = said  # a tool that names none: its first words (no rank: whatever names it later wins)
    if "tags" in values:
        values["tags"] = json.dumps(sorted(set(values["tags"])))
    meta = json.loads(s["meta"] or "{}")
    found = dict(info.meta)  # `info` is left as it came: a transaction that is run again adds the same
    if "title" in values and meta.get("title_rank", 0) > found.get("title_rank", 0):
        del values["title"]  # a better title (custom > AI > summary > first prompt) is already set
        found = {k: v for k, v in found.items() if k not in ("title_rank", "title_source")}
    usage = found.pop("usage_by_model", None)
    if usage:
        totals = {m: dict(u) for m, u in meta.get("usage_by_model", {}).items()}
        for model_name, u in usage.items():
            t = totals.setdefault(model_name, {})
            for k, v in u.items():
                t[k] = t.get(k, 0) + v
        found["usage_by_model"] = totals
    if found:
        merged = _merge(meta, found)
        if merged != meta:
            values["meta"] = json.dumps(merged, default=str)
            meta = merged
    if values:
        db.update(conn, SESSION, values, id=info.id)
    return meta


def _first_said(fresh: list[NewEvent]) -> str:
    """A title for a session its tool left unnamed: its first prompt's words, or its first reply's when it holds no
    prompt (a session of one reply and nothing else is not "(untitled)")."""
    for role in ("user", "assistant"):
        for e in fresh:
            if e.kind == "message" and e.role == role and not e.sidechain and e.text.strip():
                return titles.from_prompt(e.text)
    return ""


def _merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Nested dicts merge key by key; anything else is replaced by the newer value."""
    out = dict(old)
    for k, v in new.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out
