"""Run an agent on a session from here (#63): the session's tool continues it, or a fork of it, with a prompt; the
reply streams to the listener, tool calls ask the listener, and the transcript the tool wrote is imported when the
run ends (sessionscope.sources.running says what a run is)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sessionscope.history.read_models import Action, Changes, SessionView
from sessionscope.live import signals
from sessionscope.ops.sessions import act
from sessionscope.sources.running import Answer, Listener, RunRequest, ToolAsk, brief

if TYPE_CHECKING:
    from sessionscope.sources.base import Source
    from sessionscope.store.api import Store


class _Said:
    """The listener, with what the run is at kept as the session's live signal (as its tool's hooks would say
    it): a permission asked for makes the session need you (Needs You, a notification) until it is answered."""

    def __init__(self, store: Store, kind: str, listener: Listener):
        self.store, self.kind, self.listener = store, kind, listener
        self.spoken: set[str] = set()  # the sessions given a signal: told when the run ends

    def said(self, text: str) -> None:
        self.listener.said(text)

    def step(self, kind: str, text: str) -> None:
        self.listener.step(kind, text)

    def stopped(self) -> bool:
        return self.listener.stopped()

    def ask(self, request: ToolAsk) -> Answer:
        what = f"{request.tool}: {brief(request.input)}"
        self._signal(request.session_id, "PermissionRequest", what)
        answer = Answer(False, message="The run stopped before the user answered.")
        try:
            answer = self.listener.ask(request)
        finally:
            self._signal(request.session_id, "PreToolUse" if answer.allow else "UserPromptSubmit", what)
        return answer

    def _signal(self, session_id: str | None, event: str, detail: str) -> None:
        if session_id:
            self.spoken.add(session_id)
            try:
                signals.record(self.store, self.kind, session_id, event, detail)
            except Exception:  # a store that refuses the row (locked long, a member's) must not stop the run
                pass


def run(store: Store, session_id: str, request: RunRequest, listener: Listener, *, actor: str | None = None) -> Changes:
    """Run `request` on the session (blocks until the run ends: call it on a worker); `changes.session` is the
    session the run wrote (a fork's own for a fork). Recorded as `run` with how it ended, never the prompt's words.
    While the run asks a permission, the session needs you (its live signal, as a hook would keep it)."""
    def work(src: Source, session: SessionView) -> Changes:
        said = _Said(store, session.source_kind, listener)
        try:
            outcome = src.run(store, session, request, said)
        finally:
            for sid in sorted(said.spoken):
                said._signal(sid, "Stop", "the run from Sessionscope ended")
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
