"""Cline's operations (sessionscope.sources.base.ToolSource): a task is resumed from Cline's own task
history in VS Code (no command does it); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.cline.importer import KIND


class ClineSource(ToolSource):
    kind = KIND
    label = "Cline"
    badge = ("Cline", "#0e7490")  # the session list's short name and colour
    package = "sessionscope.sources.cline"


SOURCE = ClineSource()
