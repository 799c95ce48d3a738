"""Which tool call a tool result answers: by the id the tool gave the call, never by position alone.

Claude Code writes call, call, result, result all the time, so "the results after
the last call" folds output under the wrong call. Every tool names the call a result
answers; the names differ:

- Claude Code / Anthropic: `tool_use` blocks' `id`, `tool_result` blocks' `tool_use_id`
- Codex CLI, Agents SDK: `call_id` on `function_call` / `*_output` items (Codex wraps them in `payload`)
- LangGraph: a call's `id`, a ToolMessage's `tool_call_id`; Cline, OpenHands (as our importers
  write them): `id`, `tool_use_id`
- Gemini CLI: each `toolCalls[]` item's `id`, its `functionResponse.id`

Only where a result names no call (Aider, older logs) does position decide: the
first unanswered call of the block of calls before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

CALL, RESULT = "tool_call", "tool_result"


def _load(payload: Any) -> Any:
    if isinstance(payload, (dict, list)):
        return payload
    if not isinstance(payload, str) or not payload or payload[0] not in "{[":
        return None
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None


def _blocks(p: dict) -> list:
    msg = p.get("message")
    content = msg.get("content") if isinstance(msg, dict) else p.get("content")
    return content if isinstance(content, list) else []


def call_ids(payload: Any) -> list[str]:
    """The ids of the calls a tool-call event makes (several when one line holds several)."""
    p = _load(payload)
    if not isinstance(p, dict):
        return []
    ids = [str(b["id"]) for b in _blocks(p) if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id")]
    if ids:
        return ids
    inner = p.get("payload") if isinstance(p.get("payload"), dict) else p  # Codex's envelope
    if inner.get("call_id"):
        return [str(inner["call_id"])]
    calls = p.get("toolCalls")
    if isinstance(calls, list):
        return [str(c["id"]) for c in calls if isinstance(c, dict) and c.get("id")]
    if p.get("id") and isinstance(p.get("name"), str):
        return [str(p["id"])]
    return []


def answered(payload: Any) -> list[str]:
    """The ids of the calls a tool-result event answers."""
    p = _load(payload)
    if isinstance(p, list):  # Gemini keeps a call's result as its list of parts
        p = {"result": p}
    if not isinstance(p, dict):
        return []
    ids = [str(b["tool_use_id"]) for b in _blocks(p)
           if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id")]
    if ids:
        return ids
    inner = p.get("payload") if isinstance(p.get("payload"), dict) else p
    for key in ("call_id", "tool_use_id", "tool_call_id"):
        if inner.get(key):
            return [str(inner[key])]
    for part in p.get("result") or [] if isinstance(p.get("result"), list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and response.get("id"):
            return [str(response["id"])]
    return []


class Pairer:
    """Pairs results with calls as the events come, in reading order (what `pair` does for a whole list, for a
    reader that walks a session once)."""

    def __init__(self) -> None:
        self.owner: dict[tuple[bool, str], str] = {}  # (sidechain, call id) → call event
        self.block: dict[bool, list[str]] = {False: [], True: []}  # calls of the current block not yet answered
        self.after_result: dict[bool, bool] = {False: False, True: False}

    def see(self, eid: str, kind: str, payload: Any, side: bool) -> str | None:
        """Take one event; for a result, the call event it answers (None: none found)."""
        if kind == CALL:
            if self.after_result[side]:
                self.block[side], self.after_result[side] = [], False  # a new block of calls begins
            for cid in call_ids(payload):
                self.owner[(side, cid)] = eid
            self.block[side].append(eid)
        elif kind == RESULT:
            self.after_result[side] = True
            hit = next((self.owner[(side, a)] for a in answered(payload) if (side, a) in self.owner), None)
            if hit is None and self.block[side]:
                hit = self.block[side][0]  # no id to go by: the first call of the block still unanswered
            if hit is not None and hit in self.block[side]:
                self.block[side].remove(hit)
            return hit
        elif kind not in ("progress", "meta", "context", "fact.set", "fact.delete", "checkpoint"):
            self.block[side], self.after_result[side] = [], False
        return None


def pair(events: Iterable[tuple[str, str, Any, bool]]) -> dict[str, str]:
    """{result event id: the call event it answers} for events in reading order, each given as
    (event id, kind, payload, sidechain). A subagent's events pair among themselves."""
    p, out = Pairer(), {}
    for eid, kind, payload, side in events:
        hit = p.see(eid, kind, payload, side)
        if hit is not None:
            out[eid] = hit
    return out
