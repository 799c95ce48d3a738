"""Run an agent on a session from here (#63): the session's tool continues it, or a fork of it, with a prompt; the
reply streams to the listener, tool calls ask the listener, and the transcript the tool wrote is imported when the
run ends (sessionscope.sources.running says what a run is)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sessionscope.history.read_models import Action, Changes, SessionView
from sessionscope.ops.sessions import act
from sessionscope.sources.running import Listener, RunRequest

if TYPE_CHECKING:
    from sessionscope.sources.base import Source
    from sessionscope.store.api import Store


def run(store: Store, session_id: str, request: RunRequest, listener: Listener, *, actor: str | None = None) -> Changes:
    """Run `request` on the session (blocks until the run ends: call it on a worker); `changes.session` is the
    session the run wrote (a fork's own for a fork). Recorded as `run` with how it ended, never the prompt's words."""
    def work(src: Source, session: SessionView) -> Changes:
        outcome = src.run(store, session, request, listener)
        written = store.session(outcome.session_id) if outcome.session_id else session
        detail = {"fork": request.fork, "at": request.at, "model": request.model,
                  "permission_mode": request.permission_mode, "prompt_chars": len(request.prompt),
                  "ended": outcome.ended, "turns": outcome.turns, "cost_usd": outcome.cost_usd,
                  "seconds": round(outcome.duration_s, 1), "session": outcome.session_id,
                  "asked": [{"tool": t, "allowed": ok} for t, ok in outcome.asked]}
        cost = f", ${outcome.cost_usd:.2f}" if outcome.cost_usd else ""
        note = (f"{'the fork ' + (outcome.session_id or '') if request.fork else 'the session'} ran: {outcome.ended}, "
                f"{outcome.turns} turn{'s' if outcome.turns != 1 else ''}{cost}")
        return Changes(Action.RUN, session=written, session_list=True, note=note, detail=detail,
                       session_ids=frozenset({session.id, written.id}))
    return act(store, "run", session_id, work, event_id=request.at, actor=actor)
