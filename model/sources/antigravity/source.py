"""Antigravity's operations (sessionscope.sources.base.ToolSource): a conversation is reopened in Antigravity
itself (no command takes its id); fork and rewind are the store's own (Antigravity's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.antigravity.importer import KIND
from sessionscope.sources.base import ToolSource


class AntigravitySource(ToolSource):
    kind = KIND
    label = "Antigravity"
    badge = ("AGY", "#1d4ed8")  # the session list's short name and colour (white text keeps AA)
    package = "sessionscope.sources.antigravity"


SOURCE = AntigravitySource()
