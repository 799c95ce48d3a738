"""Gemini CLI chat records → store events (see shared/corpus/FORMATS.md §3).

A message record becomes its own event (id = the message's id), its thoughts a
thinking event, each tool call a call event and its result a result event under
it (ids derived from the message and call ids). Gemini appends a message again
when it changes (its tool calls finish): the copy adds what the first lacked
(results) and nothing twice, since every id is deterministic (derived from the
chat's id and the message's: fixtures reuse message ids across chats). A
`$rewindTo` makes the next message hang under the rewound message's parent: the
abandoned turns stay, as a branch. Legacy `.json` files are the same records in
one document, rewritten whole: they are read again when they change.

A subagent's chat (`chats/<parent session id>/<its id>.jsonl`, `kind: "subagent"`) is a subagent run in
the parent's session (sidechain events, `agent_id` = its session id), as Claude Code's subagent files are;
it names only when it began (`meta.subagents[id].spawned_at`), which places the run after the parent's event
of that moment: the call that spawned it.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson

from sessionscope.history.titles import from_prompt
from sessionscope.sources.records import add_fact, parse_ts
from sessionscope.store.incoming import NewEvent, SessionInfo

NS = uuid.UUID("5e0d1a7b-9c3f-4b62-8e1d-2f6a9b4c7d10")
TEXT_MAX = 16_384


def sniff(obj: Any) -> bool:
    """A Gemini chat's metadata line, or a whole legacy chat document."""
    return isinstance(obj, dict) and isinstance(obj.get("sessionId"), str) and "projectHash" in obj


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text")) for p in content if isinstance(p, dict) and p.get("text"))
    return ""


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_MAX else text[:TEXT_MAX] + f"\n… [{len(text) - TEXT_MAX:,} more characters]"


@dataclass
class GeminiChat:
    """What one import run learns about one chat file (one session)."""

    source_id: int
    info: SessionInfo | None = None
    events: list[NewEvent] = field(default_factory=list)
    last: str | None = None  # the event the next message hangs under
    parents: dict[str, str | None] = field(default_factory=dict)  # message id → the event it hangs under
    ends: dict[str, str] = field(default_factory=dict)  # message id → its last event (calls and results after it)
    rewound_to: str | None = None  # a $rewindTo seen: the next message branches off before it
    newest: str | None = None  # the message seen last for the first time (a re-appended older copy moves nothing)
    stored_parent: Any = None  # (message id) → its parent in the store, for a rewind to an earlier run's message
    pending: tuple[str, dict, str, str] | None = None  # the newest message, held until its last copy is known
    facts: dict[str, Any] = field(default_factory=dict)
    titled: bool = False
    last_ts: float = 0.0
    parent_session: str | None = None  # the chat is in chats/<this>/: a subagent's, of that session
    agent_id: str | None = None  # a subagent's chat: its own session id (its events are a run in the parent's)

    def session(self, session_id: str) -> SessionInfo:
        if self.info is None:
            self.info = SessionInfo(id=session_id, source_id=self.source_id, tool_id=session_id)
        return self.info

    @property
    def scope(self) -> str:
        """What message ids are unique within (the chat: a subagent's within its own chat, not the parent's)."""
        return self.agent_id or self.info.id


def metadata(obj: dict[str, Any], chat: GeminiChat) -> None:
    """The chat's first line (or the legacy document's top): identity, times, summary."""
    own = obj["sessionId"]
    if chat.parent_session and own != chat.parent_session and (obj.get("kind") in (None, "subagent")):
        chat.agent_id, chat.titled = own, True
        started = parse_ts(obj.get("startTime"))
        run = {"kind": "subagent"} | ({"spawned_at": started} if started is not None else {})
        chat.session(chat.parent_session).meta["subagents"] = {own: run}
        return  # a subagent's chat says nothing of the parent session's title or folder
    info = chat.session(own)
    if isinstance(obj.get("summary"), str) and obj["summary"].strip():
        info.fields["title"] = " ".join(obj["summary"].split())[:200]
        info.meta.update(title_source="summary", title_rank=2)
        chat.titled = True
    if isinstance(obj.get("kind"), str):
        info.meta["gemini_kind"] = obj["kind"]
    if isinstance(obj.get("projectHash"), str):
        info.meta["project_hash"] = obj["projectHash"]
        info.fields.setdefault("project", obj["projectHash"][:12])
    dirs = obj.get("directories")
    if isinstance(dirs, list) and dirs and isinstance(dirs[0], str) and dirs[0].startswith("/"):
        info.fields["cwd"] = dirs[0]  # the folder it ran in: `gemini --resume` finds the session from there
        info.fields["project"] = dirs[0].rstrip("/").rsplit("/", 1)[-1] or dirs[0]


def record(obj: Any, raw: str, chat: GeminiChat, fallback_id: str) -> None:
    """One line of a `.jsonl` chat, or one message of a legacy document (raw: its JSON). The newest
    message is held (`flush` writes it) so that, when Gemini appends it again, its last copy wins."""
    if not isinstance(obj, dict):
        return
    mid = obj.get("id") if isinstance(obj.get("id"), str) else None
    if mid and obj.get("type") in ("user", "gemini", "info", "error", "warning"):
        if chat.pending is None or chat.pending[0] != mid:
            flush(chat)
        chat.pending = (mid, obj, raw, fallback_id)
        return
    flush(chat)
    if "$set" in obj and isinstance(obj["$set"], dict):
        s = obj["$set"]
        if isinstance(s.get("summary"), str) and s["summary"].strip():
            info = chat.session(chat.info.id if chat.info else fallback_id)
            if chat.agent_id is None:
                info.fields["title"] = " ".join(s["summary"].split())[:200]
            info.meta.update(title_source="summary", title_rank=2)
        if isinstance(s.get("messages"), list):  # a checkpoint of the whole list
            for m in s["messages"]:
                record(m, orjson.dumps(m).decode(), chat, fallback_id)
        return
    if isinstance(obj.get("$rewindTo"), str):
        chat.rewound_to = obj["$rewindTo"]
        return
    if sniff(obj):
        metadata(obj, chat)
        return
    chat.session(chat.info.id if chat.info else fallback_id)
    digest = hashlib.sha1(raw.encode("utf-8", "replace")).hexdigest()  # the same line, the same event
    _add(chat, str(uuid.uuid5(NS, f"{chat.scope}:{digest}")), "opaque", None, "", raw,
         chat.last_ts, chat.last, activity=False)


def flush(chat: GeminiChat) -> None:
    """Write the held message (call at the end of every batch and document)."""
    if chat.pending is None:
        return
    mid, obj, raw, fallback_id = chat.pending
    chat.pending = None
    kind_of = obj["type"]
    info = chat.session(chat.info.id if chat.info else fallback_id)
    ts = parse_ts(obj.get("timestamp"))
    ts = ts if ts is not None else chat.last_ts
    chat.last_ts = ts
    mid = str(uuid.uuid5(NS, f"{chat.scope}:{mid}"))  # message ids are unique per chat only (fixtures reuse "1")
    if mid not in chat.parents:  # its first copy: where it hangs
        if chat.rewound_to is not None:
            target = str(uuid.uuid5(NS, f"{chat.scope}:{chat.rewound_to}"))
            chat.last = chat.parents[target] if target in chat.parents else \
                chat.stored_parent(target) if chat.stored_parent else chat.last
            chat.rewound_to = None
        chat.parents[mid] = chat.last
        chat.newest = mid
    parent = chat.parents[mid]
    text = _text(obj.get("content"))
    if kind_of == "user":
        _add(chat, mid, "message", "user", text, raw, ts, parent)
        if not chat.titled and text.strip() and not text.lstrip().startswith("/"):
            info.fields["title"] = from_prompt(text)
            info.meta.update(title_source="first_prompt", title_rank=1)
            chat.titled = True
    elif kind_of == "gemini":
        _gemini(obj, mid, text, raw, ts, parent, chat, info)
    else:
        _add(chat, mid, "system", "system", f"{kind_of}: {text}", raw, ts, parent)
    if mid == chat.newest:
        chat.last = chat.ends.get(mid, mid)


def _gemini(obj: dict[str, Any], mid: str, text: str, raw: str, ts: float, parent: str | None,
            chat: GeminiChat, info: SessionInfo) -> None:
    cur = parent
    thoughts = [t for t in obj.get("thoughts") or [] if isinstance(t, dict)]
    if thoughts:
        tid = str(uuid.uuid5(NS, f"{mid}:thoughts"))
        _add(chat, tid, "thinking", "assistant", "\n\n".join(
            f"{t.get('subject') or ''}: {t.get('description') or ''}".strip(": ") for t in thoughts), "", ts, cur)
        cur = tid
    tokens = obj.get("tokens") if isinstance(obj.get("tokens"), dict) else {}
    t_in = int(tokens.get("input") or 0)
    t_out = int(tokens.get("output") or 0) + int(tokens.get("thoughts") or 0)
    _add(chat, mid, "message", "assistant", text, raw, ts, cur, t_in, t_out)
    if isinstance(obj.get("model"), str) and obj["model"] and chat.agent_id is None:
        info.fields["model"] = obj["model"]
        _fact(chat, mid, ts, "model", obj["model"])
    cur = mid
    for call in obj.get("toolCalls") or []:
        if not isinstance(call, dict):
            continue
        cid = str(call.get("id") or call.get("name"))
        call_event = str(uuid.uuid5(NS, f"{mid}:call:{cid}"))
        args = call.get("args")
        _add(chat, call_event, "tool_call", "assistant",
             _clip(f"{call.get('name', '')} {orjson.dumps(args).decode() if args is not None else ''}".strip()),
             orjson.dumps(call).decode(), parse_ts(call.get("timestamp")) or ts, cur)
        cur = call_event
        path = args.get("file_path") or args.get("absolute_path") if isinstance(args, dict) else None
        if call.get("name") in ("replace", "write_file", "edit") and isinstance(path, str) and chat.agent_id is None:
            _fact(chat, call_event, ts, f"file:{path}", "edit")
        if call.get("result") is not None or call.get("status") in ("success", "error", "cancelled"):
            out = _result_text(call)
            rid = str(uuid.uuid5(NS, f"{mid}:result:{cid}"))
            _add(chat, rid, "tool_result", "tool", _clip(out), orjson.dumps(call.get("result")).decode(), ts, cur)
            cur = rid
    chat.ends[mid] = cur


def _result_text(call: dict[str, Any]) -> str:
    parts = []
    for r in call.get("result") or []:
        resp = r.get("functionResponse", {}).get("response") if isinstance(r, dict) else None
        if isinstance(resp, dict):
            out = resp.get("output", resp.get("error"))
            parts.append(out if isinstance(out, str) else orjson.dumps(out).decode())
    text = "\n".join(parts) or (call.get("resultDisplay") if isinstance(call.get("resultDisplay"), str) else "")
    return f"[{call.get('status')}] {text}" if call.get("status") not in (None, "success") else text


def _add(chat: GeminiChat, eid: str, kind: str, role: str | None, text: str, payload: str, ts: float,
         parent: str | None = None, tokens_in: int = 0, tokens_out: int = 0, activity: bool = True) -> None:
    run = chat.agent_id
    chat.events.append(NewEvent(id=eid, parent_id=parent, ts=ts, kind=kind, role=role, text=_clip(text),
                                payload=payload, tokens_in=tokens_in, tokens_out=tokens_out, activity=activity,
                                head=kind in ("message", "tool_call", "tool_result", "thinking") and run is None,
                                sidechain=run is not None, agent_id=run))


def _fact(chat: GeminiChat, anchor: str, ts: float, key: str, value: Any) -> None:
    add_fact(chat.events, chat.facts, NS, anchor, ts, key, value)
