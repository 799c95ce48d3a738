"""Zed's operations (sessionscope.sources.base.ToolSource): a thread is reopened from Zed's agent panel
(its thread history); fork and rewind are the store's own (Zed's database is never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.zed.importer import KIND


class ZedSource(ToolSource):
    kind = KIND
    label = "Zed"
    badge = ("Zed", "#0751cf")  # the session list's short name and colour
    package = "sessionscope.sources.zed"


SOURCE = ZedSource()
