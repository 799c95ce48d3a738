"""Helpers that lay corpus transcripts out as a real Claude Code home."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import orjson

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def last_session_id(path: Path) -> str | None:
    """The session a file continues (a resumed file repeats older ids first)."""
    last = None
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                sid = orjson.loads(raw).get("sessionId")
            except (orjson.JSONDecodeError, AttributeError):
                continue
            if isinstance(sid, str) and UUID_RE.match(sid):
                last = sid
    return last


def lay_out(entry: Path, projects: Path, index: int) -> Path:
    """Copy one corpus entry (a project folder or a single file) into projects/; returns its dir."""
    project = projects / f"-corpus-{index}"
    if entry.is_dir():
        shutil.copytree(entry, project)
    else:
        project.mkdir(parents=True)
        sid = last_session_id(entry)
        shutil.copy(entry, project / (f"{sid}.jsonl" if sid else entry.name))
    return project
