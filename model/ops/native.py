"""A session written by hand at the command line (`sessionscope new`, `append`, `fact`): the native backend's own
writes, done as a user's action, each with its audit entry in the same transaction. (An agent or an SDK writing
through the Store's API appends without an entry each: that is its hot path, and the session's hash chain is its
record.)"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sessionscope.history import facts
from sessionscope.history.read_models import Action, Changes
from sessionscope.safety import audit
from sessionscope.store.append import append_event

if TYPE_CHECKING:
    from sessionscope.store.api import Store


def open_session(store: Store, *, title: str = "", agent: str = "", metadata: dict[str, Any] | None = None,
                 budget: dict[str, Any] | None = None,
                 actor: str | None = None, **fields: Any) -> Changes:
    """A new native session (`changes.session`)."""
    with audit.acting_as(actor):  # (the Store records its own "open" entry with the session, in one transaction)
        s = store.open_session(title=title, agent=agent, metadata=metadata, budget=budget, **fields)
    return Changes(Action.OPEN, session_ids=frozenset({s.id}), session_list=True, session=s, recorded=True)


def append(store: Store, session_id: str, kind: str, *, actor: str | None = None, **fields: Any) -> Changes:
    """One event under the session's head (`changes.event`, with its seq and hash)."""
    with audit.acting_as(actor):
        event = store.audited(Action.APPEND, lambda conn: append_event(conn, session_id, kind=kind, **fields),
                              session_id=session_id, detail=lambda e: {"event": e.id, "kind": kind, "seq": e.seq})
    return Changes(Action.APPEND, session_ids=frozenset({session_id}), event=event, recorded=True)


def set_fact(store: Store, session_id: str, key: str, value: Any, *, actor: str | None = None) -> Changes:
    return append(store, session_id, facts.FACT_SET, payload={"key": key, "value": value}, actor=actor)


def delete_fact(store: Store, session_id: str, key: str, *, actor: str | None = None) -> Changes:
    return append(store, session_id, facts.FACT_DELETE, payload={"key": key}, actor=actor)
