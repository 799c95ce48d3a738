"""Kiro CLI's operations (sessionscope.sources.base.ToolSource): `kiro-cli chat --resume` goes on with the folder's
newest conversation from inside that folder (no command takes a conversation's id); fork and rewind are the store's
own (Kiro's database is never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.kiro.importer import KIND


class KiroSource(ToolSource):
    kind = KIND
    label = "Kiro CLI"
    badge = ("Kiro", "#6d28d9")  # the session list's short name and colour (white text keeps AA)
    package = "sessionscope.sources.kiro"


SOURCE = KiroSource()
