"""The places a store watches: a folder or file the user stops watching is never rescanned again, and its
sessions stay; watching it again rescans it. And the workspaces a source behind an API pulls (`Source.workspaces`):
added, or pulled no more (their sessions stay). Each change is recorded in the audit log."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sessionscope.safety import audit
from sessionscope.sources.scan import set_watched

if TYPE_CHECKING:
    from sessionscope.sources.api_workspaces import Workspaces
    from sessionscope.store.api import Store


def unwatch(store: Store, locations: list[str], *, actor: str | None = None) -> list[str]:
    """Stop rescanning `locations`; the ones that were watched."""
    return _set(store, list(locations), False, actor)


def watch(store: Store, locations: list[str], *, actor: str | None = None) -> list[str]:
    """Rescan `locations` again (a place stopped before); the ones that were not watched."""
    return _set(store, list(locations), True, actor)


def add_workspace(store: Store, workspaces: Workspaces, base_url: str | None, scope: str | None, key: str | None, *,
                  actor: str | None = None) -> str:
    """A workspace for `workspaces` (a Source's) to pull, its key kept in the system keyring when given (never
    recorded); its location."""
    with audit.acting_as(actor):
        return workspaces.add(store, base_url, scope, key)


def stop_workspace(store: Store, workspaces: Workspaces, location: str, *, actor: str | None = None) -> None:
    """No more pulls from `location` (its sessions stay)."""
    with audit.acting_as(actor):
        workspaces.stop(store, location)


def _set(store: Store, locations: list[str], watched: bool, actor: str | None) -> list[str]:
    if not locations:
        return []
    with audit.acting_as(actor):
        return store.audited("watch" if watched else "unwatch", lambda conn: set_watched(conn, locations, watched),
                             detail=lambda changed: {"locations": changed, "kept": "the sessions stay in the store"})
