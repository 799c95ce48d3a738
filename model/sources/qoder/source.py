"""Qoder's operations (sessionscope.sources.base.ToolSource): a session goes on in Qoder (no command resumes it);
fork and rewind are the store's own (its transcripts are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.qoder.importer import KIND


class QoderSource(ToolSource):
    kind = KIND
    label = "Qoder"
    badge = ("Qoder", "#047857")  # the session list's short name and colour
    package = "sessionscope.sources.qoder"


SOURCE = QoderSource()
