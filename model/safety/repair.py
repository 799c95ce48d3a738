"""Rebuilding a sound store from a damaged one (`sessionscope repair`).

A new store is made at today's schema; every row of the damaged file that can still be read is copied into it,
table by table in rowid order, stepping over the pages that cannot be read (a row whose text is no longer UTF-8
keeps its readable characters, the rest shown as U+FFFD); the search index is built anew; then the tools'
files still on disk are imported again, which brings back the events the damage took from sessions whose
files are there: a session whose chain the damage broke is read again whole from its files, and events whose
session row was lost go. The damaged file is kept beside the new one, never deleted, and the report says exactly
what could not be saved: rows lost per table, and the sessions whose hash chains are still broken (those no file
on disk can give back).
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from sessionscope.safety.backup import store_file
from sessionscope.store import db, payloads

SKIP = ("alembic_version", "source_file", "outline_cache", "usage_cache", "tool_cache",
        "vitals_cache", "file_touch", "commit_link")  # remade, not copied: a re-import
# of every file reads it whole (source_file is how far each was read), the caches are derived
PROBE = 2_000  # rowids tried one by one past a page that cannot be read before the table is given up


@dataclass
class RepairReport:
    store: str
    kept_damaged: str  # where the damaged file now lies
    copied: dict[str, int] = field(default_factory=dict)  # table → rows copied
    lost: dict[str, int] = field(default_factory=dict)  # table → rows that could not be read (at least)
    replaced_text: int = 0  # rows kept with text that was not UTF-8 (bad bytes shown as U+FFFD)
    events_reimported: int = 0
    broken_sessions: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _tables(con: sqlite3.Connection) -> list[str]:
    return [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                                      "AND name NOT LIKE 'event_fts%' AND name NOT LIKE 'search_term%' ORDER BY rowid")]


# a column of today's schema, by (table, name), and its name in a store made before it was renamed
# (0028, 0029: `event.text` and `event.payload` are generated from what is kept)
_RENAMED = {("event", "text_kept"): "text", ("event", "payload_kept"): "payload"}


def _columns(con: sqlite3.Connection, table: str) -> list[str]:
    """The table's stored columns (PRAGMA table_info leaves out generated ones, which are not written)."""
    return [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]


def _readable_rows(src: sqlite3.Connection, table: str, cols: list[str], report: RepairReport):
    """Batches of the table's readable rows, in rowid order; counts what it had to step over."""
    names = ", ".join(f'"{c}"' for c in cols)
    select = f'SELECT rowid, {names} FROM "{table}"'
    last = 0
    while True:
        try:
            batch = src.execute(f"{select} WHERE rowid > ? ORDER BY rowid LIMIT 500", (last,)).fetchall()
        except sqlite3.DatabaseError:
            batch = None
        if batch:
            yield [row[1:] for row in batch]
            last = batch[-1][0]
            continue
        if batch == []:
            return
        # a page that cannot be read: the rows after it, one rowid at a time, until one reads again
        found = False
        for rowid in range(last + 1, last + 1 + PROBE):
            try:
                row = src.execute(f"{select} WHERE rowid = ?", (rowid,)).fetchone()
            except sqlite3.DatabaseError:
                report.lost[table] = report.lost.get(table, 0) + 1
                continue
            if row is not None:
                yield [row[1:]]
                last, found = rowid, True
                break
        if not found:
            report.lost[table] = report.lost.get(table, 0) + 1  # and whatever lay past the probe
            return


def repair(location: str, *, progress=None) -> RepairReport:
    """Rebuild the SQLite store at `location` (a URL or path) as described above; returns what was done."""
    from sessionscope import open_store
    from sessionscope.recall.search import index_range
    started = time.monotonic()
    path = store_file(location if "://" in location else f"sqlite:///{Path(location).expanduser().absolute()}")
    if not path.is_file():
        raise FileNotFoundError(f"no store at {path}")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fresh = path.with_name(f".{path.stem}-repairing-{stamp}.db")
    new = open_store(fresh)
    new.close()
    report = RepairReport(store=str(path), kept_damaged=str(path.with_name(f"{path.name}.damaged-{stamp}")))
    src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    src.text_factory = db.replacing
    dst = sqlite3.connect(fresh)
    payloads.register_sql(dst)  # (writing an event compiles its generated `text`, which calls into Python: 0028)
    try:
        try:
            tables = [t for t in _tables(dst) if t not in SKIP]
        except sqlite3.DatabaseError:
            tables = []
        for n, table in enumerate(tables):
            if progress:
                progress(n, len(tables), table)
            try:
                theirs = set(_columns(src, table))
            except sqlite3.DatabaseError:
                report.lost[table] = report.lost.get(table, 0)
                continue
            cols = [c for c in _columns(dst, table) if c in theirs or _RENAMED.get((table, c)) in theirs]
            if not cols:
                continue
            names = ", ".join(f'"{c}"' for c in cols)
            insert = f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({", ".join("?" * len(cols))})'
            read = [c if c in theirs else _RENAMED[(table, c)] for c in cols]
            for batch in _readable_rows(src, table, read, report):
                report.replaced_text += sum(1 for row in batch if any(isinstance(v, str) and "\ufffd" in v for v in row))
                dst.executemany(insert, batch)
                report.copied[table] = report.copied.get(table, 0) + len(batch)
            dst.commit()
    finally:
        src.close()
        dst.close()
    new = open_store(fresh)
    try:
        # a session whose chain the damage broke, read from a tool's files still on disk, is read again whole from
        # them (its events dropped, its row kept: title, tags, stars and notes stay); events left without their
        # session's row go (their files, if any, bring them back with it)
        new.write(_drop_rebuildable, [r.session_id for r in new.verify() if not r.ok])
        with new.reader() as conn:
            first, last = conn.exec_driver_sql("SELECT min(pk), max(pk) FROM event").one()
        if first is not None:
            new.write(index_range, first, last)  # the search index, built anew from the rows kept
        report.events_reimported = _reimport(new)
        report.broken_sessions = [r.session_id for r in new.verify() if not r.ok]
    finally:
        new.close()
    for suffix in ("", "-wal", "-shm"):  # the damaged file (and its journal) kept beside, never deleted
        old = path.with_name(path.name + suffix)
        if old.exists():
            os.replace(old, report.kept_damaged + suffix)
    os.replace(fresh, path)
    report.seconds = time.monotonic() - started
    return report


def _drop_rebuildable(conn, broken: list[str]) -> None:
    """The events of the broken sessions that a tool's files on disk can give back, and the events whose session
    row was lost, dropped before the re-import (see `repair`)."""
    raw = conn.connection.driver_connection
    rebuild = []
    for i in range(0, len(broken), 500):
        chunk = broken[i:i + 500]
        rows = raw.execute(f"SELECT s.id, src.kind, src.location FROM session s LEFT JOIN source src "
                           f"ON src.id = s.source_id WHERE s.id IN ({', '.join('?' * len(chunk))})", chunk).fetchall()
        rebuild += [sid for sid, kind, location in rows if kind not in (None, "native") and location
                    and "://" not in location and Path(location).exists()]
    orphans = [sid for (sid,) in raw.execute(
        "SELECT DISTINCT session_id FROM event WHERE session_id NOT IN (SELECT id FROM session)")]
    for sid in rebuild + orphans:
        for sql in ("DELETE FROM fact_snapshot WHERE event_id IN (SELECT id FROM event WHERE session_id = ?)",
                    "DELETE FROM embedding WHERE session_id = ?", "DELETE FROM event_alias WHERE session_id = ?",
                    "DELETE FROM event WHERE session_id = ?"):
            raw.execute(sql, (sid,))
        raw.execute("UPDATE session SET last_seq = 0, last_hash = '', head_event_id = NULL, event_count = 0, "
                    "tokens_in = 0, tokens_out = 0 WHERE id = ?", (sid,))


def _reimport(store) -> int:
    """Import again every file source the store knew, and the tools' default places: events the damage took
    come back from the files that are still there (the rest are known already: nothing doubles)."""
    from sessionscope.sources import importing
    places = [Path(p) for p in store.source_locations() if p and "://" not in p and Path(p).exists()]
    places += [p for p in importing.default_roots() if p not in places]
    if not places:
        return 0
    return importing.import_paths(store, places).events_added
