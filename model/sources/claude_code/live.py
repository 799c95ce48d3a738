"""Claude Code's turn from its last lines (#35, sessionscope.live.states): who spoke last, as every tool, and two things
only its lines say — Esc (a user line "[Request interrupted by user…]": the turn stopped, Claude waits for you)
and thinking (the reply is on its way). A reply's `stop_reason` is null on most of its split lines, so the last
reply ends the turn unless a tool call follows it (FORMATS.md §1)."""

from __future__ import annotations

from sessionscope.live.states import Turn, by_kinds

INTERRUPTED = "[Request interrupted by user"


def turn(tail) -> Turn | None:
    for e in reversed(tail):
        if e.kind == "message" and e.role == "user" and e.text.startswith(INTERRUPTED):
            return Turn("aborted", "you interrupted the turn (Esc)")
        if e.kind == "thinking":
            return Turn("answering", "Claude is thinking")
        if e.kind in ("message", "tool_call", "tool_result"):
            return by_kinds([e])
    return None
