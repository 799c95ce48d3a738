"""Private by default: transcripts hold keys, tokens and customer data, so the store is its user's alone.

A SQLite store file is created 0600 before SQLite first opens it (SQLite gives its `-wal` and
`-shm` files the main file's mode) in a folder created 0700; exports are written 0600 already.
An existing store that others can read is not changed behind the user's back: it is said, with
the command that fixes it, by the CLI and the app.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sessionscope.store.locations import sqlite_path


def _file_of(location: str | None) -> Path | None:
    """The SQLite file a URL or path names (None: the default store), or None for another database."""
    if location and ":memory:" in location:
        return None
    return sqlite_path(location.split("?", 1)[0] if location else None)


def private_dir(folder: Path) -> None:
    """Create `folder` and any missing folder above it 0700 (mkdir's `parents` would make those 0755)."""
    missing = []
    for f in [folder, *folder.parents]:
        if f.exists():
            break
        missing.append(f)
    for f in reversed(missing):
        try:
            f.mkdir(mode=0o700)
        except FileExistsError:
            pass


def prepare(url: str | None) -> None:
    """Create a new SQLite store's folder (0700) and file (0600) before SQLite does, with umask's
    0644 otherwise. Nothing happens to a store that exists."""
    path = _file_of(url)
    if path is None or path.exists():
        return
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:  # another process made it meanwhile: theirs stands
        return
    os.close(fd)


def exposure(url: str | None) -> str | None:
    """What others can read of the store (its file, -wal, -shm), said with the fix; None if nothing."""
    path = _file_of(url)
    if path is None or os.name != "posix":
        return None
    open_to_others = []
    for f in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            mode = f.stat().st_mode
        except OSError:
            continue
        if mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH):
            open_to_others.append((f, stat.S_IMODE(mode)))
    if not open_to_others:
        return None
    first, mode = open_to_others[0]
    return (f"the store {first} is readable by other users (mode {mode:04o}) and transcripts hold secrets; "
            f"make it yours alone with: chmod 600 '{path}'*")
