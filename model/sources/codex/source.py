"""Codex CLI's operations (sessionscope.sources.base.ToolSource): `codex resume <id>`; fork and rewind are the
store's own (a new session referencing the rollout's branch; the rollout is never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.codex.importer import KIND


class CodexSource(ToolSource):
    kind = KIND
    label = "Codex CLI"
    badge = ("Codex", "#0d7a5f")  # the session list's short name and colour
    package = "sessionscope.sources.codex"
    resume_args = ("codex", "resume")

    def turn(self, tail):
        from sessionscope.sources.codex.live import turn
        return turn(tail)


SOURCE = CodexSource()
