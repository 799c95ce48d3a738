"""OpenAI hosted sessions' operations (sessionscope.sources.base.Source): what the API does, done through it.

Delete removes the session at OpenAI and keeps our copy (marked gone), as for Anthropic's managed agents; the
API refuses to delete a session that is still running, and so do we. A message starts a turn; Interrupt cancels
the active turn (`agent.session.input.cancel`); the session is pulled right after, so what the API recorded
shows. The API has no archive: Archive keeps it archived here only (pulls then leave the status alone). Fork is
the store's own; rewinding or compacting the API's log is not ours to do.
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
from .describe import hosted
from .importer import sync


def location(store, session_id: str) -> str:
    return remote_pull.session_location(store, session_id, "an OpenAI project")


class OpenAIHostedSource(Source):
    kind = KIND
    label = "OpenAI hosted agents"
    badge = ("OpenAI", "#0f766e")
    takes_messages = True
    remote_home = "OpenAI"
    live_statuses = (lifecycle.RUNNING,)
    workspaces = Workspaces(
        kind=KIND, env=ENV_KEY, sync=lambda store, loc: sync(store, loc), location_of=location_of,
        title="OpenAI hosted agents (projects whose sessions are pulled)", add_title="Add an OpenAI project",
        base_hint="https://api.openai.com/v1", scope_label="Project",
        scope_hint="proj_… (only for a key that reaches several)",
        key_hint="sk-… (kept in the system keyring; blank: $OPENAI_API_KEY)")
    fork_note = "The fork is a session of Sessionscope's own: the API has no fork, the session at OpenAI is untouched."

    def __init__(self):
        self.clients: dict[str, object] = {}  # tests hand a client per location; otherwise connect()

    def describe(self, session):
        return describe.describe(session)

    def summary(self, session) -> str:
        return describe.summary(session)

    def only_a_copy(self, session) -> str:
        return describe.gone(session)

    def remote_live(self, session):
        """A session waiting on a required action needs you (its approval, a function's result, a sign-in)."""
        waits = describe.waits_for(session)
        return ("needs_approval", f"requires action at OpenAI: {waits}") if waits else None

    def client(self, location: str):
        return self.clients.get(location) or connect(location)

    _THE_APIS = {"rewind": "rewind", "compact": "compaction", "resume": "resume command",
                 "copy_resume": "resume command", "write_back": "file to write back"}

    def refusal(self, action: str, status: str | None) -> str | None:
        if action in self._THE_APIS:
            return f"a {self.label} session's log is the API's own, and the API has no {self._THE_APIS[action]}"
        if action == "send":
            return None if status in (lifecycle.IDLE, lifecycle.RUNNING) else f"it is {status}: it takes no more messages"
        if action == "interrupt":
            return None if status == lifecycle.RUNNING else f"it is {status}: only a running turn can be cancelled"
        return super().refusal(action, status)

    def delete_prompt(self, session) -> str:
        if hosted(session).get("gone_at"):
            return (f"“{session.title or session.id}” is no longer at OpenAI. Delete the copy kept here "
                    f"({session.event_count} events) for good?")
        return (f"Delete “{session.title or session.id}” at OpenAI? The API deletes it there; Sessionscope keeps its "
                "copy (Delete again removes that).")

    def delete(self, store, session_id: str, remove_files: bool = False) -> Changes:
        if hosted(store.session(session_id)).get("gone_at"):
            return store.delete(session_id)  # the copy, once the API's session is gone
        loc = location(store, session_id)
        sync(store, loc, client=self.client(loc), only={session_id})  # what happened since: kept before it goes
        s = store.session(session_id)
        lifecycle.next_status(session_id, s.status, "delete")  # a running session: refused, as the API does
        with api_errors(f"delete session {session_id}"):
            self.client(loc).beta.agents.sessions.delete(session_id)

        store.audited("managed.delete", lambda conn: remote_pull.note_gone(conn, "openai", session_id),
                      session_id=session_id, detail={"kept": True, "at": "openai"})
        return Changes(Action.REMOTE_DELETE, frozenset({session_id}), False, store.session(session_id),
                       detail={"kept": True}, recorded=True)

    def send(self, store, session_id: str, text: str) -> Changes:
        """A user message: it starts a turn; the session is pulled so the message (and any reply) shows."""
        if not text.strip():
            raise InvalidInput("the message is empty")
        return self._send(store, session_id, "send", [{"type": "agent.session.input.message", "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]}])

    def interrupt(self, store, session_id: str) -> Changes:
        return self._send(store, session_id, "interrupt", [{"type": "agent.session.input.cancel"}])

    def _send(self, store, session_id: str, action: str, events: list[dict]) -> Changes:
        loc = location(store, session_id)
        with api_errors(f"{'send a message to' if action == 'send' else 'cancel the turn of'} session {session_id}"):
            self.client(loc).beta.agents.sessions.events.create(session_id, events=events)
        store.audited(f"managed.{action}", session_id=session_id, detail={"events": [e["type"] for e in events]})
        report = sync(store, loc, client=self.client(loc), only={session_id})
        return Changes(Action.SEND if action == "send" else Action.INTERRUPT, frozenset({session_id}), True,
                       store.session(session_id), detail={"events_added": report.events_added, "problems": report.problems},
                       recorded=True)


SOURCE = OpenAIHostedSource()
