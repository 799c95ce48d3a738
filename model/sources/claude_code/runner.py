"""A Claude Code session run from here through claude-agent-sdk (the `claude` it bundles): `resume` continues the
session, `fork_session` (with `resume_session_at` for a fork at an event) has Claude Code write the fork itself.

The reply streams to the listener as the model writes it (the SDK's partial messages); each tool call Claude Code
asks permission for reaches the SDK's `can_use_tool` and is put to the listener; Stop interrupts the run. The key is
the environment's, or the keyring's (as managed agents keep it), or else the user's own Claude Code login. When the
run ends its transcript is imported: the store holds what the file holds (sessionscope.sources.running).
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessionscope.errors import InvalidInput, MissingExtra, NotFound, Refused
from sessionscope.safety.untrusted import is_safe_id, resumable_id
from sessionscope.sources.running import (
    PERMISSION_MODES,
    PROMPT_LIMIT,
    Listener,
    RunOutcome,
    RunRequest,
    ToolAsk,
    brief,
)

if TYPE_CHECKING:
    from sessionscope.history.read_models import SessionView
    from sessionscope.store.api import Store

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\[\]/-]{0,99}")  # a model's or a tool's name, never an option
_POLL_S = 0.1  # how soon a Stop is acted on


def checked(request: RunRequest) -> RunRequest:
    """The request, refused where a part of it is not what it says (it reaches `claude`'s command line)."""
    if not request.prompt.strip():
        raise InvalidInput("the prompt is empty")
    if len(request.prompt) > PROMPT_LIMIT:
        raise InvalidInput(f"the prompt is {len(request.prompt):,} characters; a run takes at most {PROMPT_LIMIT:,}")
    if request.model is not None and not _NAME.fullmatch(request.model):
        raise InvalidInput(f"{request.model[:60]!r} is not a model's name")
    if request.permission_mode is not None and request.permission_mode not in PERMISSION_MODES:
        raise InvalidInput(f"the permission mode is one of {', '.join(PERMISSION_MODES)}")
    for name in request.allowed:
        if not _NAME.fullmatch(name):
            raise InvalidInput(f"{name[:60]!r} is not a tool's name")
    if request.at is not None and not (request.fork and is_safe_id(request.at)):
        raise InvalidInput("a run starts at an event only as a fork (and the event is one of the session's)")
    return request


def projects_root() -> Path:
    """Where the `claude` this process starts writes its transcripts (its config dir's `projects`)."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "")
    first = next((p.strip() for p in re.split(r"[,:]", configured) if p.strip()), "")
    return (Path(first).expanduser() if first else Path.home() / ".claude") / "projects"


def run(store: Store, session: SessionView, request: RunRequest, listener: Listener) -> RunOutcome:
    """Run `request` on the Claude Code `session` (see the module); blocks until the run ends. Its transcript is
    imported before this returns."""
    checked(request)
    try:
        import claude_agent_sdk  # noqa: F401
    except ImportError:
        raise MissingExtra("Running Claude Code from here", "claude", "claude-agent-sdk") from None
    tool_id = resumable_id(session, "Claude Code")
    cwd = session.cwd
    if not cwd or not Path(cwd).is_dir():
        raise Refused(f"the session's folder ({cwd or 'none'}) is not on this machine: Claude Code resumes a session "
                      "in its own folder")
    if request.at is not None:
        store.event(request.at)  # NotFound where the store has no such event
    outcome = RunOutcome()
    started = time.monotonic()
    asyncio.run(_run(tool_id, cwd, request, listener, outcome))
    outcome.duration_s = time.monotonic() - started
    if outcome.session_id:
        _import(store, outcome.session_id)
    return outcome


def _options(tool_id: str, cwd: str, request: RunRequest, ask) -> Any:
    from claude_agent_sdk import ClaudeAgentOptions
    env: dict[str, str] = {}
    if not os.environ.get("ANTHROPIC_API_KEY"):
        from sessionscope.sources import remote
        key = remote.api_key("ANTHROPIC_API_KEY", remote.http_location(
            os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com", None))
        if key:  # the keyring's (as managed agents keep it); without, claude uses the user's own login
            env["ANTHROPIC_API_KEY"] = key
    mode: Any = request.permission_mode  # (one of PERMISSION_MODES: checked)
    return ClaudeAgentOptions(
        cwd=cwd, resume=tool_id, fork_session=request.fork, resume_session_at=request.at, model=request.model,
        permission_mode=mode, can_use_tool=ask, include_partial_messages=True, env=env,
        setting_sources=["user", "project", "local"])  # the user's own rules and hooks, as in their terminal


async def _run(tool_id: str, cwd: str, request: RunRequest, listener: Listener, outcome: RunOutcome) -> None:
    from claude_agent_sdk import (
        AssistantMessage,
        ClaudeSDKClient,
        PermissionResultAllow,
        PermissionResultDeny,
        ResultMessage,
        StreamEvent,
        SystemMessage,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )
    always: set[str] = set(request.allowed)

    async def ask(tool: str, given: dict[str, Any], context) -> Any:
        if tool in always:
            outcome.asked.append((tool, True))
            return PermissionResultAllow()
        answer = await asyncio.to_thread(listener.ask, ToolAsk(tool, dict(given), outcome.session_id))
        outcome.asked.append((tool, answer.allow))
        if not answer.allow:
            return PermissionResultDeny(message=answer.message or "The user refused this call.")
        if answer.always:
            always.add(tool)
            return PermissionResultAllow(updated_permissions=list(getattr(context, "suggestions", None) or []))
        return PermissionResultAllow()

    reply: list[str] = []
    async with ClaudeSDKClient(_options(tool_id, cwd, request, ask)) as client:
        await client.query(request.prompt)
        stopper = asyncio.create_task(_stop_when_asked(client, listener, outcome))
        try:
            async for message in client.receive_response():
                if isinstance(message, SystemMessage) and message.subtype == "init":
                    sid = message.data.get("session_id")
                    if isinstance(sid, str) and is_safe_id(sid):
                        outcome.session_id = sid
                        listener.step("session", sid)
                elif isinstance(message, StreamEvent):
                    delta = message.event.get("delta") if isinstance(message.event, dict) else None
                    if isinstance(delta, dict) and delta.get("type") == "text_delta":
                        listener.said(str(delta.get("text", "")))
                elif isinstance(message, AssistantMessage):
                    for block in message.content:
                        if isinstance(block, TextBlock):
                            reply.append(block.text)
                        elif isinstance(block, ToolUseBlock):
                            listener.step("call", f"{block.name} {brief(block.input)}")
                elif isinstance(message, UserMessage) and isinstance(message.content, list):
                    for block in message.content:
                        if isinstance(block, ToolResultBlock):
                            said = block.content if isinstance(block.content, str) else str(block.content or "")
                            listener.step("error" if block.is_error else "result", said[:2000])
                elif isinstance(message, ResultMessage):
                    outcome.turns, outcome.cost_usd = message.num_turns, message.total_cost_usd
                    if outcome.ended != "interrupted":
                        outcome.ended = "error" if message.is_error else "success"
                    if is_safe_id(message.session_id):
                        outcome.session_id = message.session_id
        finally:
            stopper.cancel()
    outcome.last_reply = reply[-1] if reply else ""


async def _stop_when_asked(client, listener: Listener, outcome: RunOutcome) -> None:
    while True:
        await asyncio.sleep(_POLL_S)
        if await asyncio.to_thread(listener.stopped):
            outcome.ended = "interrupted"
            await client.interrupt()
            return


def transcript(session_id: str) -> Path:
    """The transcript `claude` wrote for `session_id` under its projects folder."""
    root = projects_root()
    found = next(iter(root.glob(f"*/{session_id}.jsonl")), None) if root.is_dir() else None
    if found is None:
        raise NotFound(f"Claude Code wrote no transcript for session {session_id} under {root}")
    return found


def _import(store: Store, session_id: str) -> None:
    from sessionscope.sources.claude_code.importer import import_paths
    path = transcript(session_id)
    import_paths(store, [projects_root()], only={path})
