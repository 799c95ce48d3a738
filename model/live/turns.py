"""The evidence of where a session's turn stands, before any state is decided from it (sessionscope.live.states): what a
tool's last lines say (`Source.turn`, read from TailEvents) or its hook said (sessionscope.live.signals). Below both,
so neither the sources nor the signals import the live states."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Turn:
    """What a tool's last lines say (Source.turn): `where` is "ended" (the last reply ended the turn), "tool" (a
    tool call waits for its result), "answering" (a prompt or a result waits for the agent), "aborted" (the turn
    was stopped: the tool waits for you), "approval" (a permission request waits), "closed" (the tool's hook
    said the session ended)."""

    where: str
    why: str
    exact: bool = False  # said by the tool's own hook (sessionscope.live.signals), not read from its lines


@dataclass(frozen=True)
class TailEvent:
    kind: str
    role: str | None
    text: str
    payload: str
    ts: float



def by_kinds(tail: list[TailEvent]) -> Turn | None:
    """The rule of a tool whose lines say no more than who spoke: the last message, call or result."""
    for e in reversed(tail):
        if e.kind == "tool_call":
            name = e.text.rsplit("\n", 1)[-1].split(" ", 1)[0]  # (what the reply said first comes before the call)
            return Turn("tool", f"a {name or 'tool'} call waits for its result")
        if e.kind == "tool_result":
            return Turn("answering", "a tool's result waits for the agent")
        if e.kind == "message" and e.role == "user":
            return Turn("answering", "your prompt waits for the agent")
        if e.kind == "message":
            return Turn("ended", "the last reply ended its turn")
    return None
