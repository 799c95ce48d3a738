"""Files written beside their final name, then moved or linked into place, so a reader never sees half a file;
and what a killed writer leaves behind, removed.

A temporary file is named `.NAME.sessionscope-PID-XXXX.part` after the file it becomes and the process that
writes it. A process killed mid-write (kill -9, a power cut) cannot remove its own; the next writer into the
same folder removes those whose process is gone and that nobody has written to for a minute.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from pathlib import Path

_PART_RE = re.compile(r"^\..+\.sessionscope-(\d+)-[^.]+\.part$")
QUIET_S = 60.0  # a leftover written to this recently may still be another machine's writer (a shared folder)


def temporary(path: Path) -> tuple[int, str]:
    """(fd, name) of a new temporary file beside `path` (its folder made if missing); leftovers swept first."""
    folder = Path(path).parent
    folder.mkdir(parents=True, exist_ok=True)
    sweep(folder)
    return tempfile.mkstemp(dir=folder, prefix=f".{Path(path).name}.sessionscope-{os.getpid()}-", suffix=".part")


def sweep(folder: Path) -> list[str]:
    """Remove the temporary files of writers that are gone (and quiet for QUIET_S); returns their names."""
    removed: list[str] = []
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = _PART_RE.match(entry.name)
        if m is None or _alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and now - entry.stat(follow_symlinks=False).st_mtime >= QUIET_S:
                os.unlink(entry.path)
                removed.append(entry.name)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: left alone
    return True
