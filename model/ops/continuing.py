"""Fork Here and Continue (#33): a note (or notes) on an event becomes the next step of the work. The fork is cut
at the event exactly as Fork cuts it; then the fork's tool is given the note as the first message it sends on
resume (Claude Code: `claude --resume FORK -- NOTE`), or, where the tool cannot open the fork (a store-native
session, a fork only the store holds), the note is appended as the fork's next user message.

Nothing is started here: `changes.detail["continue"]` says what runs (its argv, its folder, the line a person
pastes), and the front end shows it first, then starts it in a terminal (the app) or prints it (the CLI)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from sessionscope import sources
from sessionscope.errors import InvalidInput
from sessionscope.history.read_models import Action, Changes
from sessionscope.ops.sessions import fork
from sessionscope.safety import audit
from sessionscope.sources.base import command_line

if TYPE_CHECKING:
    from sessionscope.store.api import Store

PROMPT_LIMIT = 100_000  # characters: a note is a prompt, not a file dump (an argv has its limits too)


def continue_prompt(note_texts: list[str], extra: str = "") -> str:
    """The prompt made of the notes picked (in their order) and what was written with them, blank-line apart."""
    parts = [t.strip() for t in [*note_texts, extra] if t and t.strip()]
    return "\n\n".join(parts)


def fork_and_continue(store: Store, session_id: str, at: str, prompt: str, title: str | None = None, *,
                      end_of_turn: bool = False, actor: str | None = None) -> Changes:
    """Fork `session_id` at `at` (as ops.fork) and make `prompt` the fork's next message. `changes.session` is
    the fork; `changes.detail["continue"]` is {prompt, command (argv or None), cwd, line (to paste), appended
    (the event id where the store appended it, or None)}. Recorded as fork.continue after the fork's own entry."""
    prompt = prompt.strip()
    if not prompt:
        raise InvalidInput("the note to continue with is empty")
    if len(prompt) > PROMPT_LIMIT:
        raise InvalidInput(f"the note is {len(prompt):,} characters; a prompt to continue with takes at most "
                           f"{PROMPT_LIMIT:,}")
    changes = fork(store, session_id, at, title, end_of_turn=end_of_turn, actor=actor)
    new = changes.session
    assert new is not None  # (a fork's Changes name the new session)
    src = sources.of(new.source_kind)
    command = src.continue_command(new, prompt)
    appended = None
    with audit.acting_as(actor):
        if command is None:  # the store holds it: the note is its next message, as an agent would read it
            try:
                event = store.append(new.id, "message", role="user", text=prompt)
            except Exception as exc:
                audit.failed(store, Action.CONTINUE, exc, session_id=new.id)
                raise
            appended = event.id
            new = store.session(new.id)
        said = {"prompt": prompt, "command": command, "cwd": new.cwd or None,
                "line": command_line(new, command) if command else f"sessionscope resume {new.id}",
                "appended": appended}
        audit.audited(store, Action.CONTINUE, session_id=new.id, event_id=appended,
                      detail={k: v for k, v in said.items() if k != "line"})
    return dataclasses.replace(changes, session=new, detail=changes.detail | {"continue": said})
