"""Codex CLI's operations, as every source offers them (model.sources.base).

Resume is Codex's own `codex resume <id>`; fork and rewind are the store's own (a
new session referencing the rollout's branch; the rollout file is never touched).
"""

from __future__ import annotations

from ..base import Source
from .importer import KIND, default_roots, import_paths
from .lines import sniff


class CodexSource(Source):
    kind = KIND
    label = "Codex CLI"
    resume_programs = ("codex",)

    def allows(self, action: str, status: str | None) -> bool:
        if action == "resume":
            return True  # Codex resumes it, whatever the store's status
        if action == "compact":
            return False  # a summary of ours is not a line Codex wrote
        return super().allows(action, status)

    def default_roots(self):
        return default_roots()

    def sniff(self, obj) -> bool:
        return sniff(obj)

    def import_paths(self, store, paths, *, progress=None, cancel=None, warm=True, only=None):
        return import_paths(store, paths, progress=progress, cancel=cancel, warm=warm, only=only)

    def resume_command(self, session) -> list[str]:
        return ["codex", "resume", session.tool_id or session.id]


SOURCE = CodexSource()
