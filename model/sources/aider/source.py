"""Aider's operations (sessionscope.sources.base.ToolSource): `aider --restore-chat-history` in the
repository resumes its chat history (the file as a whole, not one run of it); fork and rewind are
the store's own."""

from __future__ import annotations

from sessionscope.sources.aider.importer import KIND
from sessionscope.sources.base import ToolSource


class AiderSource(ToolSource):
    kind = KIND
    label = "Aider"
    badge = ("Aider", "#15803d")  # the session list's short name and colour
    package = "sessionscope.sources.aider"
    resume_args = ("aider", "--restore-chat-history")

    def resume_command(self, session) -> list[str]:
        return list(self.resume_args)  # aider has no session ids: it reloads the folder's history file


SOURCE = AiderSource()
