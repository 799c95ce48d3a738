"""Hermes's operations (sessionscope.sources.base.ToolSource): a session is reopened from Hermes itself (no command
here takes its id: the CLI's and the chat platforms' ways differ); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.hermes.importer import KIND


class HermesSource(ToolSource):
    kind = KIND
    label = "Hermes Agent"
    badge = ("Hermes", "#7c2d12")  # the session list's short name and colour
    package = "sessionscope.sources.hermes"


SOURCE = HermesSource()
