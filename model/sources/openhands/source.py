"""OpenHands' operations (sessionscope.sources.base.ToolSource): a trajectory is a record of a finished run
(OpenHands replays one through its own config, not by an id): no resume; fork and rewind are the
store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.openhands.importer import KIND


class OpenHandsSource(ToolSource):
    kind = KIND
    label = "OpenHands"
    badge = ("OpenHands", "#8a2fd6")  # the session list's short name and colour
    package = "sessionscope.sources.openhands"


SOURCE = OpenHandsSource()
