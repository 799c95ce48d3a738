"""Warp's operations (sessionscope.sources.base.ToolSource): a conversation is continued in Warp itself (no command
resumes it); fork and rewind are the store's own (Warp's database is never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.warp.importer import KIND


class WarpSource(ToolSource):
    kind = KIND
    label = "Warp"
    badge = ("Warp", "#1e40af")  # the session list's short name and colour
    package = "sessionscope.sources.warp"


SOURCE = WarpSource()
