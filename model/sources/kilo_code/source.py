"""Kilo Code's operations (sessionscope.sources.base.ToolSource): a session is resumed from Kilo's own history (the
extension's, or `kilo` in a terminal, which lists them); fork and rewind are the store's own."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.kilo_code.importer import KIND


class KiloCodeSource(ToolSource):
    kind = KIND
    label = "Kilo Code"
    badge = ("Kilo", "#a16207")  # the session list's short name and colour
    package = "sessionscope.sources.kilo_code"


SOURCE = KiloCodeSource()
