"""QwenPaw's operations (sessionscope.sources.base.ToolSource): a session goes on in QwenPaw's console or the chat
it came from (no command takes its id); fork and rewind are the store's own (QwenPaw's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.qwenpaw.importer import KIND


class QwenPawSource(ToolSource):
    kind = KIND
    label = "QwenPaw"
    badge = ("Paw", "#7c3aed")  # the session list's short name and colour (white text keeps AA)
    package = "sessionscope.sources.qwenpaw"


SOURCE = QwenPawSource()
