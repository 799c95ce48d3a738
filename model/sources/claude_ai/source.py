"""claude.ai export's operations (sessionscope.sources.base.ToolSource): an exported conversation is a
record (claude.ai opens it by its id); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.claude_ai.importer import KIND


class ClaudeAiSource(ToolSource):
    kind = KIND
    label = "claude.ai"
    badge = ("claude.ai", "#a3512b")  # the session list's short name and colour
    package = "sessionscope.sources.claude_ai"


SOURCE = ClaudeAiSource()
