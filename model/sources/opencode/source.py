"""OpenCode's operations (sessionscope.sources.base.ToolSource): `opencode --session <id>` in the project's
folder resumes a session; fork and rewind are the store's own (OpenCode's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.opencode.importer import KIND, LAYOUT


class OpenCodeSource(ToolSource):
    kind = KIND
    label = "OpenCode"
    badge = ("OpenCode", "#c2410c")  # the session list's short name and colour
    package = "sessionscope.sources.opencode"
    resume_args = ("opencode", "--session")
    companion_folders = LAYOUT


SOURCE = OpenCodeSource()
