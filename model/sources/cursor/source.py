"""Cursor's operations (sessionscope.sources.base.ToolSource): the editor reopens a chat from its own
history panel only; an agent CLI session resumes with `cursor-agent --resume <id>`; fork and rewind are
the store's own (Cursor's databases are never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.cursor.importer import CLI, KIND


class CursorSource(ToolSource):
    kind = KIND
    label = "Cursor"
    badge = ("Cursor", "#1f1f1f")  # the session list's short name and colour
    package = "sessionscope.sources.cursor"
    resume_args = ("cursor-agent", "--resume")
    resumes_only = ("cursor_kind", CLI, "a chat of Cursor's editor is reopened from Cursor's own chat history; "
                                        "only the agent CLI's sessions resume from a terminal")


SOURCE = CursorSource()
