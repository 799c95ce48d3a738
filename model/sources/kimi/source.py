"""Kimi's operations (sessionscope.sources.base.ToolSource): `kimi --session <id>` in the project's folder
resumes a Kimi CLI session; fork and rewind are the store's own (Kimi's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.kimi.importer import KIND


class KimiSource(ToolSource):
    kind = KIND
    label = "Kimi"
    badge = ("Kimi", "#111827")  # the session list's short name and colour
    package = "sessionscope.sources.kimi"
    resume_args = ("kimi", "--session")


SOURCE = KimiSource()
