"""The audit log: every action taken through Sessionscope, with its outcome."""

from __future__ import annotations

import getpass
import json
import os
import socket
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .schema import AUDIT


def _actor() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no user name in some containers
        user = str(os.getuid()) if hasattr(os, "getuid") else "?"
    return f"{user}@{socket.gethostname()} pid {os.getpid()}"


ACTOR = _actor()


def record(
    conn: Connection, action: str, outcome: str, *, session_id: str | None = None,
    event_id: str | None = None, detail: dict[str, Any] | None = None,
) -> int:
    """Append an entry; returns its id."""
    return conn.execute(AUDIT.insert().values(
        ts=time.time(), action=action, outcome=outcome, session_id=session_id,
        event_id=event_id, detail=json.dumps(detail or {}, default=str), actor=ACTOR,
    )).inserted_primary_key[0]


def entries(conn: Connection, session_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """Newest first."""
    q = sa.select(AUDIT).order_by(AUDIT.c.id.desc()).limit(limit)
    if session_id:
        q = q.where(AUDIT.c.session_id == session_id)
    return [dict(r) | {"detail": json.loads(r["detail"])} for r in conn.execute(q).mappings()]
