"""Sync with a team store (#38 item 3) and the choices it reads, each recorded in the audit log as every action is:
push (or a dry run's review), a project's rule, a session's yes or no, the team store's address."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sessionscope import sync
from sessionscope.errors import InvalidInput
from sessionscope.history.read_models import Action
from sessionscope.safety import audit
from sessionscope.store import db
from sessionscope.sync import choices, pushing

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from sessionscope.store.api import Store


def sync_now(store: Store, url: str | None = None, *, dry_run: bool = False,
             progress: Callable[..., None] | None = None,
             cancel: threading.Event | None = None, actor: str | None = None) -> pushing.SyncReport:
    """Push what the user shares to the team store at `url` (else the remembered one); the report. A dry run
    writes nothing there and reviews what would be redacted. Recorded here (and, per session, in the team
    store's own log)."""
    with audit.acting_as(actor):
        with store.reader() as conn:
            remembered = choices.target(conn)
        address = url or (choices.target_url(remembered) if remembered else None)
        try:
            if not address:
                raise InvalidInput("no team store to sync to: sessionscope sync --to postgresql://user@host/db "
                                   "(sessionscope sync target URL remembers it)")
            bare = choices.shown(address)
            team = _open_team(store, address)
            try:
                report = pushing.push(store, team, dry_run=dry_run, progress=progress, cancel=cancel, target=bare)
            finally:
                team.close()
        except Exception as exc:
            shown = _shown(address)
            audit.failed(store, Action.SYNC, exc, detail={"target": shown, "dry_run": dry_run})
            if not dry_run and shown:
                store.write(pushing.fail_report, shown, str(exc))
            raise
        detail = report.as_dict(findings=False) | {"findings": len(report.findings)}
        if dry_run:
            audit.audited(store, "sync.dry_run", detail=detail)
        else:
            store.audited(Action.SYNC, lambda conn: pushing.keep_report(conn, report), detail=detail,
                          outcome="cancelled" if report.cancelled else "ok")
    return report


def _shown(address: str | None) -> str | None:
    try:
        return choices.shown(address) if address else None
    except InvalidInput:
        return None


def _open_team(store: Store, address: str) -> Store:
    from sessionscope import open_store
    url = db.as_url(address)
    if url == store.url:
        raise InvalidInput("the team store to sync to is this store itself")
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):])
        if not path.is_file():  # (a mistyped name must not make a store)
            raise InvalidInput(f"no store at {path}: sync pushes into a store that exists (a team store is "
                               "usually on PostgreSQL)")
    return open_store(address)


def sync_plan(store: Store) -> sync.SyncPlan:
    """What a sync would push now (nothing is written)."""
    with store.reader() as conn:
        return choices.plan(conn)


def set_project_rule(store: Store, project: str, rule: str | None, *, actor: str | None = None) -> None:
    """A project's sharing rule: always, ask, never (None: the default rule again)."""
    with audit.acting_as(actor):
        store.audited(Action.SYNC_RULE, lambda conn: choices.set_project_rule(conn, project, rule),
                      detail={"project": project, "rule": rule})


def set_default_rule(store: Store, rule: str, *, actor: str | None = None) -> None:
    """The rule of every project without one of its own."""
    with audit.acting_as(actor):
        store.audited(Action.SYNC_RULE, lambda conn: choices.set_default_rule(conn, rule),
                      detail={"default": rule})


def decide(store: Store, session_ids: list[str], share: bool, *, actor: str | None = None) -> int:
    """Yes (share at each sync) or no (never ask again; its team copy, if any, is unshared at the next sync) for
    each session; how many changed."""
    with audit.acting_as(actor):
        return store.audited(Action.SHARE if share else Action.UNSHARE,
                             lambda conn: choices.decide(conn, session_ids, share),
                             session_id=session_ids[0] if len(session_ids) == 1 else None,
                             detail={"sessions": session_ids, "for": "sync"})


def set_target(store: Store, url: str | None, *, actor: str | None = None) -> str | None:
    """Remember the team store's address (a password in it goes to the system keyring), or forget it (None); the
    address kept, without its password."""
    def work(conn: Connection) -> str | None:
        if url:
            return choices.remember_target(conn, url)
        choices.forget_target(conn)
        return None
    with audit.acting_as(actor):
        return store.audited(Action.SYNC_TARGET, work, detail=lambda kept: {"target": kept})


def set_sync_every(store: Store, minutes: int, *, actor: str | None = None) -> None:
    """Minutes between the app's background syncs (0: only when asked)."""
    with audit.acting_as(actor):
        store.audited(Action.SYNC_TARGET, lambda conn: choices.set_every_minutes(conn, minutes),
                      detail={"every": minutes})
