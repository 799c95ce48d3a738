"""The items the OpenAI Agents SDK adds through the store's `Session` (adapters.agents): queued as the SDK's
rows and shown as a native session's events behind it (#31: making each item an event inside `add_items`
held it to 0.29× the SDK's own SQLiteSession).

`add_items` queues the items (`mirror_entry`, sdk "openai-agents", under the SDK's session id) and
returns; `show` makes the queued items events of the session (its head moving on) and takes them off the
queue, in one transaction, so each is shown once whoever shows it: the adapter's worker a moment later,
`pop_item` and `clear_session` before they move the head, an action taken in the app on the session
(`ops` catches up first), or the app's next look after a crash (`catch_up`). What the SDK reads is the
session's items to its head, then the queue: the same list whenever it asks.
"""

from __future__ import annotations

import time
import uuid

from sessionscope.safety import untrusted
from sessionscope.sources.scan import ImportReport
from sessionscope.store import numbered
from sessionscope.store.db import sql

SDK = "openai-agents"
_NS = uuid.UUID("0b8f6a8e-3c55-4c1e-9a51-3f0d1c7a2b64")
START = "sessionscope.start"  # the first event's payload type: what clear_session rewinds to
_KEY = "sdk = ? AND project_key = '' AND session_id = ? AND subpath = ''"


def store_session_id(session_id: str) -> str:
    """Our id for the SDK's session id (a user's string, unique only among this SDK's sessions)."""
    return str(uuid.uuid5(_NS, f"{SDK}/{session_id}"))


def put(conn, session_id: str, items: list[dict], now: float) -> int:
    """Queue the SDK's items (the caller's write transaction); refused, as an append is, for a session that
    takes no more events (archived)."""
    from sessionscope.history import lifecycle
    from sessionscope.store import db, keys
    from sessionscope.store.schema import MIRROR_ENTRY, SESSION
    sid = store_session_id(session_id)
    s = db.row(conn, SESSION, id=sid)
    if s is not None:
        lifecycle.next_status(sid, s["status"], "append")
    # numbered under the store's write lock, so that ids follow commits on every engine (queue order)
    top = (sql(conn, f"SELECT {keys.last_key_sql(conn, 'mirror_entry', 'id')}", ()).fetchone()[0] or 0) + 1
    rows = [(top + i, SDK, "", session_id, "", untrusted.dumps(item), now) for i, item in enumerate(items)]
    numbered.insert_numbered(conn, MIRROR_ENTRY, ("id", "sdk", "project_key", "session_id", "subpath", "entry", "written"), rows)
    return len(rows)


def queued(conn, session_id: str, limit: int | None = None) -> list[dict]:
    """The items queued and not shown yet, in the order they were added, or the last `limit` of them (read
    from the newest: a long queue is not read whole); on a plain sqlite3 connection too."""
    if limit is None:
        rows = sql(conn, f"SELECT entry FROM mirror_entry WHERE {_KEY} ORDER BY id", (SDK, session_id)).fetchall()
    else:
        rows = sql(conn, f"SELECT entry FROM mirror_entry WHERE {_KEY} ORDER BY id DESC LIMIT ?",
                   (SDK, session_id, limit)).fetchall()[::-1]
    return [untrusted.loads(r[0]) for r in rows]


def show(conn, session_id: str) -> int:
    """The queued items as the session's events, and off the queue (the caller's write transaction)."""
    rows = sql(conn, f"SELECT id, entry FROM mirror_entry WHERE {_KEY} ORDER BY id", (SDK, session_id)).fetchall()
    if not rows:
        return 0
    add(conn, session_id, [untrusted.loads(entry) for _id, entry in rows])
    sql(conn, f"DELETE FROM mirror_entry WHERE {_KEY} AND id <= ?", (SDK, session_id, rows[-1][0]))
    return len(rows)


def add(conn, session_id: str, items: list[dict]) -> None:
    """Items as events under the session's head, the session made (with its start) on the first."""
    from sessionscope.history import sessions
    from sessionscope.sources.agents_sdk.importer import item_kind
    from sessionscope.store import db
    from sessionscope.store.append import append_event, append_events
    from sessionscope.store.schema import SESSION
    sid = store_session_id(session_id)
    s = db.row(conn, SESSION, id=sid)
    if s is None:
        sessions.create_session(conn, session_id=sid, tool_id=session_id, agent=SDK,
                                meta={"sdk": SDK, "session_id": session_id})
        append_event(conn, sid, kind="meta", text=f"{SDK} session {session_id}",
                     payload={"type": START, "session_id": session_id})
    batch = []
    for item in items:
        kind, role, text = item_kind(item)
        # (the payload keeps a lone surrogate as the SDK gave it; the text shown and searched has U+FFFD)
        batch.append({"kind": kind, "role": role, "text": untrusted.scrubbed(text), "payload": item})
    append_events(conn, sid, batch)  # one insert for the batch
    title = next((e["text"] for e in batch if e["kind"] == "message" and e["role"] == "user" and e["text"]), None)
    if title and not (s and s["title"]):
        sessions.update_fields(conn, sid, title=" ".join(title.split())[:120])  # the first prompt, as elsewhere


def catch_up(store, settle: float = 0.0, only: str | None = None) -> ImportReport:
    """Show the items queued longer than `settle` seconds ago (a process killed, or closed, before its
    worker showed them); `only`: one store session's (what an action taken on it catches up first).
    One indexed query when nothing is queued."""
    report = ImportReport()
    with store.reader() as conn:
        waiting = sql(conn, "SELECT session_id, max(written) FROM mirror_entry WHERE sdk = ? GROUP BY session_id",
                      (SDK,)).fetchall()
    for session_id, written in waiting:
        if (only is not None and store_session_id(session_id) != only) or time.time() - written < settle:
            continue
        try:
            report.events_added += store.write(show, session_id)
        except Exception as exc:  # noqa: BLE001 - a locked store, an archived session: said, never fatal
            report.problems.append({"path": f"{SDK}://{session_id}", "line": None, "offset": None,
                                    "problem": f"the OpenAI Agents SDK's queued items: {exc}"})
            continue
        report.sessions.add(store_session_id(session_id))
    return report
