"""Managed agents' operations (sessionscope.sources.base.Source): what the API does, done through it.

Archive is the API's archive (then the store's). Delete removes the session at Anthropic and keeps our
copy (marked gone): Sessionscope keeps sessions after their tool deletes them; deleting the copy is a
second, separate Delete. The API refuses to delete a running session, and so do we, with its reason.
A message or an interrupt is sent as a user event; the session is synced right after, so what the
API recorded shows. Fork is the store's own (a native copy: the API has no fork); rewinding and
compacting the API's log is not ours to do.
"""

from __future__ import annotations

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


SOURCE = ManagedAgentsSource()
