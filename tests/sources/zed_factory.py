"""Zed's thread database as Zed lays it out (FORMATS.md §14), for the tests that build one."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def threads_db(path: Path, rows: list[tuple]) -> Path:
    """`threads.db` at `path` with `rows` of (id, summary, updated_at, data_type, data, folder_paths, created_at)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, "
                "data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, "
                "folder_paths_order TEXT, created_at TEXT)")
    con.executemany("INSERT INTO threads VALUES (?, ?, ?, ?, ?, NULL, ?, NULL, ?)", rows)
    con.commit()
    con.close()
    return path
