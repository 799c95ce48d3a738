"""Sessions named as the tool that keeps Claude Code's transcripts names them: Claude Desktop's Cowork and Qoder each
keep a title (and a little more) in a file beside the transcript, which Claude Code's reader does not read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa

META_MAX_BYTES = 1 << 20


def read_meta(path: Path) -> dict | None:
    """A small JSON object beside a transcript, or None (bounded; untrusted: its values are checked where used)."""
    try:
        if not path.is_file() or path.stat().st_size > META_MAX_BYTES:
            return None
        doc = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) else None


def name(store, named: dict[str, tuple[str, dict[str, Any]]], source: str) -> None:
    """{session id: (title, meta to add)}: each session titled so (a tool's title ranks above one taken from the first
    prompt, below a name the user gave here)."""
    if not named:
        return
    from sessionscope.store.schema import SESSION

    def apply(conn) -> None:
        for sid, meta_text in conn.execute(sa.select(SESSION.c.id, SESSION.c.meta)
                                           .where(SESSION.c.id.in_(list(named)))).all():
            title, extra = named[sid]
            meta = json.loads(meta_text or "{}")
            if meta.get("title_rank", 0) > 2:  # (a user's rename here)
                continue
            meta.update(title_rank=2, title_source=source, **extra)
            conn.execute(SESSION.update().where(SESSION.c.id == sid).values(title=" ".join(title.split())[:200],
                                                                           meta=json.dumps(meta)))
    store.write(apply)
