"""Gemini CLI's operations, as every source offers them (model.sources.base).

Resume is Gemini's own `gemini --resume <id>`; fork and rewind are the store's own
(the chat file is never touched)."""

from __future__ import annotations

from ..base import Source
from .importer import KIND, default_roots, import_paths
from .lines import sniff


class GeminiSource(Source):
    kind = KIND
    label = "Gemini CLI"
    resume_programs = ("gemini",)

    def allows(self, action: str, status: str | None) -> bool:
        if action == "resume":
            return True
        if action == "compact":
            return False
        return super().allows(action, status)

    def default_roots(self):
        return default_roots()

    def sniff(self, obj) -> bool:
        return sniff(obj)

    def import_paths(self, store, paths, *, progress=None, cancel=None, warm=True, only=None):
        return import_paths(store, paths, progress=progress, cancel=cancel, warm=warm, only=only)

    def resume_command(self, session) -> list[str]:
        return ["gemini", "--resume", session.tool_id or session.id]


SOURCE = GeminiSource()
