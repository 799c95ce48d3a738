"""Roo Code's operations (sessionscope.sources.base.ToolSource): a task is resumed from Roo Code's own task
history in the editor (no command does it); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.roo_code.importer import KIND


class RooCodeSource(ToolSource):
    kind = KIND
    label = "Roo Code"
    badge = ("Roo", "#7c3aed")  # the session list's short name and colour
    package = "sessionscope.sources.roo_code"


SOURCE = RooCodeSource()
