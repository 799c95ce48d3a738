"""A workspace's managed-agent sessions, pulled through the API incrementally.

Each sync lists the workspace's sessions (archived ones too) and, for a session whose `updated_at`
moved since the last sync, reads its events from the last `processed_at` seen (`created_at[gte]`: an
event at that same instant is read again and dropped by id). A multi-agent session's subagent threads
are read whole when they changed, as sidechains. Status, usage, stats and resources are the API's, kept
on the session (its `meta["managed"]`); a status change is audited, so an open window sees it. A
session the API no longer lists stays, marked gone. One session failing is a problem in the report; the
others still sync.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from sessionscope.history import lifecycle
from sessionscope.history.titles import from_prompt
from sessionscope.safety.untrusted import shown
from sessionscope.sources import api_workspaces, remote, remote_pull
from sessionscope.sources.managed_agents.client import api_errors, connect
from sessionscope.sources.managed_agents.events import to_new_event
from sessionscope.sources.remote import count, plain
from sessionscope.sources.scan import ImportReport, source_row
from sessionscope.store.incoming import SessionInfo
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import EVENT, SESSION

PAGE = 100
THREAD_CREATED = "thread-created:"  # a placeholder parent: the stored event that created a thread


def api_status(s: dict) -> str:
    """The store's status for an API session: its own, or archived once the API archived it."""
    return "archived" if s.get("archived_at") else str(s.get("status") or "idle")


def managed_meta(s: dict) -> dict[str, Any]:
    """What the list and detail views show of an API session, as the API gave it."""
    agent = s.get("agent") if isinstance(s.get("agent"), dict) else {}
    model = agent.get("model")
    return {
        "status": s.get("status"), "archived_at": s.get("archived_at"), "created_at": s.get("created_at"),
        "updated_at": s.get("updated_at"), "usage": s.get("usage") or {}, "stats": s.get("stats") or {},
        "resources": s.get("resources") or [], "environment_id": s.get("environment_id"),
        "metadata": s.get("metadata") or {}, "vault_ids": s.get("vault_ids") or [],
        "agent": {"id": agent.get("id"), "name": agent.get("name"), "version": agent.get("version"),
                  "model": model.get("id") if isinstance(model, dict) else model,
                  "multiagent": bool(agent.get("multiagent"))},
        "gone_at": None,
    }


def _known(store, source_id: int) -> dict[str, dict]:
    """{session id: its meta["managed"]} for the sessions of this workspace already held."""
    with store.reader() as conn:
        rows = conn.execute(sa.select(SESSION.c.id, SESSION.c.meta, SESSION.c.head_event_id)
                            .where(SESSION.c.source_id == source_id)).all()
    out = {}
    for sid, meta, head in rows:
        m = json.loads(meta or "{}").get("managed") or {}
        out[sid] = m | {"_head": head}
    return out


def pages(first, what: str):
    """A listing's items, following the API's opaque `next_page` cursors (remote.pages)."""
    return remote.pages(first, what, lambda page: getattr(page, "next_page", None))


def _list_sessions(client, only: set[str] | None) -> list[dict]:
    api = client.beta.sessions
    if only:
        return remote.retrieve_each(api, only, api_errors)
    what = "list the workspace's sessions"
    with api_errors(what):
        return [plain(s) for s in pages(api.list(include_archived=True, limit=PAGE), what)]


def _events(client, s: dict, known: dict) -> tuple[list, str | None, dict]:
    """(new store events, the last processed_at seen, {thread id: updated_at}) of one session."""
    sid = s["id"]
    through = known.get("events_through")
    parent = known.get("_head")
    out, last = [], through
    kw = {"created_at_gte": through} if through else {}
    what = f"read the events of session {sid}"
    with api_errors(what):
        for item in pages(client.beta.sessions.events.list(sid, limit=PAGE, **kw), what):
            e = plain(item)
            if e.get("id") == parent:
                continue  # the event the last sync ended on, read again by created_at[gte]
            ev = to_new_event(e, parent)
            out.append(ev)
            parent = ev.id
            if e.get("processed_at"):
                last = max(last or "", e["processed_at"])
    threads = dict(known.get("threads") or {})
    agent = s.get("agent") if isinstance(s.get("agent"), dict) else {}
    created = {}  # {thread id: the event that created it}, from this batch
    for e in out:
        body = json.loads(e.payload)
        if body.get("type") == "session.thread_created":
            created[body.get("session_thread_id")] = e.id
    if agent.get("multiagent") or created or threads:
        what = f"list the threads of session {sid}"
        with api_errors(what):
            listed = [plain(t) for t in pages(client.beta.sessions.threads.list(sid, limit=PAGE), what)]
        for t in listed:
            tid = t["id"]
            if not t.get("parent_thread_id") or threads.get(tid) == t.get("updated_at"):
                continue  # the primary thread is the session's own stream; an unchanged thread is held
            tparent = created.get(tid) or f"{THREAD_CREATED}{tid}"  # its creation, found in the store on commit
            what = f"read the events of thread {tid}"
            with api_errors(what):
                for item in pages(client.beta.sessions.threads.events.list(tid, session_id=sid, limit=PAGE), what):
                    ev = to_new_event(plain(item), tparent, thread=tid)
                    out.append(ev)
                    tparent = ev.id
            threads[tid] = t.get("updated_at")
    return out, last, threads


def sync(store, location: str, *, client=None, only: set[str] | None = None, progress=None,
         cancel=None, notify=None) -> ImportReport:
    """Pull a workspace's sessions (only those ids, when given) into the store. One session the server
    describes oddly, or whose events cannot be read or stored, is one problem; the others are pulled.
    `notify` hears of waits (a 429's retry-after, capped)."""
    client = client or connect(location, notify=notify)
    pull = remote_pull.Pull(location, client)
    report = pull.report
    source_id = store.write(source_row, "managed_agents", location)
    known = _known(store, source_id)
    sessions = pull.list_sessions(lambda: _list_sessions(client, only))
    for s in pull.each(sessions, cancel=cancel, progress=progress, label=lambda s: _title(s) or s["id"]):
        mine = known.get(s["id"], {})
        if mine.get("updated_at") == s.get("updated_at") and mine.get("_head") and not mine.get("gone_at"):
            continue  # nothing happened in it since the last sync
        report.files_read += 1
        try:
            events, through, threads = _events(client, s, mine)
            if api_status(s) not in lifecycle.STATUSES:  # a status newer than this Sessionscope: events still count
                pull.problem(f" session {s['id']}", f"unknown status {shown(s.get('status'), 40)}: kept as it was")
            added, foreign = store.write(_commit, source_id, s, events, through, threads, mine)
        except Exception as exc:  # one session's failure does not stop the others
            pull.failed(s["id"], exc)
            continue
        if foreign:
            pull.problem(f" session {s['id']}", f"{len(foreign)} event(s) whose id another session already has "
                                                f"({shown(foreign[0], 40)}…): not stored")
        report.events_added += added
        report.sessions.add(s["id"])
    gone = pull.gone(known) if not only else []
    if gone:
        store.write(remote_pull.mark_gone, "managed", gone)
        report.sessions |= set(gone)
    # a pull that only failed (offline, every 30 s) is said, not audited each time
    return report.finish(store, pull.started, bulk=False, warm=False, audit_if=bool(report.files_read),
                         source="managed_agents", location=location)


def _title(s: dict) -> str:
    return s["title"] if isinstance(s.get("title"), str) else ""


def _commit(conn, source_id: int, s: dict, events, through, threads, mine) -> tuple[int, list[str]]:
    """(events added, ids of events another session holds already: left out, so the rest is stored)."""
    meta = managed_meta(s) | {"events_through": through, "threads": threads}
    agent = meta["agent"]
    taken = set()
    for at in range(0, len(events), 500):
        ids = [e.id for e in events[at:at + 500]]
        taken |= set(conn.execute(sa.select(EVENT.c.id).where(EVENT.c.id.in_(ids), EVENT.c.session_id != s["id"]))
                     .scalars())
    events = [e for e in events if e.id not in taken]
    first_user = next((e.text for e in events if e.kind == "message" and e.role == "user" and e.text.strip()), "")
    title, rank = (_title(s), 3) if _title(s) else (from_prompt(first_user), 1)
    info = SessionInfo(id=s["id"], source_id=source_id, tool_id=s["id"],
                       fields={"title": title, "agent": _text(agent["name"]), "model": _text(agent["model"]),
                               "project": _text(agent["name"])},
                       meta={"managed": meta, "title_rank": rank if title else 0})
    for e in events:
        if e.parent_id and e.parent_id.startswith(THREAD_CREATED):  # created in an earlier sync
            e.parent_id = _creation(conn, s["id"], e.parent_id[len(THREAD_CREATED):])  # None: the head
    added = ingest(conn, info, events)
    created = _created_at(s)
    usage = meta["usage"]
    values: dict[str, Any] = {}
    if isinstance(usage, dict) and usage:
        values["tokens_in"] = sum(count(usage.get(k)) for k in ("input_tokens", "cache_read_input_tokens")) + \
            _cache_writes(usage)
        values["tokens_out"] = count(usage.get("output_tokens"))
    if created:
        values["created_at"] = created
    if values:
        conn.execute(SESSION.update().where(SESSION.c.id == s["id"]).values(**values))
    if api_status(s) in lifecycle.STATUSES:
        remote_pull.set_status(conn, s["id"], api_status(s), new=not mine)
    return added, sorted(taken)


def _text(value) -> str:
    """A name the server gave, as text (a list or an object where a name belongs is no name)."""
    return value if isinstance(value, str) else ""


def _creation(conn, session_id: str, thread_id: str) -> str | None:
    like = f'%"session_thread_id":"{thread_id}"%'
    return conn.execute(sa.text("SELECT id FROM event WHERE session_id = :s AND kind = 'system' AND role = 'status' "
                                "AND payload LIKE :p ORDER BY seq LIMIT 1"), {"s": session_id, "p": like}).scalar()


def _cache_writes(usage: dict) -> int:
    cache = usage.get("cache_creation")
    if isinstance(cache, dict):
        return sum(count(v) for v in cache.values())
    return count(usage.get("cache_creation_input_tokens"))


def _created_at(s: dict) -> float | None:
    from sessionscope.sources.records import parse_ts
    return parse_ts(s.get("created_at"))


def workspaces(store) -> list[str]:
    """The locations of the managed-agents sources to sync."""
    return api_workspaces.locations(store, "managed_agents")
