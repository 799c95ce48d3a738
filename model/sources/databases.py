"""SQLite files another tool owns (Agents SDK sessions, LangGraph checkpoints): recognised and opened
read only, never leaving a `-wal` or `-shm` of ours beside them."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

SUFFIXES = (".db", ".sqlite", ".sqlite3", ".vscdb")  # .vscdb: VS Code's and its forks' state (Cursor)


def open_readonly(path: Path) -> sqlite3.Connection:
    """Read only, creating nothing beside someone else's database: `immutable` (no -wal/-shm made) unless
    the application has a write-ahead log there now, whose content a read-only open then includes."""
    if Path(f"{path}-wal").exists():
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    return sqlite3.connect(f"file:{path}?immutable=1", uri=True, check_same_thread=False)


def _mode(path: Path) -> int:
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):
        return 0


def inspect(path: Path, test: Callable[[sqlite3.Connection], bool]) -> bool:
    """Whether `path` is a SQLite database for which `test(connection)` holds (False for anything else,
    and for a file that cannot be read)."""
    if path.suffix not in SUFFIXES or not stat.S_ISREG(_mode(path)):  # never a FIFO or a device
        return False
    try:
        with open(path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return False
        con = open_readonly(path)
        try:
            return bool(test(con))
        finally:
            con.close()
    except (OSError, sqlite3.Error):
        return False


def tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}


def claimed(root: Path, claims: Callable[[Path], bool]) -> list[Path]:
    """The databases under `root` a tool's `claims` takes, oldest first (a database file given alone: itself, if so)."""
    if root.is_file():
        return [root] if claims(root) else []
    found = [Path(d) / n for d, _dirs, names in os.walk(root) for n in names
             if n.endswith(SUFFIXES) and claims(Path(d) / n)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))
