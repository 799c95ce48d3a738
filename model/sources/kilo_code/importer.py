"""Kilo Code, read only, in its two formats. The editor extension up to early 2026 was a fork of Roo Code and kept
Cline's task files (`kilocode.kilo-code/tasks/<taskId>/`). Kilo then rebuilt the extension and its CLI on OpenCode:
both keep OpenCode's tables in `kilo.db` (`$XDG_DATA_HOME/kilo/`, `~/.local/share/kilo/` by default). Each is read
by its format's own reader; nothing in a file says Kilo rather than Cline or OpenCode, so a file is Kilo's by
where it lies (cline.importer.kind_for, opencode.importer.kind_for) and this package has no `sniff`."""

from __future__ import annotations

import os
from pathlib import Path

from sessionscope.sources import databases
from sessionscope.sources.cline import importer as cline
from sessionscope.sources.documents import read_whole
from sessionscope.sources.opencode import importer as opencode
from sessionscope.sources.scan import importer

KIND = "kilo_code"
EXTENSION = "kilocode.kilo-code"
DATABASE = "kilo.db"


def data_roots() -> list[Path]:
    """The CLI's data folder (`$XDG_DATA_HOME/kilo`, on macOS too; `%LOCALAPPDATA%\\kilo`), where it has sessions."""
    bases = [Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "kilo"]
    if os.environ.get("LOCALAPPDATA"):
        bases.append(Path(os.environ["LOCALAPPDATA"]) / "kilo")
    return [b for b in bases if (b / DATABASE).is_file() or (b / "storage").is_dir()]


def default_roots() -> list[Path]:
    return cline.task_roots(EXTENSION) + data_roots()


def _opencode_layout(root: Path) -> bool:
    """Whether a location is OpenCode's kind of store (a database, or a folder with one or a storage tree)."""
    if root.is_file():
        return root.name.endswith(databases.SUFFIXES)
    return (root / DATABASE).is_file() or (root / "storage").is_dir()


def session_files(root: Path) -> list[Path]:
    return opencode.session_files(root) if _opencode_layout(root) else cline.session_files(root)


_read_task = read_whole(cline.build)


def _read(store, root, path, source_id, known, report, cancel):
    read = _read_task if path.name in (cline.API, cline.UI) else opencode.read_file
    read(store, root, path, source_id, known, report, cancel)


import_paths = importer(KIND, session_files, _read, "Kilo Code sessions")
