"""Sessions named as the tool that keeps Claude Code's transcripts names them: Claude Desktop's Cowork and Qoder each
keep a title (and a little more) in a file beside the transcript, which Claude Code's reader does not read."""

from __future__ import annotations

import json
from collections.abc import Callable
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


Titled = Callable[[Path], "tuple[str, str, dict[str, Any]] | None"]  # transcript → (session id, title, meta) or None


def importer(kind: str, titled: Titled, source: str):
    """The `import_paths` of a tool that keeps Claude Code's transcripts: Claude Code's reader, the sources of `kind`,
    then each session named as `titled` reads it from beside its transcript."""
    def import_paths(store, paths, *, progress=None, cancel=None, warm: bool = True, only=None):
        from sessionscope.sources.claude_code.importer import import_paths as claude_import
        from sessionscope.sources.claude_code.importer import session_files
        report = claude_import(store, paths, progress=progress, cancel=cancel, warm=warm, only=only, kind=kind)
        if not report.cancelled:
            files = sorted(only) if only else [f for p in map(Path, paths)
                                               for f in (session_files(p) if p.is_dir() else [p])]
            found = {sid: (title, meta) for f in files if (said := titled(f)) is not None
                     for sid, title, meta in [said]}
            name(store, found, source)
        return report
    import_paths.__doc__ = f"Import {source}'s transcripts (Claude Code's reader, as {kind} sources), then their titles."
    return import_paths
