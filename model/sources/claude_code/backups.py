"""Claude Code's file-history backups on disk: where they lie, reading one, preparing a batch's for the store.

Light (no store): the reader process of a big import (reader.py) reads and compresses the backups a
batch's checkpoint lines name, so the importing process only stores them (checkpoints.capture).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from sessionscope.errors import Refused
from sessionscope.safety.untrusted import child
from sessionscope.store.blob_codec import Prepared, prepare

MAX_BACKUP_BYTES = 64 << 20  # a backup bigger than this is not copied into the store


def history_dirs(transcript: Path | None = None) -> list[Path]:
    """Where backups may lie: beside the `projects` folder a transcript is under, then the defaults."""
    out: list[Path] = []
    if transcript is not None:
        for parent in Path(transcript).absolute().parents:
            if parent.name == "projects":
                out.append(parent.parent / "file-history")
                break
    env = os.environ.get("CLAUDE_CONFIG_DIR", "")
    out += [Path(p.strip()).expanduser() / "file-history" for p in re.split(r"[,:]", env) if p.strip()]
    out += [Path.home() / ".claude" / "file-history", Path.home() / ".config" / "claude" / "file-history"]
    seen, unique = set(), []
    for d in out:
        if str(d) not in seen:
            seen.add(str(d))
            unique.append(d)
    return unique


def read_backup(dirs: list[Path], tool_session: str, name: str) -> bytes | None:
    """The backup's bytes; None when it is not there, too big, not a regular file, or when the session or the
    name (both read from a transcript) would lead out of the backup folder."""
    for d in dirs:
        try:
            path = child(d, tool_session, name, what="backup")
            if stat.S_ISREG(path.stat().st_mode) and path.stat().st_size <= MAX_BACKUP_BYTES:
                return path.read_bytes()
        except Refused:
            return None
        except OSError:
            continue
    return None



def read_prepared(dirs: list[Path], key: tuple[str, str]) -> Prepared | None:
    """The backup (session, name) read and compressed as the store keeps it; None when it is not there."""
    data = read_backup(dirs, *key)
    return None if data is None else prepare(data)


def prepare_all(wanted: Iterable[tuple[str, str]], dirs: list[Path], done: set[tuple[str, str]]
                ) -> dict[tuple[str, str], Prepared | None]:
    """Each backup of `wanted` not in `done` (prepared for an earlier batch: stored by now), read and
    compressed; adds them to `done`."""
    out: dict[tuple[str, str], Prepared | None] = {}
    for key in wanted:
        if key not in done:
            done.add(key)
            out[key] = read_prepared(dirs, key)
    return out
