"""Codex's turn from its last lines (#35, sessionscope.live.states): its own task events say it exactly —
`event_msg/task_complete` (the turn ended), `turn_aborted` (stopped), `task_started` (working on a prompt);
else who spoke last, as every tool (FORMATS.md §2)."""

from __future__ import annotations

import orjson

from sessionscope.live.states import Turn, by_kinds

TASK = {"task_complete": Turn("ended", "Codex finished the task"),
        "turn_aborted": Turn("aborted", "the turn was aborted"),
        "task_started": Turn("answering", "Codex is working on your prompt")}


def _task(payload: str) -> Turn | None:
    if '"event_msg"' not in payload[:200]:
        return None
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    p = obj.get("payload") if isinstance(obj, dict) else None
    return TASK.get(p.get("type")) if isinstance(p, dict) else None


def turn(tail) -> Turn | None:
    for e in reversed(tail):
        if e.kind == "meta":
            found = _task(e.payload)
            if found is not None:
                return found
        elif e.kind in ("message", "tool_call", "tool_result"):
            return by_kinds([e])
    return None
