"""Running an agent on a session from here (a source that `runs_here`): what is asked, and what the run tells its
front end while it goes, the window and the command line alike.

A run continues a session (or a fork of it, made by the tool itself) with a prompt; its reply streams to the
listener as it is written, and each tool call the agent asks permission for is put to the listener, which answers
(the window with a box and a Needs You entry, the command line at its terminal, or by the tools it was told to
allow). What is kept is the tool's own transcript, imported when the run ends: what the window shows is what the
file holds. Light: no SDK is imported here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
PROMPT_LIMIT = 100_000  # characters: a prompt, not a file dump


@dataclass(frozen=True)
class RunRequest:
    """What to run: the prompt; `fork` to run a fork of the session (at the event `at`, or its end) and leave the
    session be; the model and the permission mode for this run (None: the tool's own settings); `allowed`: tools
    allowed without asking."""

    prompt: str
    fork: bool = False
    at: str | None = None
    model: str | None = None
    permission_mode: str | None = None
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolAsk:
    """A tool call the agent asks to make: the tool, its input (untrusted: the model wrote it), the run's session."""

    tool: str
    input: dict[str, Any]
    session_id: str | None = None


@dataclass(frozen=True)
class Answer:
    """The answer to a ToolAsk: allowed (once, or `always` for the rest of this session), or refused with
    `message`, which the agent reads."""

    allow: bool
    always: bool = False
    message: str = ""


@dataclass
class RunOutcome:
    """How a run ended: the session it wrote (the fork's, for a fork), its end (`success`, `interrupted`,
    `error`), its turns, cost and time as the tool counted them, and its last words."""

    session_id: str | None = None
    ended: str = "success"
    turns: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0
    last_reply: str = ""
    asked: list[tuple[str, bool]] = field(default_factory=list)  # (tool, allowed) for each ask


class Listener(Protocol):
    """What a run tells its front end; called on the run's own thread (`ask` may block until the user answers)."""

    def said(self, text: str) -> None: ...  # a piece of the agent's reply, as it streams

    def step(self, kind: str, text: str) -> None: ...  # "call" (a tool call), "result", "session" (its id)

    def ask(self, request: ToolAsk) -> Answer: ...

    def stopped(self) -> bool: ...  # the user asked to stop: the run is interrupted


class Quiet:
    """A listener that shows nothing and allows only `allowed`, refusing the rest (a script, a test); `stop` ends it."""

    def __init__(self, allowed: tuple[str, ...] = ()):
        self.allowed = allowed
        self.reply: list[str] = []
        self.steps: list[tuple[str, str]] = []
        self.stop = threading.Event()

    def said(self, text: str) -> None:
        self.reply.append(text)

    def step(self, kind: str, text: str) -> None:
        self.steps.append((kind, text))

    def ask(self, request: ToolAsk) -> Answer:
        if request.tool in self.allowed:
            return Answer(True)
        return Answer(False, message=f"{request.tool} is not allowed in this run")

    def stopped(self) -> bool:
        return self.stop.is_set()


def brief(given: Any) -> str:
    """A tool call's input in a line: the command, the file, or its JSON, cut (the model wrote it: untrusted)."""
    if isinstance(given, dict):
        for key in ("command", "file_path", "path", "pattern", "url", "description"):
            if isinstance(given.get(key), str):
                return given[key][:300]
    import json
    return json.dumps(given, ensure_ascii=False, default=str)[:300]
