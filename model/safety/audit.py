"""The audit log: every action taken through Sessionscope, with its outcome.

This module is the only writer of the log. A user's action is recorded by the operations layer
(sessionscope.ops) through `audited`: the work and its "ok" entry in one write transaction, or, when the
work fails, a "refused" or "error" entry after it (`failed`); without work, what was done outside the
store (a file written, an API called), once it is done. `within` is for a backend's own write that must
commit with its entry (a status a managed-agents API reported, an SDK's delete).
"""

from __future__ import annotations

import contextlib
import contextvars
import getpass
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.store import db
from sessionscope.store.schema import AUDIT


def _actor() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers
        user = str(os.getuid()) if hasattr(os, "getuid") else "?"
    return f"{user}@{socket.gethostname()} pid {os.getpid()}"


ACTOR = _actor()


def _record(
    conn: Connection, action: str, outcome: str, *, session_id: str | None = None,
    event_id: str | None = None, detail: dict[str, Any] | None = None, actor: str | None = None,
) -> int:
    """Append an entry; returns its id. `actor` names the front end (app, cli, an agent) after the user."""
    return conn.execute(AUDIT.insert().values(
        ts=time.time(), action=str(action), outcome=outcome, session_id=session_id,
        event_id=event_id, detail=json.dumps(detail or {}, default=str),
        actor=f"{ACTOR} via {actor}" if (actor := actor or _acting_as.get()) else ACTOR,
    )).inserted_primary_key[0]


within = _record  # inside a write transaction the caller already holds

# the front end an operation runs for (sessionscope.ops sets it around each action: every entry recorded
# meanwhile, the Store's own in-transaction ones too, names it); per thread, as each worker runs one action
_acting_as: contextvars.ContextVar[str | None] = contextvars.ContextVar("sessionscope_actor", default=None)


@contextlib.contextmanager
def acting_as(actor: str | None) -> Iterator[None]:
    token = _acting_as.set(actor or _acting_as.get())
    try:
        yield
    finally:
        _acting_as.reset(token)


# outcomes of a failure: refused before anything was done (the message says why), or an error on the way
REFUSED, ERROR = "refused", "error"


def failure_outcome(exc: BaseException) -> str:
    from sessionscope.errors import IllegalTransition, InvalidInput, MissingExtra, NotFound, Refused
    return REFUSED if isinstance(exc, (Refused, InvalidInput, IllegalTransition, NotFound, MissingExtra)) else ERROR


def audited(store, action: str, work: Callable[[Connection], Any] | None = None, *,
            session_id: str | None = None, event_id: str | None = None,
            detail: dict | Callable[[Any], dict] | None = None, outcome: str = "ok", actor: str | None = None) -> Any:
    """Run `work(conn)` and record it in one write transaction; returns work's result (without work: the
    entry alone, for what was done outside the store; returns the entry's id). `detail` may be computed
    from work's result. When the work fails with a SessionscopeError, the
    failure is recorded after it (refused or error, with its message) and the error, marked `audited`,
    raised on: whoever records failures (sessionscope.ops) does not record it twice."""
    from sessionscope.errors import SessionscopeError

    def run(conn: Connection):
        result = work(conn) if work is not None else None
        entry = _record(conn, action, outcome, session_id=session_id, event_id=event_id,
                        detail=detail(result) if callable(detail) else detail, actor=actor)
        return result if work is not None else entry
    try:
        if work is None:  # an entry alone builds on no other row: on PostgreSQL, beside other sessions' writers
            return store.write_beside([db.AUDIT_LOCK], run)
        return store.write(run)
    except SessionscopeError as exc:
        if work is not None:
            failed(store, action, exc, session_id=session_id, event_id=event_id, actor=actor)
        raise


def failed(store, action: str, exc: BaseException, *, session_id: str | None = None, event_id: str | None = None,
           detail: dict | None = None, actor: str | None = None) -> None:
    """Record an action that did not happen (or stopped halfway), once: the error is marked `audited`."""
    from sessionscope.errors import SessionscopeError, StoreUnavailable
    if getattr(exc, "audited", False):
        return
    outcome = getattr(exc, "outcome", None) or (ERROR if isinstance(exc, StoreUnavailable) else failure_outcome(exc))
    with contextlib.suppress(SessionscopeError):  # the store itself failing: nothing more can be written
        store.write(_record, action, outcome, session_id=session_id, event_id=event_id,
                    detail={**(detail or {}), "error": str(exc), **getattr(exc, "audit_detail", {})}, actor=actor)
    with contextlib.suppress(AttributeError):
        exc.audited = True


def entries(conn: Connection, session_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """Newest first."""
    q = sa.select(AUDIT).order_by(AUDIT.c.id.desc()).limit(limit)
    if session_id:
        q = q.where(AUDIT.c.session_id == session_id)
    return [dict(r) | {"detail": json.loads(r["detail"])} for r in conn.execute(q).mappings()]
