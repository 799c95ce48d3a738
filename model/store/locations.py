"""Where a store lives, from its location (a path, a SQLAlchemy URL, $SESSIONSCOPE_STORE or nothing), with the
standard library alone: `sessionscope hook` runs at every step of an agent and must start in a few milliseconds,
and the quick reader and the store ask the same question."""

from __future__ import annotations

import os
from pathlib import Path


def default_store_file() -> Path:
    """Where the store lives when nothing names another: store.db in the platform's user data dir."""
    import platformdirs
    return Path(platformdirs.user_data_dir("sessionscope", appauthor=False)) / "store.db"


def sqlite_path(location: str | None) -> Path | None:
    """The file a store location names, when it is a SQLite file ($SESSIONSCOPE_STORE or the user
    data dir's store.db without a location); None for any other URL."""
    location = location or os.environ.get("SESSIONSCOPE_STORE")
    if not location:
        return default_store_file()
    text = os.fspath(location)
    if "://" not in text:
        return Path(text).expanduser().absolute()
    if text.startswith("sqlite:///") and "?" not in text:
        return Path(text[len("sqlite:///"):])
    return None
