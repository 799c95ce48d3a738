"""Crush's operations (sessionscope.sources.base.ToolSource): Crush (and the Go OpenCode) pick a session
from their own session list, in the project; no command names one. Fork and rewind are the store's own
(the tool's database is never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.crush.importer import KIND


class CrushSource(ToolSource):
    kind = KIND
    label = "Crush"
    badge = ("Crush", "#6b2fbf")  # the session list's short name and colour
    package = "sessionscope.sources.crush"


SOURCE = CrushSource()
