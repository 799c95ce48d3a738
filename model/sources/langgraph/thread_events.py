"""The events of one LangGraph thread, checkpoint by checkpoint (sessionscope.sources.langgraph.importer reads the
checkpointer's tables and commits what this makes; mirror.py makes the same events from a saver's writes)."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.history.titles import from_prompt
from sessionscope.sources.langgraph import reader
from sessionscope.sources.langgraph import values as v
from sessionscope.sources.records import add_fact, parse_ts
from sessionscope.store.incoming import NewEvent

NS = uuid.UUID("3f0c1d52-7b4e-4a8f-b1d6-92e5c0a4f718")
INTERNAL_WRITES = dict(zip(reader.SHOWN_WRITES, ("interrupt", "resume", "error")))  # channel → what it shows
NAME_KEYS = ("title", "thread_title", "thread_name", "name")  # a thread's name in its runs' metadata


def _where(place: reader.Place) -> str:
    """What a database is known by: a file's absolute path, a server database's address without its password."""
    if isinstance(place, str):
        from sessionscope.sources.server_databases import shown
        return shown(place)
    return str(place.absolute())


def _written(place: reader.Place) -> float:
    """The time a checkpoint without one of its own takes: the file's, or now for a database on a server."""
    return place.stat().st_mtime if isinstance(place, Path) else time.time()


def session_key(place: reader.Place, thread_id: str) -> str:
    """Our id for a thread: its id is the application's ("1", "user-42"), unique in its database only."""
    return str(uuid.uuid5(NS, f"{_where(place)}:{thread_id}"))


def step_id(key: str, ns: str, checkpoint_id: str) -> str:
    """The event of a checkpoint (the fork and rewind actions find it again from the checkpoint's id)."""
    return str(uuid.uuid5(NS, f"{key}:{ns}:{checkpoint_id}"))


def _internal(channel: str) -> bool:
    """Channels of langgraph's machinery, not of the graph's state (`__start__`, `branch:to:x`, `start:x`)."""
    return channel.startswith("__") or ":" in channel


def _state(cp: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint's state as facts: each key's value (a conversation by its length and last message)."""
    channels = cp.get("channel_values") or {}
    conversation = set(v.message_channels(channels))
    return {k: v.summary(val) if k in conversation else v.plain(val)
            for k, val in channels.items() if not _internal(k)}


def _nodes(metadata: dict[str, Any], parent_values: dict[str, Any]) -> list[str]:
    """Which nodes made this checkpoint: older versions say (metadata `writes`); newer ones say it through
    the parent's trigger channels (`branch:to:<node>`, formerly `start:<node>`)."""
    writes = metadata.get("writes")
    if isinstance(writes, dict) and writes:
        return [str(n) for n in writes]
    return [k.split(":", 2)[-1] for k in parent_values if k.startswith(("branch:to:", "start:"))]


class _ThreadEvents:
    """The events of one thread, checkpoint by checkpoint, oldest first."""

    def __init__(self, key: str, path: reader.Place):
        self.key, self.path = key, path
        self.written = _written(path)  # (a checkpoint without a time of its own takes it)
        self.events: list[NewEvent] = []
        self.tail: dict[tuple[str, str], str] = {}  # (ns, checkpoint id) → the last event of its group
        self.states: dict[tuple[str, str], dict[str, Any]] = {}
        self.messages: dict[tuple[str, str], list[Any]] = {}
        self.values: dict[tuple[str, str], dict[str, Any]] = {}
        self.before_pending: dict[tuple[str, str], str] = {}  # the last event of a group before its pending writes
        self.pending_ids: set[str] = set()  # the pending writes' events made so far (a mirror adds late ones)
        self.counted: set[str] = set()  # message ids whose usage is counted (a fork repeats them)
        self.title = ""
        self.named = ""  # the name the thread's runs gave it (config metadata: title, thread_name, name)
        self.model = ""
        self.last_main: list[tuple[str, str]] = []  # main-graph checkpoints in order (subgraphs hang there)
        self.forked_from: tuple[str, str] | None = None  # (session, event) a thread forked by Sessionscope began at
        self.root_parent: tuple[str, str] | None = None  # where the thread's first checkpoint hangs (a fork's origin)

    def origin(self, sv, t) -> None:
        """A thread our fork action made starts from a copy of another thread's checkpoint (its metadata
        says which): the copy hangs under that checkpoint, and only what follows it is new."""
        src = (t.metadata or {}).get("forked_from")
        if not isinstance(src, dict) or not src.get("thread_id") or not src.get("checkpoint_id"):
            return
        ns = src.get("checkpoint_ns", "")
        try:
            o = sv.get_tuple({"configurable": {"thread_id": src["thread_id"], "checkpoint_ns": ns,
                                               "checkpoint_id": src["checkpoint_id"]}})
        except Exception:  # noqa: BLE001 - the origin is gone or unreadable: the copy stands alone
            return
        if o is None:
            return
        key = session_key(self.path, src["thread_id"])
        anchor = step_id(key, ns, src["checkpoint_id"])
        self.forked_from = (key, anchor)
        origin = ("origin", src["checkpoint_id"])
        values = o.checkpoint.get("channel_values") or {}
        self.tail[origin], self.states[origin], self.values[origin] = anchor, _state(o.checkpoint), values
        self.messages[origin] = [m for k in v.message_channels(values) for m in values[k]]
        self.root_parent = origin

    def add(self, t, notes: list[str]) -> None:
        """One checkpoint's events; `notes` gets what the user should know that is not a bad row."""
        conf = t.config["configurable"]
        ns, cid = conf.get("checkpoint_ns", ""), conf["checkpoint_id"]
        parent_cid = (t.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        cp, metadata = t.checkpoint, dict(t.metadata or {})
        if not ns:  # the name an application gave the thread (LangGraph keeps a run's config metadata): newest wins
            named = next((metadata[k] for k in NAME_KEYS if isinstance(metadata.get(k), str) and metadata[k].strip()),
                         None)
            if named:
                self.named = " ".join(named.split())[:200]
        ts = parse_ts(cp.get("ts")) or self.written
        me = (ns, cid)
        parent = (ns, parent_cid) if parent_cid else None
        if parent is None and not ns and self.root_parent:
            parent, self.root_parent = self.root_parent, None
        if parent is not None and parent not in self.tail:
            notes.append(f"checkpoint {cid}: its parent {parent_cid} could not be read; shown after the one "
                         "before it")
            parent = self._before(ns, cid)
        if parent is None and ns:  # a subgraph's first checkpoint: under its parent graph's step then
            parent = next((m for m in reversed(self.last_main) if m[1] <= cid), None)
        anchor = self.tail.get(parent) if parent else None
        channels = cp.get("channel_values") or {}
        side = bool(ns)
        agent = ns.split(":", 1)[0] if ns else None
        where = {"checkpoint_id": cid, "checkpoint_ns": ns}

        # the checkpoint itself, under the last event of its parent's
        state = _state(cp)
        old = self.states.get(parent, {}) if parent else {}
        # (in name order: PostgresSaver keeps a state as JSONB, whose keys come back in an order of its own)
        changed = sorted(k for k in state if old.get(k, object()) != state[k])
        nodes = _nodes(metadata, self.values.get(parent, {}) if parent else {})
        text = f"step {metadata.get('step', '?')} · {metadata.get('source', 'checkpoint')}"
        if nodes:
            text += " · " + ", ".join(nodes)
        if metadata.get("source") == "input" and isinstance(channels.get("__start__"), (dict, str)):
            start = channels["__start__"]
            text += " · input " + orjson.dumps(v.brief(start), default=str).decode()[:300]
        elif changed:
            text += " → " + ", ".join(changed)
        sid = step_id(self.key, ns, cid)
        self.events.append(NewEvent(
            id=sid, parent_id=anchor, ts=ts, kind="step", role="graph", text=text,
            payload=orjson.dumps({**where, "parent_checkpoint_id": parent_cid, "metadata": v.plain(metadata),
                                  "nodes": nodes, "changed": changed}).decode(),
            sidechain=side, agent_id=agent))
        group = len(self.events) - 1
        seen = dict(old)
        for k in changed:
            add_fact(self.events, seen, NS, sid, ts, k, state[k])
        versions = cp.get("channel_versions") or {}
        for k in old:
            if k not in state and k not in versions:  # a channel langgraph keeps but left out is not gone
                self.events.append(NewEvent(
                    id=str(uuid.uuid5(NS, f"{sid}:fact-:{k}")), parent_id=sid, ts=ts, kind="fact.delete",
                    role="extracted", text=f"{k} removed", payload=orjson.dumps({"key": k}).decode(), activity=False))

        # the messages this checkpoint added to each conversation channel
        conversations = v.message_channels(channels)
        before = self.messages.get(parent, []) if parent else []
        now = [m for k in conversations for m in channels[k]]
        self.messages[me] = now
        tail = sid
        for i, message in enumerate(v.new_messages(before, now)):
            for e in self._message_events(message, f"{self.key}:{ns}:{cid}:m{i}", tail, ts, where, side, agent):
                self.events.append(e)
                tail = e.id

        # what the graph stopped on after this checkpoint, and the answer it resumed with
        self.before_pending[me] = tail
        for e in self._pending(t.pending_writes or [], sid, tail, ts, where, side, agent):
            self.events.append(e)
            self.pending_ids.add(e.id)
            tail = e.id
        if not side:  # the thread's latest checkpoint is its head: the last event of its group
            next(e for e in self.events[group:] if e.id == tail).head = True
        self.tail[me], self.states[me], self.values[me] = tail, state, channels
        if not ns:
            self.last_main.append(me)

    def add_pending(self, t) -> None:
        """Writes that reached a checkpoint after it was read (an interrupt, the answer it resumed with, an
        error): their events, under what the checkpoint's group already holds, as a whole read would place
        them (their ids and links do not depend on when they are read)."""
        conf = t.config["configurable"]
        ns, cid = conf.get("checkpoint_ns", ""), conf["checkpoint_id"]
        me = (ns, cid)
        if me not in self.before_pending:
            return
        ts = parse_ts(t.checkpoint.get("ts")) or self.written
        where = {"checkpoint_id": cid, "checkpoint_ns": ns}
        fresh = [e for e in self._pending(t.pending_writes or [], step_id(self.key, ns, cid), self.before_pending[me],
                                          ts, where, bool(ns), ns.split(":", 1)[0] if ns else None)
                 if e.id not in self.pending_ids]
        if not fresh:
            return
        for e in fresh:
            self.pending_ids.add(e.id)
        if not ns:
            fresh[-1].head = True
        self.events += fresh
        self.tail[me] = fresh[-1].id

    def recall(self, me: tuple[str, str], cp: dict[str, Any]) -> None:
        """Bring back a checkpoint's state after `forget` dropped it (a new checkpoint hangs under it)."""
        channels = cp.get("channel_values") or {}
        self.states[me], self.values[me] = _state(cp), channels
        self.messages[me] = [m for k in v.message_channels(channels) for m in channels[k]]

    def forget(self, keep: int) -> None:
        """Keep the decoded state of the newest `keep` checkpoints only (a mirror lives as long as its
        graph runs; `recall` brings an older one back when it is needed again). Ids stay: they are small."""
        for table in (self.states, self.messages, self.values):
            for k in list(table)[:-keep] if len(table) > keep else ():
                if k[0] != "origin":
                    del table[k]

    def _before(self, ns: str, cid: str) -> tuple[str, str] | None:
        earlier = [k for k in self.tail if k[0] == ns and k[1] < cid]
        return max(earlier, key=lambda k: k[1]) if earlier else None

    def _message_events(self, m: Any, base: str, anchor: str | None, ts: float, where: dict, side: bool,
                        agent: str | None) -> list[NewEvent]:
        r = v.role(m)
        content = v.field_of(m, "content")
        text = v.text_of(content)
        mid = v.field_of(m, "id")
        out: list[NewEvent] = []

        def event(suffix: str, kind: str, role: str, body: str, extra: dict) -> None:
            out.append(NewEvent(
                id=str(uuid.uuid5(NS, f"{base}:{suffix}")), parent_id=out[-1].id if out else anchor, ts=ts,
                kind=kind, role=role, text=body[:65_536], sidechain=side, agent_id=agent,
                payload=orjson.dumps({**where, "message_id": mid, "type": r, **extra}, default=str).decode()))

        if r == "human":
            event("text", "message", "user", text, {"content": v.plain(content)})
            if not self.title and text.strip() and not side:
                self.title = from_prompt(text)
        elif r == "ai":
            if thinking := v.thinking_of(content):
                event("thinking", "thinking", "assistant", thinking, {})
            if text.strip() or not v.field_of(m, "tool_calls"):
                event("text", "message", "assistant", text, {"content": v.plain(content)})
            for i, call in enumerate(v.field_of(m, "tool_calls") or []):
                call = call if isinstance(call, dict) else v.plain(call)
                args = call.get("args", {})
                event(f"call{i}", "tool_call", "assistant",
                      f"{call.get('name', '')} {orjson.dumps(v.plain(args), default=str).decode()}",
                      {"name": call.get("name", ""), "input": v.plain(args), "id": call.get("id")})
            usage = v.field_of(m, "usage_metadata") or {}
            if out and isinstance(usage, dict) and (mid is None or mid not in self.counted):
                out[0].tokens_in = int(usage.get("input_tokens") or 0)
                out[0].tokens_out = int(usage.get("output_tokens") or 0)
                if mid:
                    self.counted.add(mid)
            meta = v.field_of(m, "response_metadata") or {}
            if not self.model and isinstance(meta, dict):
                self.model = str(meta.get("model_name") or meta.get("model") or "")
        elif r == "tool":
            status = v.field_of(m, "status")
            event("result", "tool_result", "tool", text,
                  {"output": text, "tool_call_id": v.field_of(m, "tool_call_id"), "name": v.field_of(m, "name"),
                   "is_error": status == "error"})
        elif r == "system":
            event("text", "system", "system", text, {})
        else:
            event("text", "message", r, text, {"content": v.plain(content)})
        return out

    def _pending(self, writes: list, sid: str, anchor: str, ts: float, where: dict, side: bool,
                 agent: str | None) -> list[NewEvent]:
        out: list[NewEvent] = []
        shown: set[str] = set()
        order = list(INTERNAL_WRITES)
        picked = sorted((w for w in writes if len(w) >= 3 and w[1] in INTERNAL_WRITES),
                        key=lambda w: order.index(w[1]))
        for task, channel, value in (w[:3] for w in picked):
            if channel == "__resume__" and isinstance(value, list) and len(value) == 1:
                value = value[0]  # a task's copy of the answer the null task holds too
            body = orjson.dumps(v.plain(value), default=str).decode()
            if (channel, body) in shown:
                continue
            shown.add((channel, body))
            what = INTERNAL_WRITES[channel]
            if what == "interrupt":
                values = value if isinstance(value, (list, tuple)) else [value]
                text = "Interrupted: " + "; ".join(
                    orjson.dumps(v.plain(getattr(i, "value", i)), default=str).decode() for i in values)
                kind, role = "interrupt", "graph"
            elif what == "resume":
                text = value if isinstance(value, str) else body
                kind, role = "message", "user"
            else:
                text, kind, role = f"Error: {body}", "system", "graph"
            out.append(NewEvent(
                id=str(uuid.uuid5(NS, f"{sid}:{channel}:{task}:{body[:200]}")), parent_id=out[-1].id if out else anchor,
                ts=ts, kind=kind, role=role, text=text[:65_536], sidechain=side, agent_id=agent,
                payload=orjson.dumps({**where, "channel": channel, "task_id": task, "value": v.plain(value)},
                                     default=str).decode()))
        return out
