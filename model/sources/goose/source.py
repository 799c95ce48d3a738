"""Goose's operations (sessionscope.sources.base.ToolSource): `goose session --resume --id <id>` resumes a
session; fork and rewind are the store's own (Goose's database is never written)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.goose.importer import KIND


class GooseSource(ToolSource):
    kind = KIND
    label = "Goose"
    badge = ("Goose", "#3f3f46")  # the session list's short name and colour
    package = "sessionscope.sources.goose"
    resume_args = ("goose", "session", "--resume", "--id")


SOURCE = GooseSource()
