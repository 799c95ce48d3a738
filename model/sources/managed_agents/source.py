"""Managed agents' operations (sessionscope.sources.base.Source): what the API does, done through it.

Archive is the API's archive (then the store's). Delete removes the session at Anthropic and keeps our
copy (marked gone): Sessionscope keeps sessions after their tool deletes them; deleting the copy is a
second, separate Delete. The API refuses to delete a running session, and so do we, with its reason.
A message or an interrupt is sent as a user event; the session is synced right after, so what the
API recorded shows. Fork is the store's own (a native copy: the API has no fork); rewinding and
compacting the API's log is not ours to do.
"""

from __future__ import annotations

from ... import lifecycle
from ...errors import InvalidInput
from ...read_models import Action, Changes
from .. import remote_pull
from ..api_workspaces import Workspaces
from ..base import Source
from . import describe
from .client import ENV_KEY, KIND, api_errors, connect, location_of
from .describe import managed
from .importer import sync


def location(store, session_id: str) -> str:
    return remote_pull.session_location(store, session_id, "a managed-agents workspace")


class ManagedAgentsSource(Source):
    kind = KIND
    label = "Claude managed agents"
    badge = ("Managed", "#a04b08")  # the session list's short name and colour
    takes_messages = True  # the composer under the timeline
    remote_home = "Anthropic"
    live_statuses = (lifecycle.RUNNING, lifecycle.RESCHEDULING)
    workspaces = Workspaces(
        kind=KIND, env=ENV_KEY, sync=lambda store, loc: sync(store, loc), location_of=location_of,
        title="Anthropic managed agents (workspaces whose sessions are pulled)", add_title="Add an Anthropic workspace",
        base_hint="https://api.anthropic.com", scope_label="Workspace",
        scope_hint="wrkspc_… (only for a key that reaches several)",
        key_hint="sk-ant-… (kept in the system keyring; blank: $ANTHROPIC_API_KEY)")
    fork_note = "The fork is a session of Sessionscope's own: the API has no fork, the session at Anthropic is untouched."

    def __init__(self):
        self.clients: dict[str, object] = {}  # tests hand a client per location; otherwise connect()

    def describe(self, session):
        return describe.describe(session)

    def summary(self, session) -> str:
        return describe.summary(session)

    def only_a_copy(self, session) -> str:
        return describe.gone(session)

    def client(self, location: str):
        return self.clients.get(location) or connect(location)

    _THE_APIS = {"rewind": "rewind", "compact": "compaction", "resume": "resume command",
                 "copy_resume": "resume command", "write_back": "file to write back", "unarchive": "unarchive"}

    def refusal(self, action: str, status: str | None) -> str | None:
        if action in self._THE_APIS:  # the API's log is its own; it has no unarchive
            return f"a {self.label} session's log is the API's own, and the API has no {self._THE_APIS[action]}"
        if action == "send":
            return None if status in (lifecycle.IDLE, lifecycle.RUNNING, lifecycle.RESCHEDULING) else \
                f"it is {status}: it takes no more messages"
        if action == "interrupt":
            return None if status in (lifecycle.RUNNING, lifecycle.RESCHEDULING) else \
                f"it is {status}: only a running agent can be interrupted"
        return super().refusal(action, status)

    def delete_prompt(self, session) -> str:
        if managed(session).get("gone_at"):
            return (f"“{session.title or session.id}” is no longer at Anthropic. Delete the copy kept here "
                    f"({session.event_count} events) for good?")
        return (f"Delete “{session.title or session.id}” at Anthropic? The API deletes it and its events there; "
                "Sessionscope keeps its copy (Delete again removes that).")

    # -- acting through the API -----------------------------------------------------

    def archive(self, store, session_id: str) -> Changes:
        s = store.session(session_id)
        lifecycle.next_status(session_id, s.status, "archive")  # refused here first, with our reason
        loc = location(store, session_id)
        with api_errors(f"archive session {session_id}"):
            self.client(loc).beta.sessions.archive(session_id)
        sync(store, loc, client=self.client(loc), only={session_id})
        return Changes(Action.ARCHIVE, frozenset({session_id}), True, store.session(session_id), detail={"at": "anthropic"})

    def delete(self, store, session_id: str, remove_files: bool = False) -> Changes:
        if managed(store.session(session_id)).get("gone_at"):
            return store.delete(session_id)  # the copy, once the API's session is gone
        loc = location(store, session_id)
        sync(store, loc, client=self.client(loc), only={session_id})  # what happened since: kept before it goes
        s = store.session(session_id)
        lifecycle.next_status(session_id, s.status, "delete")  # a running session: refused, as the API does
        with api_errors(f"delete session {session_id}"):
            self.client(loc).beta.sessions.delete(session_id)

        store.audited("managed.delete", lambda conn: remote_pull.note_gone(conn, "managed", session_id),
                      session_id=session_id, detail={"kept": True})
        return Changes(Action.REMOTE_DELETE, frozenset({session_id}), False, store.session(session_id),
                       detail={"kept": True}, recorded=True)

    def send(self, store, session_id: str, text: str) -> Changes:
        """A user message to the agent; the session is synced so the message (and any reply) shows."""
        if not text.strip():
            raise InvalidInput("the message is empty")
        return self._send(store, session_id, "send", [{"type": "user.message",
                                                       "content": [{"type": "text", "text": text}]}])

    def interrupt(self, store, session_id: str) -> Changes:
        return self._send(store, session_id, "interrupt", [{"type": "user.interrupt"}])

    def _send(self, store, session_id: str, action: str, events: list[dict]) -> Changes:
        loc = location(store, session_id)
        with api_errors(f"{'send a message to' if action == 'send' else 'interrupt'} session {session_id}"):
            self.client(loc).beta.sessions.events.send(session_id, events=events)
        # recorded as soon as the API took it: a pull that fails next does not unsay it
        store.audited(f"managed.{action}", session_id=session_id, detail={"events": [e["type"] for e in events]})
        report = sync(store, loc, client=self.client(loc), only={session_id})
        return Changes(Action.SEND if action == "send" else Action.INTERRUPT, frozenset({session_id}), True,
                       store.session(session_id), detail={"events_added": report.events_added, "problems": report.problems},
                       recorded=True)


SOURCE = ManagedAgentsSource()
