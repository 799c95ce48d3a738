"""GitHub Copilot's operations (sessionscope.sources.base.ToolSource): a Copilot CLI session resumes with
`copilot --resume <id>`; a chat of VS Code's or Visual Studio's is reopened from the editor's own chat
history; fork and rewind are the store's own (Copilot's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.copilot.cli import CLI
from sessionscope.sources.copilot.importer import KIND


class CopilotSource(ToolSource):
    kind = KIND
    label = "GitHub Copilot"
    badge = ("Copilot", "#24292f")  # the session list's short name and colour
    package = "sessionscope.sources.copilot"
    resume_args = ("copilot", "--resume")
    resumes_only = ("copilot_kind", CLI, "a Copilot chat of an editor's is reopened from the editor's own chat "
                                         "history; only the Copilot CLI's sessions resume from a terminal")


SOURCE = CopilotSource()
