"""JetBrains Junie's operations (sessionscope.sources.base.ToolSource): a session goes on in Junie (its own session
list, in the CLI or the IDE); fork and rewind are the store's own (Junie's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.junie.importer import KIND


class JunieSource(ToolSource):
    kind = KIND
    label = "JetBrains Junie"
    badge = ("Junie", "#7c3aed")  # the session list's short name and colour (white text keeps AA)
    package = "sessionscope.sources.junie"


SOURCE = JunieSource()
