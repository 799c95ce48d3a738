"""A project's OpenAI hosted agent sessions, pulled through the API incrementally.

Each pull lists the project's sessions; a session whose last activity, status, usage or required actions moved
since the last pull is read further:

- its turns (the time of each item, and each finished turn's usage, failure or cancellation as an event);
- its items after the last one read (`after=`, oldest first). An item still in progress, and everything after
  it, is held back and read again next time, when it is done (the API fills an item in place);
- its subagents, each one's items the same way, nested under the `create_subagent_call` that spawned it (matched
  by the task it was given, else in order), as a sidechain.

The API's status, usage and required actions are kept on the session (its `meta["openai"]`); a status change is
audited. A session the API no longer lists stays, marked gone. An item of a type this reader does not know is kept
and said once per type, with the client's version (the API is newer than this reader: FORMATS.md drift). One
session failing is a problem in the report; the others are still pulled.
"""

from __future__ import annotations

import json
import time
from typing import Any

import sqlalchemy as sa

from sessionscope.history import lifecycle
from sessionscope.history.titles import from_prompt
from sessionscope.safety.untrusted import is_safe_id, shown
from sessionscope.sources import api_workspaces, remote, remote_pull
from sessionscope.sources.openai_hosted import items as api_items
from sessionscope.sources.openai_hosted.client import KIND, api_errors, connect
from sessionscope.sources.remote import count, plain
from sessionscope.sources.scan import ImportReport, source_row
from sessionscope.store.incoming import NewEvent, SessionInfo
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import EVENT, SESSION

PAGE = 100
TERMINAL_TURNS = ("completed", "failed", "cancelled")
# the API's status → the store's (lifecycle): requires_action is a running session waiting on you (Live says so)
STATUS = {"idle": lifecycle.IDLE, "in_progress": lifecycle.RUNNING, "requires_action": lifecycle.RUNNING,
          "failed": lifecycle.TERMINATED}


def _cursor(page):
    """The OpenAI client's pages lead on by the last item's id while `has_more`."""
    info = page.next_page_info() if page.has_next_page() else None
    return info.params.get("after") if info is not None and info.params else None


def pages(first, what: str):
    return remote.pages(first, what, _cursor)


def fingerprint(s: dict) -> list:
    """What moves when something happened in a session (it is read again when this differs)."""
    usage = s.get("usage") if isinstance(s.get("usage"), dict) else {}
    return [s.get("last_active_at"), s.get("status"), count(usage.get("total_tokens")), len(s.get("required_actions") or [])]


def openai_meta(s: dict) -> dict[str, Any]:
    """What the list and detail views show of an API session, as the API gave it."""
    agent = s.get("agent") if isinstance(s.get("agent"), dict) else {}
    env = s.get("environment") if isinstance(s.get("environment"), dict) else {}
    multi = agent.get("multi_agent") if isinstance(agent.get("multi_agent"), dict) else {}
    return {
        "status": s.get("status"), "error": s.get("error"), "created_at": s.get("created_at"),
        "last_active_at": s.get("last_active_at"), "usage": s.get("usage") or {},
        "required_actions": [a for a in s.get("required_actions") or [] if isinstance(a, dict)],
        "metadata": s.get("metadata") or {}, "vault_ids": s.get("vault_ids") or [], "review": s.get("review"),
        "environment": {"type": env.get("type"), "id": env.get("id")},
        "agent": {"id": agent.get("id"), "name": agent.get("name"), "model": agent.get("model"),
                  "service_tier": agent.get("service_tier"), "multi_agent": bool(multi.get("enabled", bool(multi)))},
        "gone_at": None,
    }


def _known(store, source_id: int) -> dict[str, dict]:
    """{session id: its meta["openai"], with the status here} for the sessions of this project already held."""
    with store.reader() as conn:
        rows = conn.execute(sa.select(SESSION.c.id, SESSION.c.meta, SESSION.c.status)
                            .where(SESSION.c.source_id == source_id)).all()
    return {sid: (json.loads(meta or "{}").get("openai") or {}) | {"_status": status} for sid, meta, status in rows}


def _list_sessions(client, only: set[str] | None) -> list[dict]:
    api = client.beta.agents.sessions
    if only:
        return remote.retrieve_each(api, only, api_errors)
    what = "list the project's sessions"
    with api_errors(what):
        return [plain(s) for s in pages(api.list(limit=PAGE), what)]


def _listing(first, what: str) -> list[dict]:
    with api_errors(what):
        return [plain(x) for x in pages(first, what)]


def _settled(rows: list[dict], done) -> tuple[list[dict], str | None]:
    """The rows up to (not including) the first one still in progress, and the id to read after next time."""
    out = []
    for r in rows:
        if not done(r):
            break
        out.append(r)
    return out, (out[-1].get("id") if out else None)


def _item_done(item: dict) -> bool:
    return item.get("status") not in ("in_progress",)


class _Pull:
    """One session's new events, and what the next pull reads after."""

    def __init__(self, store, client, s: dict, known: dict, unknown_types: dict):
        self.store, self.client, self.s, self.known, self.unknown = store, client, s, known, unknown_types
        self.sub_turn_ends: dict[str, list[NewEvent]] = {}  # a subagent's finished turns, placed in its own chain
        self._stored_calls: list[NewEvent] | None = None  # read when a subagent needs its spawner
        self.sid = s["id"]
        self.events: list[NewEvent] = []
        self.api = client.beta.agents.sessions
        self.fallback_ts = float(count(s.get("last_active_at")) or count(s.get("created_at")) or time.time())

    def read(self) -> dict:
        """Read what is new; returns the state to keep (meta["openai"]["pull"])."""
        state = dict(self.known.get("pull") or {})
        turns = _listing(self.api.turns.list(self.sid, limit=PAGE, order="asc"), f"list the turns of session {self.sid}")
        self.turn_ts = {t.get("id"): float(count(t.get("started_at")) or count(t.get("created_at")) or self.fallback_ts)
                        for t in turns}
        sub_turns = {t.get("id") for t in turns if t.get("subagent_id")}
        # the root agent's items (a subagent's turns' items are read with the subagent)
        kw = {"after": state["items_through"]} if state.get("items_through") else {}
        rows = _listing(self.api.items.list(self.sid, limit=PAGE, order="asc", **kw), f"read the items of session {self.sid}")
        rows, through = _settled(rows, _item_done)
        parent = state.get("root_last")
        for item in rows:
            if item.get("turn_id") in sub_turns:
                continue
            parent = self._add(item, parent, "", None)
        state["items_through"] = through or state.get("items_through")
        # each turn once, when it has finished: its usage, failure or cancellation
        ended = set(state.get("turns_ended") or [])
        for t in turns:
            if t.get("status") in TERMINAL_TURNS and t.get("id") not in ended and is_safe_id(t.get("id")):
                parent = self._turn_end(t, parent)
                ended.add(t["id"])
        state["turns_ended"] = sorted(ended)
        state["root_last"] = self.root_last = parent
        state["subagents"] = self._subagents(dict(state.get("subagents") or {}))
        return state

    def _add(self, item: dict, parent: str | None, prefix: str, agent: str | None) -> str | None:
        if not is_safe_id(item.get("id")):
            self.unknown.setdefault("an item without an id of the API's shape", 0)
            self.unknown["an item without an id of the API's shape"] += 1
            return parent
        t = str(item.get("type") or "")
        if t not in api_items.KNOWN:
            self.unknown[t or "(no type)"] = self.unknown.get(t or "(no type)", 0) + 1
        ts = self.turn_ts.get(item.get("turn_id"), self.fallback_ts)
        for suffix, kind, role, text, body in api_items.describe(item):
            payload, note = api_items.payload_of(body)
            ev = NewEvent(id=f"{prefix}{item['id']}{suffix}", parent_id=parent, ts=ts, kind=kind, role=role,
                          text=(note + text)[:16_384], payload=payload, sidechain=agent is not None, agent_id=agent,
                          head=agent is None, logical_parent=agent is not None)
            self.events.append(ev)
            parent = ev.id
        return parent

    def _turn_end(self, t: dict, parent: str | None) -> str:
        u = t.get("usage") if isinstance(t.get("usage"), dict) else {}
        cached = count((u.get("input_tokens_details") or {}).get("cached_tokens")) if isinstance(
            u.get("input_tokens_details"), dict) else 0
        tin, tout = count(u.get("input_tokens")), count(u.get("output_tokens"))
        status = t.get("status")
        tokens = f"{tin:,} tokens in ({cached:,} cached), {tout:,} out" if u else "usage not recorded"
        if status == "failed":
            err = t.get("error") if isinstance(t.get("error"), dict) else {}
            kind, role, text = "system", "error", f"turn failed: {err.get('code') or ''} {err.get('message') or ''}".strip()
        elif status == "cancelled":
            kind, role, text = "interrupt", "user", "the turn was cancelled"
        else:
            kind, role, text = "meta", "usage", f"turn completed: {tokens}"
        sub = t.get("subagent_id") if isinstance(t.get("subagent_id"), str) else None
        ts = float(count(t.get("completed_at")) or self.turn_ts.get(t["id"]) or self.fallback_ts)
        payload, _ = api_items.payload_of(t)
        ev = NewEvent(id=f"{t['id']}:end", parent_id=parent, ts=ts, kind=kind, role=role, text=text, payload=payload,
                      tokens_in=tin, tokens_out=tout, sidechain=sub is not None, agent_id=sub,
                      head=sub is None, logical_parent=sub is not None)
        if sub is not None:  # a subagent's turn: it hangs in the subagent's chain, not the root's
            ev.parent_id = None
            self.sub_turn_ends.setdefault(sub, []).append(ev)
            return parent
        self.events.append(ev)
        return ev.id

    def _subagents(self, held: dict) -> dict:
        if not held and not openai_meta(self.s)["agent"]["multi_agent"] and not any(
                e.kind == "tool_call" and '"create_subagent_call"' in e.payload for e in self.events):
            return held  # a session whose agent cannot spawn, and did not: no listing asked for
        what = f"list the subagents of session {self.sid}"
        listed = _listing(self.api.subagents.list(self.sid, limit=PAGE), what)
        listed.sort(key=lambda a: count(a.get("opened_at")))
        for sub in listed:
            sub_id = sub.get("id")
            if not is_safe_id(sub_id):
                continue
            mine = dict(held.get(sub_id) or {})
            if "spawned_by" not in mine:
                mine["spawned_by"] = self.spawner(sub, {m.get("spawned_by") for m in held.values()})
            kw = {"after": mine["through"]} if mine.get("through") else {}
            rows = _listing(self.api.subagents.items.list(sub_id, session_id=self.sid, limit=PAGE, order="asc", **kw),
                            f"read the items of subagent {sub_id}")
            rows, through = _settled(rows, _item_done)
            parent = mine.get("last") or mine["spawned_by"] or self.root_last  # no call found: under the head
            for item in rows:
                parent = self._add(item, parent, f"{sub_id}:", sub_id)
            for ev in self.sub_turn_ends.pop(sub_id, []):
                ev.parent_id = parent
                self.events.append(ev)
                parent = ev.id
            mine.update(through=through or mine.get("through"), last=parent, status=sub.get("status"),
                        name=sub.get("name"), closed_at=sub.get("closed_at"))
            held[sub_id] = mine
        return held

    def spawner(self, sub: dict, used: set) -> str | None:
        """The create_subagent_call event that spawned `sub`: the one given its task, else the first of its parent's
        not yet matched (both oldest first). None when none is held (it then hangs under the session's head)."""
        calls = [e for e in self.events if e.kind == "tool_call" and not e.sidechain
                 and '"create_subagent_call"' in e.payload]
        if self._stored_calls is None:  # a subagent may open a pull after its call: the calls already stored
            self._stored_calls = _stored_calls(self.store, self.sid) if self.known else []
        calls = self._stored_calls + calls
        task = api_items.content_text(sub.get("instructions")).strip()
        free = [(eid, body) for eid, body in ((e.id, json.loads(e.payload)) for e in calls) if eid not in used]
        mine = [(eid, b) for eid, b in free if b.get("agent_id") in (None, sub.get("parent_agent_id"))] or free
        for eid, b in mine:
            if task and api_items.content_text(b.get("content")).strip() == task:
                return eid
        return mine[0][0] if mine else None


def _stored_calls(store, session_id: str) -> list[NewEvent]:
    """The session's create_subagent_call events already stored (a subagent can open a pull after its call)."""
    with store.reader() as conn:
        # (the payloads looked inside here, not in SQL: they may be stored compressed)
        rows = conn.execute(sa.select(EVENT.c.id, EVENT.c.payload).where(
            EVENT.c.session_id == session_id, EVENT.c.kind == "tool_call", EVENT.c.sidechain.is_(False))
            .order_by(EVENT.c.seq)).all()
    return [NewEvent(id=eid, parent_id=None, ts=0.0, kind="tool_call", payload=p) for eid, p in rows
            if '"create_subagent_call"' in p]


def sync(store, location: str, *, client=None, only: set[str] | None = None, progress=None,
         cancel=None, notify=None) -> ImportReport:
    """Pull a project's sessions (only those ids, when given) into the store. One session the server describes
    oddly, or whose items cannot be read or stored, is one problem; the others are pulled. `notify` hears of
    waits (a 429's retry-after, capped)."""
    client = client or connect(location, notify=notify)
    pull = remote_pull.Pull(location, client)
    report = pull.report
    source_id = store.write(source_row, KIND, location)
    known = _known(store, source_id)
    unknown_types: dict[str, int] = {}
    sessions = pull.list_sessions(lambda: _list_sessions(client, only))
    for s in pull.each(sessions, cancel=cancel, progress=progress):
        mine = known.get(s["id"], {})
        if mine.get("fingerprint") == fingerprint(s) and mine.get("pull") and not mine.get("gone_at"):
            continue  # nothing happened in it since the last pull
        report.files_read += 1
        try:
            reading = _Pull(store, client, s, mine, unknown_types)
            state = reading.read()
            if s.get("status") not in STATUS:  # a status newer than this Sessionscope: the items still count
                pull.problem(f" session {s['id']}", f"unknown status {shown(s.get('status'), 40)}: kept as it was")
            added = store.write(_commit, source_id, s, reading.events, state, mine)
        except Exception as exc:  # one session's failure does not stop the others
            pull.failed(s["id"], exc)
            continue
        report.events_added += added
        report.sessions.add(s["id"])
    for t, n in sorted(unknown_types.items()):
        pull.problem("", f"{n} item(s) of type {shown(t, 60)}, which this Sessionscope does not know (the API is newer "
                         f"than it: openai {_client_version()}): kept as they came, listed by `sessionscope drift`")
    gone = pull.gone(known) if not only else []
    if gone:
        store.write(remote_pull.mark_gone, "openai", gone)
        report.sessions |= set(gone)
    return report.finish(store, pull.started, bulk=False, warm=False, audit_if=bool(report.files_read),
                         source=KIND, location=location)


def _client_version() -> str:
    try:
        import openai
        return openai.__version__
    except ImportError:
        return "?"


def title_of(s: dict, first_user: str) -> tuple[str, int]:
    """(title, rank): the session's `title` or `name` metadata when it was given one, else its first prompt."""
    meta = s.get("metadata") if isinstance(s.get("metadata"), dict) else {}
    given = next((meta[k] for k in ("title", "name") if isinstance(meta.get(k), str) and meta[k].strip()), "")
    if given:
        return given.strip(), 3
    return (from_prompt(first_user), 1) if first_user.strip() else ("", 0)


def _commit(conn, source_id: int, s: dict, events: list[NewEvent], state: dict, mine: dict) -> int:
    meta = openai_meta(s) | {"pull": state, "fingerprint": fingerprint(s)}
    agent = meta["agent"]
    first_user = next((e.text for e in events if e.kind == "message" and e.role == "user" and e.text.strip()), "")
    if not first_user and mine:
        first_user = conn.execute(sa.select(EVENT.c.text).where(
            EVENT.c.session_id == s["id"], EVENT.c.kind == "message", EVENT.c.role == "user")
            .order_by(EVENT.c.seq).limit(1)).scalar() or ""
    title, rank = title_of(s, first_user)
    name = agent["name"] if isinstance(agent["name"], str) else ""
    info = SessionInfo(id=s["id"], source_id=source_id, tool_id=s["id"],
                       fields={"title": title, "agent": name, "model": agent["model"] if isinstance(agent["model"], str)
                               else "", "project": name or (agent["id"] if isinstance(agent["id"], str) else "")},
                       meta={"openai": meta, "title_rank": rank})
    added = ingest(conn, info, events)
    values: dict[str, Any] = {}
    usage = meta["usage"]
    if isinstance(usage, dict) and usage:
        values["tokens_in"] = count(usage.get("input_tokens"))
        values["tokens_out"] = count(usage.get("output_tokens"))
    if count(s.get("created_at")):
        values["created_at"] = float(count(s["created_at"]))
    if values:
        conn.execute(SESSION.update().where(SESSION.c.id == s["id"]).values(**values))
    status = STATUS.get(str(s.get("status")))
    if status is not None and mine.get("_status") != lifecycle.ARCHIVED:  # archived here: the user's, kept
        remote_pull.set_status(conn, s["id"], status, new=not mine)
    return added


def projects(store) -> list[str]:
    """The locations of the OpenAI projects to pull."""
    return api_workspaces.locations(store, KIND)
