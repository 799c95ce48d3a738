"""Gemini CLI's operations (sessionscope.sources.base.ToolSource): `gemini --resume <id>`; fork and rewind are
the store's own (the chat file is never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.gemini.importer import KIND


class GeminiSource(ToolSource):
    kind = KIND
    label = "Gemini CLI"
    badge = ("Gemini", "#2f66c4")  # the session list's short name and colour
    package = "sessionscope.sources.gemini"
    resume_args = ("gemini", "--resume")


SOURCE = GeminiSource()
