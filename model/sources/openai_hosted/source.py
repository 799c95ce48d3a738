"""OpenAI hosted sessions' operations (sessionscope.sources.base.Source): what the API does, done through it.

Delete removes the session at OpenAI and keeps our copy (marked gone), as for Anthropic's managed agents; the
API refuses to delete a session that is still running, and so do we. A message starts a turn; Interrupt cancels
the active turn (`agent.session.input.cancel`); the session is pulled right after, so what the API recorded
shows. The API has no archive: Archive keeps it archived here only (pulls then leave the status alone). Fork is
the store's own; rewinding or compacting the API's log is not ours to do.
"""

from __future__ import annotations

from sessionscope.errors import InvalidInput
from sessionscope.history import lifecycle
from sessionscope.history.read_models import Changes
from sessionscope.sources.api_workspaces import Workspaces
from sessionscope.sources.openai_hosted import client as vendor
from sessionscope.sources.openai_hosted import describe, importer
from sessionscope.sources.openai_hosted.client import ENV_KEY, KIND, location_of
from sessionscope.sources.openai_hosted.importer import sync
from sessionscope.sources.remote_source import RemoteSource


class OpenAIHostedSource(RemoteSource):
    kind = KIND
    label = "OpenAI hosted agents"
    badge = ("OpenAI", "#0f766e")
    remote_home = "OpenAI"
    meta_key = "openai"
    where = "an OpenAI project"
    interrupt_words = "cancel the turn of"
    describer = describe
    client_module, importer_module = vendor, importer
    delete_detail = {"kept": True, "at": "openai"}
    live_statuses = (lifecycle.RUNNING,)
    workspaces = Workspaces(
        kind=KIND, env=ENV_KEY, sync=lambda store, loc: sync(store, loc), location_of=location_of,
        title="OpenAI hosted agents (projects whose sessions are pulled)", add_title="Add an OpenAI project",
        base_hint="https://api.openai.com/v1", scope_label="Project",
        scope_hint="proj_… (only for a key that reaches several)",
        key_hint="sk-… (kept in the system keyring; blank: $OPENAI_API_KEY)")
    fork_note = "The fork is a session of Sessionscope's own: the API has no fork, the session at OpenAI is untouched."

    def _delete_at(self, client, session_id: str) -> None:
        client.beta.agents.sessions.delete(session_id)

    def _post(self, client, session_id: str, events: list[dict]) -> None:
        client.beta.agents.sessions.events.create(session_id, events=events)

    def remote_live(self, session):
        """A session waiting on a required action needs you (its approval, a function's result, a sign-in)."""
        waits = describe.waits_for(session)
        return ("needs_approval", f"requires action at OpenAI: {waits}") if waits else None

    def refusal(self, action: str, status: str | None) -> str | None:
        if action == "send":
            return None if status in (lifecycle.IDLE, lifecycle.RUNNING) else f"it is {status}: it takes no more messages"
        if action == "interrupt":
            return None if status == lifecycle.RUNNING else f"it is {status}: only a running turn can be cancelled"
        return super().refusal(action, status)

    def send(self, store, session_id: str, text: str) -> Changes:
        """A user message: it starts a turn; the session is pulled so the message (and any reply) shows."""
        if not text.strip():
            raise InvalidInput("the message is empty")
        return self._send(store, session_id, "send", [{"type": "agent.session.input.message", "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]}])

    def interrupt(self, store, session_id: str) -> Changes:
        return self._send(store, session_id, "interrupt", [{"type": "agent.session.input.cancel"}])


SOURCE = OpenAIHostedSource()
