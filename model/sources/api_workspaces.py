"""The places a source behind an API pulls from (`Source.workspaces`): Anthropic workspaces, OpenAI projects.
What Settings lists and changes, and what the window pulls in the background. Each is a source row of the
source's kind whose location is the API's address (remote.http_location); keys stay in the system keyring."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from sessionscope.errors import SessionscopeError
from sessionscope.sources import remote
from sessionscope.sources.scan import source_row
from sessionscope.store.schema import SOURCE


def locations(store, kind: str) -> list[str]:
    """The locations of a kind's enabled sources: what a pull reads."""
    from sessionscope.safety.team import own_sources
    with store.reader() as conn:
        return list(conn.execute(sa.select(SOURCE.c.location).where(SOURCE.c.kind == kind, SOURCE.c.enabled.is_(True),
                                                                     own_sources(conn))).scalars())


def set_enabled(store, kind: str, location: str, enabled: bool) -> None:
    """Pull a location again, or no more (its sessions stay)."""
    from sessionscope.safety.team import own_sources
    store.audited("managed.workspace", lambda conn: conn.execute(
        SOURCE.update().where(SOURCE.c.kind == kind, SOURCE.c.location == location, own_sources(conn))
        .values(enabled=enabled)),
        detail={"location": location, "enabled": enabled})


class Workspaces:
    """One source's workspaces. `sync(store, location)` pulls one (an ImportReport); `location_of(base, scope)`
    names one; `env` is the environment variable a key may come from. The hints are the Add dialog's."""

    def __init__(self, *, kind: str, env: str, sync: Callable, location_of: Callable, title: str, add_title: str,
                 base_hint: str, scope_label: str, scope_hint: str, key_hint: str):
        self.kind, self.env, self._sync, self._location_of = kind, env, sync, location_of
        self.title, self.add_title = title, add_title
        self.base_hint, self.scope_label, self.scope_hint, self.key_hint = base_hint, scope_label, scope_hint, key_hint

    def listed(self, store) -> list[tuple[str, str]]:
        """(location, where its key comes from) of each one pulled."""
        return [(loc, remote.key_origin(self.env, loc)) for loc in locations(store, self.kind)]

    def add(self, store, base_url: str | None, scope: str | None, key: str | None) -> str:
        """A place to pull (its key kept in the keyring when given); returns its location."""
        loc = self._location_of(base_url or None, scope or None)
        if key:
            remote.set_api_key(loc, key)
        store.audited("managed.workspace", lambda conn: source_row(conn, self.kind, loc),
                      detail={"location": loc, "enabled": True, "added": True, "key_given": bool(key)})
        return loc

    def set_key(self, location: str, key: str | None) -> None:
        remote.set_api_key(location, key or None)

    def stop(self, store, location: str) -> None:
        """No more pulls from it (its sessions stay)."""
        set_enabled(store, self.kind, location, False)

    def pull_all(self, store) -> list[dict]:
        """Pull every one that has a key; the problems of all of them. One place failing (a hostile server, a
        refused key) is its problem: the others are pulled all the same."""
        problems = []
        for loc in locations(store, self.kind):
            if remote.api_key(self.env, loc):
                try:
                    problems += self._sync(store, loc).problems
                except Exception as exc:  # noqa: BLE001 — whatever a server made of this pull, said per place
                    said = str(exc) if isinstance(exc, SessionscopeError) else f"could not be pulled: {type(exc).__name__}"
                    problems.append({"path": loc, "line": None, "offset": None, "problem": said})
        return problems
