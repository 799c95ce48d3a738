"""Posit Assistant's operations (sessionscope.sources.base.ToolSource): a conversation is reopened in Positron
itself (no command takes its id); fork and rewind are the store's own (Posit's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.posit_assistant.importer import KIND


class PositAssistantSource(ToolSource):
    kind = KIND
    label = "Posit Assistant"
    badge = ("Posit", "#0e7490")  # the session list's short name and colour (white text keeps AA)
    package = "sessionscope.sources.posit_assistant"


SOURCE = PositAssistantSource()
