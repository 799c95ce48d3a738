"""One managed-agents API event (as `events.list` returns it, a JSON object) → one store event.

The API's stream is linear per thread: each event hangs under the one before it. Event ids are the
API's (`sevt_…`), so pulling the same page twice adds nothing. Everything the API sent is kept as the
payload; the kind and text are what the timeline and search read.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import orjson

from sessionscope.sources.records import parse_ts
from sessionscope.sources.remote import count
from sessionscope.store.incoming import NewEvent

MAX_EVENT_CHARS = 8 << 20  # an event's JSON longer than this is stored truncated, with a note

TOOL_CALLS = ("agent.tool_use", "agent.mcp_tool_use", "agent.custom_tool_use")
TOOL_RESULTS = ("agent.tool_result", "agent.mcp_tool_result", "user.custom_tool_result", "user.tool_result")
STATUS = {"session.status_running": "running", "session.status_idle": "idle",
          "session.status_rescheduled": "rescheduling", "session.status_terminated": "terminated"}


def blocks_text(content: Any) -> str:
    """The text of a list of content blocks (images and documents by their kind)."""
    if isinstance(content, str):
        return content
    parts = []
    for b in content or []:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text":
            parts.append(str(b.get("text", "")))
        elif b.get("type") in ("image", "document", "search_result", "redacted"):
            parts.append(f"[{b['type']}]")
    return "\n".join(parts)


def _stop(e: dict) -> str:
    reason = e.get("stop_reason")
    return reason.get("type", "") if isinstance(reason, dict) else str(reason or "")


def describe(e: dict) -> tuple[str, str | None, str]:
    """(kind, role, text) of an API event."""
    t = str(e.get("type", ""))
    if t == "user.message":
        return "message", "user", blocks_text(e.get("content"))
    if t == "agent.message":
        return "message", "assistant", blocks_text(e.get("content"))
    if t in ("agent.thread_message_sent", "agent.thread_message_received"):
        other = e.get("to_agent_name") or e.get("from_agent_name") or e.get("to_session_thread_id") or ""
        arrow = "→" if t.endswith("sent") else "←"
        return "message", "assistant", f"{arrow} {other}: {blocks_text(e.get('content'))}".strip()
    if t == "agent.thinking":
        return "thinking", "assistant", ""
    if t in TOOL_CALLS:
        name = str(e.get("name", ""))
        if e.get("mcp_server_name"):
            name = f"{e['mcp_server_name']}/{name}"
        return "tool_call", "assistant", f"{name} {orjson.dumps(e.get('input') or {}).decode()}"
    if t in TOOL_RESULTS:
        text = blocks_text(e.get("content"))
        return "tool_result", "tool", ("error: " + text) if e.get("is_error") else text
    if t == "user.interrupt":
        return "interrupt", "user", "interrupted by the user"
    if t == "user.tool_confirmation":
        return "system", "user", f"tool confirmation: {e.get('result', '')} {e.get('deny_message') or ''}".strip()
    if t == "agent.thread_context_compacted":
        return "compaction", "system", "the agent's context was compacted"
    if t in STATUS:
        stop = _stop(e)
        return "system", "status", f"{STATUS[t]}{': ' + stop if stop else ''}"
    if t == "session.error":
        err = e.get("error") if isinstance(e.get("error"), dict) else {}
        return "system", "error", f"error: {err.get('type', '')} {err.get('message', '')}".strip()
    if t == "session.thread_created":
        return "system", "status", f"subagent {e.get('agent_name', '')} started ({e.get('session_thread_id', '')})"
    if t in ("system.message", "user.define_outcome"):
        return "system", "system" if t == "system.message" else "user", blocks_text(e.get("content")) or t
    return "meta", None, t  # spans, usage, thread statuses, workflow runs: kept, folded away


def to_new_event(e: dict, parent_id: str | None, *, thread: str | None = None) -> NewEvent:
    """The store event for API event `e`, under `parent_id`; a subagent thread's events are a sidechain."""
    kind, role, text = describe(e)
    tokens_in = tokens_out = 0
    if e.get("type") == "span.model_request_end" and isinstance(e.get("model_usage"), dict):
        u = e["model_usage"]
        tokens_in = sum(count(u.get(k)) for k in ("input_tokens", "cache_read_input_tokens",
                                                  "cache_creation_input_tokens"))
        tokens_out = count(u.get("output_tokens"))
        text = f"model request: {tokens_in:,} tokens in ({count(u.get('cache_read_input_tokens')):,} " \
               f"cache reads), {tokens_out:,} out"
        role = "usage"
    ts = parse_ts(e.get("processed_at")) or time.time()  # a queued event has no processed_at yet
    payload = orjson.dumps(e, option=orjson.OPT_NON_STR_KEYS).decode()
    if len(payload) > MAX_EVENT_CHARS:  # kept truncated, saying so: one event cannot take the store's memory
        size = len(payload)
        payload = orjson.dumps({k: e.get(k) for k in ("id", "type", "processed_at") if k in e} | {
            "sessionscope_truncated": {"characters": size, "kept": MAX_EVENT_CHARS // 4},
            "head": payload[:MAX_EVENT_CHARS // 4]}, option=orjson.OPT_NON_STR_KEYS).decode()
        text = f"[an event of {size:,} characters, stored truncated] " + text[:2000]
    event_id = e.get("id") if isinstance(e.get("id"), str) and e.get("id") else \
        str(uuid.uuid5(uuid.NAMESPACE_URL, payload))  # an event without an id: the same one gets the same id
    return NewEvent(id=event_id, parent_id=parent_id, ts=ts, kind=kind, role=role, text=text[:16_384],
                    payload=payload, tokens_in=tokens_in, tokens_out=tokens_out,
                    sidechain=thread is not None, agent_id=thread, head=thread is None,
                    logical_parent=thread is not None)
