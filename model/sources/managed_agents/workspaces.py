"""The workspaces a managed-agents source pulls (`Source.workspaces`): what Settings lists and changes, and
what the window pulls in the background. Keys stay in the system keyring (client.set_api_key)."""

from __future__ import annotations

from ..scan import source_row
from . import importer
from .client import KIND, api_key, key_origin, location_of, set_api_key


class Workspaces:
    title = "Anthropic managed agents (workspaces whose sessions are pulled)"
    add_title = "Add an Anthropic workspace"

    def listed(self, store) -> list[tuple[str, str]]:
        """(location, where its key comes from) of each workspace pulled."""
        return [(loc, key_origin(loc)) for loc in importer.workspaces(store)]

    def add(self, store, base_url: str | None, workspace: str | None, key: str | None) -> str:
        """A workspace to pull (its key kept in the keyring when given); returns its location."""
        loc = location_of(base_url or None, workspace or None)
        if key:
            set_api_key(loc, key)
        store.write(source_row, KIND, loc)
        return loc

    def set_key(self, location: str, key: str | None) -> None:
        set_api_key(location, key or None)

    def stop(self, store, location: str) -> None:
        """No more pulls from the workspace (its sessions stay)."""
        importer.set_enabled(store, location, False)

    def pull_all(self, store) -> list[dict]:
        """Pull every workspace that has a key; the problems of all of them."""
        problems = []
        for loc in importer.workspaces(store):
            if api_key(loc):
                problems += importer.sync(store, loc).problems
        return problems
