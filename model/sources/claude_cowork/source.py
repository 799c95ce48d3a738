"""Claude Cowork's operations (sessionscope.sources.base.ToolSource): a session goes on in Claude Desktop (no command
resumes it); fork and rewind are the store's own (the transcripts are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.claude_cowork.importer import KIND


class ClaudeCoworkSource(ToolSource):
    kind = KIND
    label = "Claude Cowork"
    badge = ("Cowork", "#9a3412")  # the session list's short name and colour
    package = "sessionscope.sources.claude_cowork"


SOURCE = ClaudeCoworkSource()
