"""The retention policy: archive sessions idle for N days, purge archived after M days.

Off by default. The policy lives in the store (every client shares it); each run
is recorded in the audit log with what it archived, purged and skipped.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import Refused
from sessionscope.history import lifecycle, sessions
from sessionscope.store import settings
from sessionscope.store.schema import SESSION

DAY = 86400.0
_KEY = "retention"


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    archive_after_days: float | None = None
    purge_after_days: float | None = None

    @property
    def enabled(self) -> bool:
        return self.archive_after_days is not None or self.purge_after_days is not None


def get_policy(conn: Connection) -> RetentionPolicy:
    raw = settings.get(conn, _KEY)
    return RetentionPolicy(**json.loads(raw)) if raw else RetentionPolicy()


def set_policy(conn: Connection, policy: RetentionPolicy) -> None:
    value = json.dumps({"archive_after_days": policy.archive_after_days, "purge_after_days": policy.purge_after_days})
    settings.put(conn, _KEY, value)


def run(conn: Connection, policy: RetentionPolicy, now: float | None = None, dry_run: bool = False) -> dict:
    """Apply the policy once; returns {archived, purged, skipped} session ids."""
    now = time.time() if now is None else now
    archived, purged, skipped = [], [], []
    if policy.archive_after_days is not None:
        cutoff = now - policy.archive_after_days * DAY
        idle = conn.execute(sa.select(SESSION.c.id, SESSION.c.status).where(
            SESSION.c.updated_at < cutoff, SESSION.c.status != lifecycle.ARCHIVED)).all()
        for sid, status in idle:
            if not lifecycle.allows(status, "archive"):
                skipped.append({"session": sid, "why": f"it is {status}"})
                continue
            if not dry_run:
                sessions.transition(conn, sid, "archive")
            archived.append(sid)
    if policy.purge_after_days is not None:
        cutoff = now - policy.purge_after_days * DAY
        old = conn.execute(sa.select(SESSION.c.id).where(
            SESSION.c.status == lifecycle.ARCHIVED, SESSION.c.status_changed_at < cutoff)).scalars().all()
        for sid in old:
            if sid in archived:
                continue  # archived in this very run: its purge clock starts now
            try:
                if dry_run:
                    if sessions.dependents(conn, sid):
                        raise Refused("other sessions fork from it")
                else:
                    sessions.delete(conn, sid)
                purged.append(sid)
            except Refused as exc:
                skipped.append({"session": sid, "why": str(exc)})
    return {"archived": archived, "purged": purged, "skipped": skipped}
