"""Backups of a SQLite store: the only copy of the sessions a tool has deleted since it was imported.

A backup is a whole, consistent copy made with SQLite's online backup API while the store stays in use,
in the `<store>-backups` folder beside the store (the data folder's `store-backups` for the default store),
0600 like the store:
- before every migration (`before-<revision>`), so an upgrade can always be taken back;
- on a schedule (`scheduled`, at most one a day: the app makes it in the background at start);
- when asked (`sessionscope backup`).
The newest KEEP of each kind are kept. Restoring checks the backup first, keeps the store as it is now
as a backup of its own (`before-restore`), then copies the backup in through the same API.
A PostgreSQL store is backed up by its server's own tools (pg_dump), not here.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from sessionscope.errors import InvalidInput, Refused
from sessionscope.store import payloads
from sessionscope.store.locations import sqlite_path

KEEP = {"scheduled": 7, "manual": 5, "before-restore": 3}
KEEP_MIGRATION = 3  # backups made before a migration (each names the revision it came before)
SCHEDULE_S = 24 * 3600.0
_NAME_RE = re.compile(r"^(?P<stem>.+)-(?P<when>\d{8}-\d{6})-(?P<kind>[a-z0-9-]+)\.db$")


@dataclass(frozen=True)
class Backup:
    path: Path
    kind: str  # scheduled, manual, before-restore, before-<revision>
    made_at: float
    size: int

    def as_dict(self) -> dict:
        return {"path": str(self.path), "kind": self.kind, "made_at": self.made_at, "size": self.size}


def store_file(url: str) -> Path:
    """The SQLite file of a store URL; Refused for another engine."""
    path = sqlite_path(url.split("?", 1)[0]) if url and ":memory:" not in url else None
    if path is None:
        raise Refused("only a SQLite store is backed up here: back up a PostgreSQL store with its server's "
                      "tools (pg_dump)")
    return path


def folder_of(store_path: Path) -> Path:
    """`<store>-backups` beside the store: named after it (a `backups` folder of the user's own may lie there)."""
    return store_path.parent / f"{store_path.stem}-backups"


def backups(store_path: Path) -> list[Backup]:
    """This store's backups, newest first."""
    out = []
    folder = folder_of(store_path)
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            m = _NAME_RE.match(entry.name)
            if m and m.group("stem") == store_path.stem and entry.is_file():
                made = time.mktime(time.strptime(m.group("when"), "%Y%m%d-%H%M%S"))
                out.append(Backup(Path(entry.path), m.group("kind"), made, entry.stat().st_size))
    return sorted(out, key=lambda b: (b.made_at, b.path.name), reverse=True)


def make(store_path: Path, kind: str = "manual", progress=None) -> Backup:
    """A consistent copy of the store, made while it stays in use; then the oldest of its kind pruned."""
    from sessionscope.safety.privacy import private_dir
    if not store_path.is_file():
        raise InvalidInput(f"no store at {store_path}")
    folder = folder_of(store_path)
    private_dir(folder)
    target = folder / f"{store_path.stem}-{time.strftime('%Y%m%d-%H%M%S')}-{kind}.db"
    while target.exists():  # two of a kind in one second: the second takes the next second's name
        time.sleep(1.0 - time.time() % 1.0)
        target = folder / f"{store_path.stem}-{time.strftime('%Y%m%d-%H%M%S')}-{kind}.db"
    _clear_partials(folder)
    partial = target.with_name(f".{target.name}.part")
    fd = os.open(partial, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)  # the store's privacy, from the start
    os.close(fd)
    try:
        _copy(store_path, partial, progress)
        os.replace(partial, target)
    except BaseException:
        for leftover in (partial, partial.with_name(partial.name + "-journal"), partial.with_name(partial.name + "-wal")):
            leftover.unlink(missing_ok=True)  # (a full disk left SQLite's journal of the copy behind)
        raise
    prune(store_path)
    return next(b for b in backups(store_path) if b.path == target)


def _clear_partials(folder: Path) -> None:
    """Copies an earlier backup left half made (a crash, a full disk) and their journals: nothing else cleans them."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.startswith(".") and (entry.name.endswith((".part", ".part-journal", ".part-wal"))) \
                    and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _copy(source: Path, target: Path, progress=None) -> None:
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        def step(_status, remaining, total):
            if progress:
                progress(total - remaining, total, str(source))
        src.backup(dst, pages=4096, progress=step)  # 16 MB a step: writers get the store between steps
        dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
    finally:
        dst.close()
        src.close()


def prune(store_path: Path) -> list[Path]:
    """Remove the oldest backups past KEEP of their kind; returns what was removed."""
    removed, seen = [], {}
    for b in backups(store_path):
        kind = "migration" if b.kind.startswith("before-") and b.kind != "before-restore" else b.kind
        limit = KEEP_MIGRATION if kind == "migration" else KEEP.get(kind, 5)
        seen[kind] = seen.get(kind, 0) + 1
        if seen[kind] > limit:
            b.path.unlink(missing_ok=True)
            removed.append(b.path)
    return removed


def due(store_path: Path, now: float | None = None) -> bool:
    """Whether a scheduled backup is due (none made in the last SCHEDULE_S)."""
    latest = next((b for b in backups(store_path) if b.kind in ("scheduled", "manual")), None)
    return store_path.is_file() and (latest is None or (now or time.time()) - latest.made_at >= SCHEDULE_S)


def scheduled(url: str) -> Backup | None:
    """The day's backup of a SQLite store when one is due (None: not due, or not a SQLite store)."""
    try:
        path = store_file(url)
    except Refused:
        return None
    return make(path, "scheduled") if due(path) else None


def check(path: Path) -> None:
    """Refused unless `path` is a sound SQLite store (SQLite's integrity check, and our tables)."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            payloads.register_sql(con)  # (what the schema's view and generated column call)
            result = con.execute("PRAGMA integrity_check").fetchall()
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise Refused(f"{path} is not a store Sessionscope can read: {exc}") from None
    if result != [("ok",)]:
        raise Refused(f"{path} is damaged ({'; '.join(r[0] for r in result[:3])}): not restored")
    if not {"session", "event", "alembic_version"} <= tables:
        raise Refused(f"{path} is not a Sessionscope store")


def restore(store_path: Path, backup_path: Path) -> Backup | None:
    """Put a backup in place of the store: checked first; the store as it is now is kept as a
    `before-restore` backup (None when there was no store). Open stores see the restored data next read."""
    backup_path = Path(backup_path)
    check(backup_path)
    kept = make(store_path, "before-restore") if store_path.is_file() else None
    if not store_path.exists():
        from sessionscope.safety.privacy import prepare
        prepare(f"sqlite:///{store_path}")
    src = sqlite3.connect(f"file:{backup_path}?mode=ro", uri=True)
    dst = sqlite3.connect(store_path, timeout=30)
    try:
        src.backup(dst)  # page by page under SQLite's locks: a reader never sees half of it
    finally:
        dst.close()
        src.close()
    return kept
