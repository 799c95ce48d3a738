"""Amp's operations (sessionscope.sources.base.ToolSource): `amp threads continue <id>` in the project's
folder picks a thread up again; fork and rewind are the store's own (Amp's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.amp.importer import KIND
from sessionscope.sources.base import ToolSource


class AmpSource(ToolSource):
    kind = KIND
    label = "Amp"
    badge = ("Amp", "#b8492e")  # the session list's short name and colour
    package = "sessionscope.sources.amp"
    resume_args = ("amp", "threads", "continue")


SOURCE = AmpSource()
