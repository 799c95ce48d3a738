"""Grok Build's operations (sessionscope.sources.base.ToolSource): a session is reopened from Grok's own session list
(no command takes an id); fork and rewind are the store's own (Grok's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.grok.importer import KIND


class GrokSource(ToolSource):
    kind = KIND
    label = "Grok Build"
    badge = ("Grok", "#111827")  # the session list's short name and colour
    package = "sessionscope.sources.grok"


SOURCE = GrokSource()
