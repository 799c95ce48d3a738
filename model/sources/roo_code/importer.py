"""Roo Code (`rooveterinaryinc.roo-cline/tasks/<taskId>/`), read only. Roo Code began as a fork of Cline and keeps
Cline's task files (`api_conversation_history.json`, `ui_messages.json`), read by Cline's reader, plus
`history_item.json`: the workspace, the mode, the provider profile, the cost and the parent task of a subtask
(sessionscope.sources.cline.importer._history_item). Nothing in a file says Roo Code rather than Cline: a task
is Roo Code's by the extension folder it lies in (cline.importer.kind_for), so it has no `sniff` of its own."""

from __future__ import annotations

from pathlib import Path

from sessionscope.sources.cline.importer import build, session_files, task_roots
from sessionscope.sources.documents import read_whole
from sessionscope.sources.scan import importer

KIND = "roo_code"
EXTENSION = "rooveterinaryinc.roo-cline"


def default_roots() -> list[Path]:
    return task_roots(EXTENSION)


import_paths = importer(KIND, session_files, read_whole(build), "Roo Code task files")
