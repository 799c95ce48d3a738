"""The operations every source behind an API shares (sessionscope.sources.base.Source): Delete deletes the session
where it lives (refused while it runs, as the APIs refuse) after pulling what happened since, and keeps our copy
marked gone, a second Delete removing the copy; a message or an interrupt goes to the API as the vendor's events and
the session is pulled right after; the API's log is its own (no rewind, compaction or resume command here).

A source gives its vendor's parts: `meta_key` (where its sessions' API state is kept), `connect`, `api_errors`,
`sync`, its `describe` module (describe, summary, gone), and the three calls `_delete_at`, `_post` (the vendor's
client methods) and the verbs of its interrupt.
"""

from __future__ import annotations

from sessionscope.history import lifecycle
from sessionscope.history.read_models import Action, Changes
from sessionscope.sources import remote_pull
from sessionscope.sources.base import Source


class RemoteSource(Source):
    takes_messages = True  # the composer under the timeline
    meta_key = ""  # the session's meta key holding what the API said of it
    where = ""  # what a session is pulled from, in words ("a managed-agents workspace")
    interrupt_words = "interrupt"  # what an interrupt does, for its error line
    describer = None  # the source's describe module: describe(session), summary(session), gone(session)
    _THE_APIS = {"rewind": "rewind", "compact": "compaction", "resume": "resume command",
                 "copy_resume": "resume command", "write_back": "file to write back"}

    def __init__(self):
        self.clients: dict[str, object] = {}  # tests hand a client per location; otherwise connect()

    # -- the vendor's parts ----------------------------------------------------------

    client_module = None  # the vendor's client module: connect(location), api_errors(what)
    importer_module = None  # its importer module: sync(store, location, **kw)

    def connect(self, location: str):
        return self.client_module.connect(location)

    def api_errors(self, what: str):
        return self.client_module.api_errors(what)

    def sync(self, store, location: str, **kw):
        return self.importer_module.sync(store, location, **kw)

    def _delete_at(self, client, session_id: str) -> None:
        raise NotImplementedError

    def _post(self, client, session_id: str, events: list[dict]) -> None:
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------

    def client(self, location: str):
        return self.clients.get(location) or self.connect(location)

    def location(self, store, session_id: str) -> str:
        return remote_pull.session_location(store, session_id, self.where)

    def api_state(self, session) -> dict:
        meta = session.meta if isinstance(session.meta, dict) else {}
        m = meta.get(self.meta_key)
        return m if isinstance(m, dict) else {}

    def describe(self, session):
        return self.describer.describe(session)

    def summary(self, session) -> str:
        return self.describer.summary(session)

    def only_a_copy(self, session) -> str:
        return self.describer.gone(session)

    def refusal(self, action: str, status: str | None) -> str | None:
        if action in self._THE_APIS:
            return f"a {self.label} session's log is the API's own, and the API has no {self._THE_APIS[action]}"
        return super().refusal(action, status)

    def delete_prompt(self, session) -> str:
        if self.api_state(session).get("gone_at"):
            return (f"“{session.title or session.id}” is no longer at {self.remote_home}. Delete the copy kept here "
                    f"({session.event_count} events) for good?")
        return (f"Delete “{session.title or session.id}” at {self.remote_home}? The API deletes it and its events "
                "there; Sessionscope keeps its copy (Delete again removes that).")

    def delete(self, store, session_id: str, remove_files: bool = False) -> Changes:
        if self.api_state(store.session(session_id)).get("gone_at"):
            return store.delete(session_id)  # the copy, once the API's session is gone
        loc = self.location(store, session_id)
        self.sync(store, loc, client=self.client(loc), only={session_id})  # what happened since: kept before it goes
        s = store.session(session_id)
        lifecycle.next_status(session_id, s.status, "delete")  # a running session: refused, as the API does
        with self.api_errors(f"delete session {session_id}"):
            self._delete_at(self.client(loc), session_id)
        store.audited("managed.delete", lambda conn: remote_pull.note_gone(conn, self.meta_key, session_id),
                      session_id=session_id, detail=self.delete_detail)
        return Changes(Action.REMOTE_DELETE, session_ids=frozenset({session_id}), session_list=False,
                       session=store.session(session_id),
                       detail={"kept": True}, recorded=True)

    delete_detail = {"kept": True}  # what the audit row of a delete says

    def _send(self, store, session_id: str, action: str, events: list[dict]) -> Changes:
        loc = self.location(store, session_id)
        verb = "send a message to" if action == "send" else self.interrupt_words
        with self.api_errors(f"{verb} session {session_id}"):
            self._post(self.client(loc), session_id, events)
        # recorded as soon as the API took it: a pull that fails next does not unsay it
        store.audited(f"managed.{action}", session_id=session_id, detail={"events": [e["type"] for e in events]})
        report = self.sync(store, loc, client=self.client(loc), only={session_id})
        return Changes(Action.SEND if action == "send" else Action.INTERRUPT, session_ids=frozenset({session_id}),
                       session_list=True,
                       session=store.session(session_id),
                       detail={"events_added": report.events_added, "problems": report.problems},
                       recorded=True)
