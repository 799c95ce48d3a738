"""The lines of a Claude Code fork that ends where the user clicked.

"Fork at E" keeps the branch up to E (Store.branch_view with a head ends there):
what `claude_agent_sdk.fork_session(up_to_message_id=E)` keeps when no sibling
branch lies before the cut, in the same order with the same content and new
uuids. Two things are added, each only where the cut alone would give a
transcript the API refuses, and `ForkPlan` says which happened:

- E is a thinking block whose reply goes on in later lines of the same API
  response (Claude Code writes one line per content block): a reply of thinking
  alone cannot be sent back, so the fork runs on to the first line of that
  response that is not thinking.
- A tool call of the last reply has its result after the cut: it is closed as
  Claude Code closes a call the user interrupts (an `is_error` tool_result with
  its cancel message, then "[Request interrupted by user for tool use]"), so the
  fork opens and continues in `claude --resume`.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field

import orjson
import sqlalchemy as sa

from ...errors import Refused
from ...schema import EVENT
from ...store import Store
from ...views import EventView

# What Claude Code writes when the user interrupts a tool call (seen in the corpus).
CANCEL_MESSAGE = ("The user doesn't want to take this action right now. STOP what you are doing and "
                  "wait for the user to tell you how to proceed.")
INTERRUPT_MESSAGE = "[Request interrupted by user for tool use]"
KEEP_KINDS = ("message", "tool_call", "tool_result", "thinking", "compaction", "compaction_summary",
              "system", "attachment")
_DROP_FIELDS = ("teamName", "agentName", "slug", "sourceToolAssistantUUID")
_ENVELOPE = ("userType", "cwd", "version", "gitBranch", "entrypoint")


@dataclass
class ForkPlan:
    """A fork's new session id and lines, and what was added beyond the cut (for the UI)."""

    session_id: str
    lines: list[str]
    ends_at: str  # the original event the fork's history ends at
    extended: list[str] = field(default_factory=list)  # lines after E kept to finish a thinking-only reply
    interrupted: list[str] = field(default_factory=list)  # tool_use ids closed as interrupted

    @property
    def exact(self) -> bool:
        """True when the fork holds exactly the branch up to E (what fork_session would write)."""
        return not self.extended and not self.interrupted

    def describe(self) -> str:
        """One sentence for the status bar / CLI about what the fork holds beyond the cut."""
        parts = []
        if self.extended:
            parts.append(f"kept {len(self.extended)} more line(s) of the same reply (a reply of thinking alone "
                         "cannot be resumed)")
        if self.interrupted:
            parts.append(f"closed {len(self.interrupted)} tool call(s) whose result came after the cut as "
                         "interrupted, as Claude Code does")
        return "; ".join(parts)


def _entry(e: EventView) -> dict | None:
    try:
        obj = orjson.loads(e.payload)
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def _blocks(entry: dict) -> list[dict]:
    msg = entry.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _response_id(entry: dict) -> str | None:
    msg = entry.get("message")
    mid = msg.get("id") if isinstance(msg, dict) and entry.get("type") == "assistant" else None
    return mid if isinstance(mid, str) and mid else None


def _thinking_only(entry: dict) -> bool:
    blocks = _blocks(entry)
    return entry.get("type") == "assistant" and bool(blocks) and all(b.get("type") == "thinking" for b in blocks)


def _rest_of_reply(store: Store, cut: EventView, entry: dict) -> list[EventView]:
    """The lines after a thinking-only `cut` up to the first one of its response that is not thinking."""
    response = _response_id(entry)
    if response is None:
        return []
    with store.reader() as conn:
        ids = conn.execute(sa.select(EVENT.c.id).where(
            EVENT.c.session_id == cut.session_id, EVENT.c.seq > cut.seq, EVENT.c.sidechain.is_(False),
            EVENT.c.role == "assistant").order_by(EVENT.c.seq).limit(64)).scalars().all()
    out = []
    for e in store.events_by_ids(list(ids)):
        later = _entry(e)
        if later is None or _response_id(later) != response:
            continue
        out.append(e)
        if not _thinking_only(later):
            return out
    return []  # the reply never went past thinking (interrupted): nothing to finish it with


def _unanswered_calls(entries: list[dict]) -> list[tuple[int, str]]:
    """(index of the line, tool_use id) of the last reply's calls that have no result in `entries`."""
    answered = {b.get("tool_use_id") for x in entries for b in _blocks(x) if b.get("type") == "tool_result"}
    last_response = next((_response_id(x) for x in reversed(entries) if _response_id(x)), None)
    if last_response is None:
        return []
    out = []
    for i, x in enumerate(entries):
        if _response_id(x) != last_response:
            continue
        for b in _blocks(x):
            if b.get("type") == "tool_use" and isinstance(b.get("id"), str) and b["id"] not in answered:
                out.append((i, b["id"]))
    return out


def _timestamp() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def plan_fork(store: Store, session_id: str, up_to: str, title: str | None = None) -> ForkPlan:
    """The lines of a fork ending at `up_to`: its branch only, never a sibling branch or a later line."""
    at = store.event(up_to)
    if at.sidechain:
        raise Refused(f"event #{at.seq} is part of a subagent's run{f' (agent {at.agent_id})' if at.agent_id else ''}, "
                      "which Claude Code cannot resume as a session of its own: fork at the tool call that started "
                      "the run, or at any event of the main conversation")
    branch = store.branch_view(session_id, head=up_to)
    cut = next((e for e in branch if e.id == up_to), None)
    extended: list[EventView] = []
    if cut is not None and (entry := _entry(cut)) is not None and _thinking_only(entry):
        extended = _rest_of_reply(store, cut, entry)
    events = [e for e in branch + extended
              if e.kind in KEEP_KINDS and not e.sidechain and e.payload.startswith("{")]
    entries = [_entry(e) for e in events]
    events = [e for e, x in zip(events, entries) if x is not None]
    entries = [x for x in entries if x is not None]
    if not events:
        raise Refused(f"nothing to fork in session {session_id} up to {up_to}")
    mapping = {x["uuid"]: str(uuid.uuid4()) for x in entries if isinstance(x.get("uuid"), str)}
    kept = {e.id for e in events}
    parent_of = {e.id: e.parent_id for e in branch + extended}
    new_id = str(uuid.uuid4())
    now = _timestamp()
    open_calls = _unanswered_calls(entries)
    last_real = len(events) - 1
    lines: list[str] = []
    for i, (ev, entry) in enumerate(zip(events, entries)):
        parent = entry.get("parentUuid")
        while parent and parent not in kept:  # skip progress and other dropped ancestors
            parent = parent_of.get(parent)
        logical = entry.get("logicalParentUuid")
        forked = {**entry, "uuid": mapping.get(entry.get("uuid"), str(uuid.uuid4())),
                  "parentUuid": mapping.get(parent) if parent else None,
                  "logicalParentUuid": mapping.get(logical) if logical else logical,
                  "sessionId": new_id, "isSidechain": False,
                  "timestamp": now if i == last_real and not open_calls else entry.get("timestamp", now),
                  "forkedFrom": {"sessionId": session_id, "messageUuid": entry.get("uuid")}}
        for key in _DROP_FIELDS:
            forked.pop(key, None)
        lines.append(orjson.dumps(forked).decode())
    if open_calls:
        lines += _interruption(entries, open_calls, mapping, orjson.loads(lines[-1])["uuid"], new_id, now)
    s = store.session(session_id)
    name = title.strip() if title and title.strip() else f"{s.title or 'Forked session'} (fork)"
    lines.append(orjson.dumps({"type": "custom-title", "sessionId": new_id, "customTitle": name,
                               "uuid": str(uuid.uuid4()), "timestamp": now}).decode())
    return ForkPlan(new_id, lines, events[-1].id, [e.id for e in extended], [tid for _, tid in open_calls])


def _interruption(entries: list[dict], open_calls: list[tuple[int, str]], mapping: dict[str, str],
                  last_uuid: str, new_id: str, now: str) -> list[str]:
    """What Claude Code writes when the user interrupts tool calls: one cancelled result per
    call, then the interruption notice (the lines carry no forkedFrom: they are not copies)."""
    envelope = {k: entries[-1][k] for k in _ENVELOPE if k in entries[-1]}
    out, parent = [], last_uuid
    for index, tool_use_id in open_calls:
        line = {"parentUuid": parent, "isSidechain": False, **envelope, "sessionId": new_id, "type": "user",
                "message": {"role": "user", "content": [{"type": "tool_result", "content": CANCEL_MESSAGE,
                                                         "is_error": True, "tool_use_id": tool_use_id}]},
                "uuid": str(uuid.uuid4()), "timestamp": now, "toolUseResult": f"Error: {CANCEL_MESSAGE}",
                "sourceToolAssistantUUID": mapping.get(entries[index].get("uuid"))}
        out.append(orjson.dumps(line).decode())
        parent = line["uuid"]
    notice = {"parentUuid": parent, "isSidechain": False, **envelope, "sessionId": new_id, "type": "user",
              "message": {"role": "user", "content": [{"type": "text", "text": INTERRUPT_MESSAGE}]},
              "uuid": str(uuid.uuid4()), "timestamp": now}
    out.append(orjson.dumps(notice).decode())
    return out
