"""Managed agents' operations (sessionscope.sources.base.Source): what the API does, done through it.

Archive is the API's archive (then the store's). Delete removes the session at Anthropic and keeps our
copy (marked gone): Sessionscope keeps sessions after their tool deletes them; deleting the copy is a
second, separate Delete. The API refuses to delete a running session, and so do we, with its reason.
A message or an interrupt is sent as a user event; the session is synced right after, so what the
API recorded shows. Fork is the store's own (a native copy: the API has no fork); rewinding and
compacting the API's log is not ours to do.
"""

from __future__ import annotations

from typing import Any

from sessionscope.errors import InvalidInput
from sessionscope.history import lifecycle
from sessionscope.history.read_models import Action, Changes
from sessionscope.sources.api_workspaces import Workspaces
from sessionscope.sources.managed_agents import client as vendor
from sessionscope.sources.managed_agents import describe, importer
from sessionscope.sources.managed_agents.client import ENV_KEY, KIND, api_errors, location_of
from sessionscope.sources.managed_agents.importer import sync
from sessionscope.sources.remote_source import RemoteSource


class ManagedAgentsSource(RemoteSource):
    kind = KIND
    label = "Claude managed agents"
    badge = ("Managed", "#a04b08")  # the session list's short name and colour
    remote_home = "Anthropic"
    meta_key = "managed"
    where = "a managed-agents workspace"
    describer = describe
    client_module, importer_module = vendor, importer
    live_statuses = (lifecycle.RUNNING, lifecycle.RESCHEDULING)
    streams = True  # GET /v1/sessions/{id}/events/stream
    workspaces = Workspaces(
        kind=KIND, env=ENV_KEY, sync=lambda store, loc: sync(store, loc), location_of=location_of,
        title="Anthropic managed agents (workspaces whose sessions are pulled)", add_title="Add an Anthropic workspace",
        base_hint="https://api.anthropic.com", scope_label="Workspace",
        scope_hint="wrkspc_… (only for a key that reaches several)",
        key_hint="sk-ant-… (kept in the system keyring; blank: $ANTHROPIC_API_KEY)")
    fork_note = "The fork is a session of Sessionscope's own: the API has no fork, the session at Anthropic is untouched."
    _THE_APIS = RemoteSource._THE_APIS | {"unarchive": "unarchive"}  # archived at Anthropic: for good

    def _delete_at(self, client, session_id: str) -> None:
        client.beta.sessions.delete(session_id)

    def _post(self, client, session_id: str, events: list[dict]) -> None:
        client.beta.sessions.events.send(session_id, events=events)

    def refusal(self, action: str, status: str | None) -> str | None:
        if action == "send":
            return None if status in (lifecycle.IDLE, lifecycle.RUNNING, lifecycle.RESCHEDULING) else \
                f"it is {status}: it takes no more messages"
        if action == "interrupt":
            return None if status in (lifecycle.RUNNING, lifecycle.RESCHEDULING) else \
                f"it is {status}: only a running agent can be interrupted"
        return super().refusal(action, status)

    def archive(self, store, session_id: str) -> Changes:
        s = store.session(session_id)
        lifecycle.next_status(session_id, s.status, "archive")  # refused here first, with our reason
        loc = self.location(store, session_id)
        with api_errors(f"archive session {session_id}"):
            self.client(loc).beta.sessions.archive(session_id)
        sync(store, loc, client=self.client(loc), only={session_id})
        return Changes(Action.ARCHIVE, session_ids=frozenset({session_id}), session_list=True,
                       session=store.session(session_id), detail={"at": "anthropic"})

    def send(self, store, session_id: str, text: str) -> Changes:
        """A user message to the agent; the session is synced so the message (and any reply) shows."""
        if not text.strip():
            raise InvalidInput("the message is empty")
        return self._send(store, session_id, "send", [{"type": "user.message",
                                                       "content": [{"type": "text", "text": text}]}])

    def interrupt(self, store, session_id: str) -> Changes:
        return self._send(store, session_id, "interrupt", [{"type": "user.interrupt"}])

    def follow(self, store, session_id: str, listener) -> int:
        """The session's event stream (with the agent's message streamed in pieces): each event the API records
        pulls the session, so the reader shows it as it happens; the pieces of a message go to `listener.said`
        before it is recorded. Ends when the session stops running, the stream ends, or `listener.stopped()`: a
        stream quiet for QUIET_S is listened to again after a look at `stopped` (a blocked read cannot be told)."""
        import httpx2
        loc = self.location(store, session_id)
        client = self.client(loc)
        added = 0
        with api_errors(f"follow session {session_id}"):
            streaming: Any = self.clients.get(loc) or vendor.connect(loc, streaming=True, stopped=listener.stopped)
            while not listener.stopped():
                stream = streaming.beta.sessions.events.stream(
                    session_id, event_deltas=["agent.message"], timeout=httpx2.Timeout(30.0, read=QUIET_S))
                try:
                    for event in stream:
                        if listener.stopped():
                            return added
                        kind = str(getattr(event, "type", "") or "")
                        if kind in ("event_start", "event_delta"):
                            piece = _piece(event)
                            if piece:
                                listener.said(piece)
                            continue
                        added += sync(store, loc, client=client, only={session_id}).events_added
                        listener.step("event", kind)
                        if kind in _ENDED:
                            return added
                    return added  # the server ended the stream
                except httpx2.ReadTimeout:
                    continue  # quiet for a while: stop if asked, else listen again
                finally:
                    stream.close()
        return added


QUIET_S = 5.0
_ENDED = {"session.status_idle", "session.status_terminated"}  # it stopped running: the stream has said all


def _piece(event) -> str:
    """The text an `event_delta` carries: its `content_delta`'s partial content block (the API's
    BetaManagedAgentsDeltaEvent), or "" for anything else (an `event_start`, a block that is no text)."""
    delta = getattr(event, "delta", None)
    content = getattr(delta, "content", None) if delta is not None else None
    if isinstance(content, dict):
        return str(content.get("text") or "") if content.get("type") == "text" else ""
    return str(getattr(content, "text", "") or "") if getattr(content, "type", "") == "text" else ""


SOURCE = ManagedAgentsSource()
