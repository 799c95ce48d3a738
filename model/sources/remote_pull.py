"""One pull of a place behind an API (an Anthropic workspace, an OpenAI project), as every such source does it:
the listing read (its failure one problem), sessions with no id of the API's shape skipped and said, the loop
bounded (cancel, a deadline, progress), one session's failure one problem line, the status the API reports
recorded and audited, and the sessions the API no longer lists kept and marked gone."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import sqlalchemy as sa

from sessionscope.errors import Refused, SessionscopeError
from sessionscope.history import lifecycle
from sessionscope.safety import audit
from sessionscope.safety.untrusted import is_safe_id, shown
from sessionscope.sources.remote import ApiUnavailable, ResponseRefused
from sessionscope.sources.scan import ImportReport
from sessionscope.store.schema import SESSION

PULL_DEADLINE_S = 30 * 60.0  # one pull; the sessions it did not reach are pulled the next time


class Pull:
    def __init__(self, location: str, client=None):
        self.location = location
        self.report = ImportReport()
        self.started = time.monotonic()
        self.listed: list[dict] | None = None
        self.client = client  # its calls for the sessions meet the pull's deadline inside them too

    def problem(self, where: str, text: str) -> None:
        self.report.problems.append({"path": f"{self.location}{where}", "line": None, "offset": None, "problem": text})

    def list_sessions(self, fetch: Callable[[], list]) -> list[dict]:
        """The sessions `fetch` lists that have an id of the API's shape (the others said and skipped); a listing
        that fails is one problem, and then nothing is marked gone."""
        try:
            listed = fetch()
        except (ApiUnavailable, Refused, ResponseRefused) as exc:
            self.problem("", str(exc))
            return []
        self.listed = []
        seen: set[str] = set()
        for s in listed:
            if not isinstance(s, dict):
                self.problem("", f"an entry of the listing that is no session ({shown(s, 60)}): skipped")
            elif not is_safe_id(s.get("id")):
                self.problem("", f"a session whose id is {shown(s.get('id'), 60)} (no id of the API's shape): skipped")
            elif s["id"] in seen:
                self.problem("", f"session {s['id']} is listed twice: read once")
            else:
                seen.add(s["id"])
                self.listed.append(s)
        return self.listed

    def each(self, sessions: list[dict], *, cancel=None, progress=None, label=lambda s: s["id"]) -> Iterator[dict]:
        """The sessions in turn, until cancelled or past the deadline (said); each counted as seen. The deadline
        holds inside a session's calls as well (remote.bounded_body), not only between sessions."""
        if self.client is not None:
            from sessionscope.sources.remote import set_deadline
            set_deadline(self.client, self.started + PULL_DEADLINE_S)
        for i, s in enumerate(sessions):
            if cancel is not None and cancel.is_set():
                self.report.cancelled = True
                return
            if time.monotonic() - self.started > PULL_DEADLINE_S:
                self.problem("", f"the pull stopped after {PULL_DEADLINE_S / 60:.0f} minutes; the {len(sessions) - i} "
                                 "sessions it did not reach are pulled the next time")
                return
            if progress:
                progress(i, len(sessions), label(s))
            self.report.files_seen += 1
            yield s

    def failed(self, session_id: str, exc: Exception) -> None:
        """One session's failure (refused, unreachable, odd values): its line; the others are pulled."""
        self.problem(f" session {session_id}", str(exc) if isinstance(exc, SessionscopeError)
                     else "the server described it in a shape that is not the API's (a value of the wrong type): "
                          f"not stored ({type(exc).__name__})")

    def gone(self, known: dict[str, dict]) -> list[str]:
        """The sessions held that a whole listing no longer names (none when the listing failed)."""
        if self.listed is None:
            return []
        names = {s["id"] for s in self.listed}
        return [sid for sid, m in known.items() if sid not in names and not m.get("gone_at")]


def set_status(conn, session_id: str, status: str, new: bool) -> None:
    """The API's status, as it reported it (lifecycle.reported), audited when it changed."""
    status = lifecycle.reported(session_id, status)
    old = conn.execute(sa.select(SESSION.c.status).where(SESSION.c.id == session_id)).scalar()
    if old == status and not new:
        return
    conn.execute(SESSION.update().where(SESSION.c.id == session_id).values(status=status, status_changed_at=time.time()))
    audit.within(conn, "managed.status", "ok", session_id=session_id, detail={"from": None if new else old, "to": status})


def note_gone(conn, meta_key: str, session_id: str) -> float:
    """The session is no longer where it lived (deleted there): `meta[meta_key].gone_at`; our copy stays."""
    now = time.time()
    meta = json.loads(conn.execute(sa.select(SESSION.c.meta).where(SESSION.c.id == session_id)).scalar() or "{}")
    meta.setdefault(meta_key, {})["gone_at"] = now
    conn.execute(SESSION.update().where(SESSION.c.id == session_id).values(meta=json.dumps(meta, default=str)))
    return now


def mark_gone(conn, meta_key: str, session_ids: list[str]) -> None:
    """Sessions the API no longer lists (deleted there): kept here, marked with when we noticed, audited."""
    for sid in session_ids:
        audit.within(conn, "managed.gone", "ok", session_id=sid, detail={"noticed_at": note_gone(conn, meta_key, sid)})


def session_location(store, session_id: str, where: str) -> str:
    """The location (workspace, project) a session was pulled from; Refused when it was not pulled from one."""
    from sessionscope.store.schema import SOURCE
    with store.reader() as conn:
        loc = conn.execute(sa.select(SOURCE.c.location).join(SESSION, SESSION.c.source_id == SOURCE.c.id)
                           .where(SESSION.c.id == session_id)).scalar()
    if loc is None:
        raise Refused(f"session {session_id} is not from {where}")
    return loc
