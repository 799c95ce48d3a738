"""Codex CLI's operations (sessionscope.sources.base.ToolSource): `codex resume <id>`; fork and rewind are the
store's own (a new session referencing the rollout's branch; the rollout is never touched)."""

from __future__ import annotations

from ..base import ToolSource
from .importer import KIND


class CodexSource(ToolSource):
    kind = KIND
    label = "Codex CLI"
    badge = ("Codex", "#0d7a5f")  # the session list's short name and colour
    package = "sessionscope.sources.codex"
    resume_args = ("codex", "resume")

    def turn(self, tail):
        from .live import turn
        return turn(tail)


SOURCE = CodexSource()
