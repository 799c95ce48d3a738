"""Qwen Code's operations (sessionscope.sources.base.ToolSource): `qwen --resume <id>` in the project's
folder resumes a chat; fork and rewind are the store's own (Qwen's files are never touched)."""

from __future__ import annotations

from sessionscope.sources.base import ToolSource
from sessionscope.sources.qwen_code.importer import KIND


class QwenCodeSource(ToolSource):
    kind = KIND
    label = "Qwen Code"
    badge = ("Qwen", "#5b4bdb")  # the session list's short name and colour
    package = "sessionscope.sources.qwen_code"
    resume_args = ("qwen", "--resume")


SOURCE = QwenCodeSource()
