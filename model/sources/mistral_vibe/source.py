"""Mistral Vibe's operations (sessionscope.sources.base.ToolSource): a session is reopened from Vibe itself (no
command here takes its id); fork and rewind are the store's own (Vibe's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.mistral_vibe.importer import KIND


class MistralVibeSource(ToolSource):
    kind = KIND
    label = "Mistral Vibe"
    badge = ("Vibe", "#c2410c")  # the session list's short name and colour (white text keeps AA)
    package = "sessionscope.sources.mistral_vibe"


SOURCE = MistralVibeSource()
