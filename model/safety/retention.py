"""The retention policy: archive sessions idle for N days, purge archived after M days.

Off by default. The policy lives in the store (every client shares it). This module keeps the policy and says what
it reaches (`plan`); sessionscope.ops.run_retention does it, each session through its tool's own rules (a managed
agent's archive at Anthropic first; a fork other sessions hang from is kept), with each session's audit entry and
one for the run.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.history import lifecycle
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


@dataclass(frozen=True, slots=True)
class Plan:
    """What a policy asks for now: sessions idle long enough to archive, archived long enough to purge, and those the
    lifecycle keeps out of it (with why). Each is then done by sessionscope.ops, through its tool's own rules."""

    archive: list[str]
    purge: list[str]
    skipped: list[dict]


def plan(conn: Connection, policy: RetentionPolicy, now: float | None = None) -> Plan:
    """The sessions the policy reaches at `now`. A session archived in this same run is never purged in it: its
    purge clock starts when it is archived."""
    now = time.time() if now is None else now
    archive, purge, skipped = [], [], []
    if policy.archive_after_days is not None:
        cutoff = now - policy.archive_after_days * DAY
        idle = conn.execute(sa.select(SESSION.c.id, SESSION.c.status).where(
            SESSION.c.updated_at < cutoff, SESSION.c.status != lifecycle.ARCHIVED).order_by(SESSION.c.id)).all()
        for sid, status in idle:
            if lifecycle.allows(status, "archive"):
                archive.append(sid)
            else:
                skipped.append({"session": sid, "why": f"it is {status}"})
    if policy.purge_after_days is not None:
        cutoff = now - policy.purge_after_days * DAY
        purge = list(conn.execute(sa.select(SESSION.c.id).where(
            SESSION.c.status == lifecycle.ARCHIVED, SESSION.c.status_changed_at < cutoff)
            .order_by(SESSION.c.id)).scalars())
    return Plan(archive, purge, skipped)
