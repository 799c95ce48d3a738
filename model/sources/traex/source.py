"""TraeX's operations (sessionscope.sources.base.ToolSource): `traex resume <id>`, as Codex's own; fork and rewind
are the store's own (the rollout is never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.traex.importer import KIND


class TraeXSource(ToolSource):
    kind = KIND
    label = "TraeX"
    badge = ("TraeX", "#be123c")  # the session list's short name and colour
    package = "sessionscope.sources.traex"
    resume_args = ("traex", "resume")

    def turn(self, tail):
        from sessionscope.sources.codex.live import turn
        return turn(tail)


SOURCE = TraeXSource()
