"""Devin CLI's operations (sessionscope.sources.base.ToolSource): a session goes on in Devin (its own session list);
fork and rewind are the store's own (its database is never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.devin.importer import KIND


class DevinSource(ToolSource):
    kind = KIND
    label = "Devin CLI"
    badge = ("Devin", "#0f766e")  # the session list's short name and colour
    package = "sessionscope.sources.devin"


SOURCE = DevinSource()
