"""pi's and OpenClaw's operations (sessionscope.sources.base.ToolSource): a session is reopened from the tool's own
session picker (`pi -r`, OpenClaw's session list: no command takes an id); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.pi.importer import KIND


class PiSource(ToolSource):
    kind = KIND
    label = "pi / OpenClaw"
    badge = ("pi", "#6d28d9")  # the session list's short name and colour
    package = "sessionscope.sources.pi"


SOURCE = PiSource()
