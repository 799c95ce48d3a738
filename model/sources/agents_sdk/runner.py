"""An OpenAI Agents SDK session kept in this store (an application writes it through
sessionscope.adapters.agents.SessionscopeSession) run on from here with a prompt (#63).

The session's own conversation is the history: `Runner.run` with the store as its session, so the prompt and the
reply are added as the application's own runs add them. What the store does not hold is the application's agent (its
instructions and tools): the run is a plain agent of the session's name on the model asked for (or the session's),
so it answers but calls no tool, and asks nothing. The key is the environment's, or the keyring's (as OpenAI's hosted
agents keep it). Tracing is off: the SDK would send the run's trace to OpenAI, which the user did not ask for.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from sessionscope.errors import MissingExtra, Refused
from sessionscope.sources.running import Listener, RunOutcome, RunRequest

if TYPE_CHECKING:
    from sessionscope.history.read_models import SessionView
    from sessionscope.store.api import Store

SDK = "openai-agents"
DEFAULT_MODEL = "gpt-4.1"


def refusal(session: SessionView) -> str | None:
    """Why `session` is not run from here (None: it is): only a session an Agents SDK application keeps here."""
    meta = session.meta if isinstance(session.meta, dict) else {}
    if meta.get("sdk") != SDK or not isinstance(meta.get("session_id"), str):
        return "only a session an OpenAI Agents SDK application keeps in this store is run from here"
    return None


def run(store: Store, session: SessionView, request: RunRequest, listener: Listener) -> RunOutcome:
    """Run `request` on the session (see the module); blocks until the reply is in the store."""
    from sessionscope.sources.claude_code.runner import checked
    checked(request)
    if request.fork:
        raise Refused("an Agents SDK session is run on as it is: fork it first (Session ▸ Fork), then run the fork")
    why = refusal(session)
    if why is not None:
        raise Refused(why)
    try:
        from agents import Agent, Runner, set_tracing_disabled
    except ImportError:
        raise MissingExtra("Running an OpenAI Agents SDK session", "agents", "openai-agents") from None
    key = _key()
    if key is not None:
        from agents import set_default_openai_key
        set_default_openai_key(key, use_for_tracing=False)
    set_tracing_disabled(True)
    from sessionscope.adapters.agents import SessionscopeSession
    kept = SessionscopeSession(session.meta["session_id"], store)
    outcome = RunOutcome(session_id=session.id)
    started = time.monotonic()
    try:
        agent = Agent(name=session.agent if session.agent and session.agent != SDK else "Assistant",
                      model=request.model or session.model or DEFAULT_MODEL)
        result = Runner.run_sync(agent, request.prompt, session=kept)  # type: ignore[arg-type]  # (its Session protocol)
        outcome.last_reply = str(result.final_output or "")
        outcome.turns = 1
        listener.said(outcome.last_reply)
    except Exception as exc:
        outcome.ended = "error"
        raise Refused(f"the Agents SDK run failed: {type(exc).__name__}: {str(exc)[:300]}") from None
    finally:
        kept.flush()  # the prompt and the reply are events of the session before this returns
        kept.close()
        outcome.duration_s = time.monotonic() - started
    return outcome


def _key() -> str | None:
    """The keyring's OpenAI key (kept for OpenAI's hosted agents) where the environment has none (None: the SDK
    reads the environment's); refused where neither has one."""
    if os.environ.get("OPENAI_API_KEY"):
        return None
    from sessionscope.sources import remote
    key = remote.api_key("OPENAI_API_KEY", remote.http_location(
        os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1", None))
    if not key:
        raise Refused("no OpenAI API key: set OPENAI_API_KEY, or keep one with `sessionscope key --set --openai`")
    return key
