"""DeepSeek TUI's operations (sessionscope.sources.base.ToolSource): a session is resumed from the TUI's own list;
fork and rewind are the store's own (its files are never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.deepseek_tui.importer import KIND


class DeepSeekTUISource(ToolSource):
    kind = KIND
    label = "DeepSeek TUI"
    badge = ("DeepSeek", "#1d4ed8")  # the session list's short name and colour
    package = "sessionscope.sources.deepseek_tui"


SOURCE = DeepSeekTUISource()
