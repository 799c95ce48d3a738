"""Showing the lines the Claude Agent SDK mirrored into the store (adapters.claude) as a session's events.

The SDK's `append` keeps its lines verbatim (`mirror_entry`, what `load` returns) and returns at once; the
events a person browses and searches are built from those rows behind it (#31: building them inside the
append made it 0.06× a plain JSONL append). Who builds them: the adapter's own worker, a moment after the
last append; after a crash, `catch_up` (the app's watcher, `scan`, the next adapter to open the store).

Each key's mark, the newest mirror row shown, is kept as scan state (`source_file` of the source
`claude-agent-sdk://<project>`: path `mirror:<session>[/<subpath>]`, offset = the row id) and moved in the
transaction that stores the events, so a row is shown once whoever shows it. A key's rows are always read
from its first (a `Reading` remembers how far), because what the importer learns from earlier lines (the
title's rank, the facts last extracted, the tokens counted per message) decides what later ones become:
the session equals a file import of the same lines.
"""

from __future__ import annotations

import re
import time

import sqlalchemy as sa

from sessionscope.safety import untrusted
from sessionscope.sources.scan import ImportReport
from sessionscope.store.db import sql
from sessionscope.store.schema import SOURCE, SOURCE_FILE

SDK = "claude"
LOCATION = "claude-agent-sdk://"  # + the SDK's project key: the source the mirrored sessions belong to
_AGENT = re.compile(r"(?:^|/)agent-([^/]+)$")
_KEY = "sdk = ? AND project_key = ? AND session_id = ? AND subpath = ?"

Key = tuple[str, str, str, str]  # (sdk, project_key, session_id, subpath)


def key_of(key: dict) -> Key:
    """The SDK's key (project_key, session_id, subpath) as the tuple the mirror is kept under."""
    return SDK, key["project_key"], key["session_id"], key.get("subpath") or ""


def mark_path(key: Key) -> str:
    """The key's scan-state path: not a file name (actions.session_file looks for `<id>.jsonl`)."""
    return f"mirror:{key[2]}/{key[3]}" if key[3] else f"mirror:{key[2]}"


class Reading:
    """What reading a key's rows so far taught the Claude Code importer (its FileContext) and `last_row`,
    the newest row read; `unfinished` while a transaction that read on has not been seen to commit."""

    def __init__(self, key: Key, source_id: int):
        from sessionscope.sources.claude_code.lines import FileContext
        _sdk, project, session, subpath = key
        agent = _AGENT.search(subpath)
        self.ctx = FileContext(file_key=f"{project}/{session}/{subpath}.jsonl" if subpath else f"{project}/{session}.jsonl",
                               file_session=session, agent_id=agent.group(1) if agent else (subpath or None),
                               source_id=source_id)
        self.source_id = source_id
        self.last_row = 0
        self.unfinished = False

    def forget_sent(self) -> None:
        """Drop what was handed to the store (events, this batch's tokens); keep what the next lines need."""
        for st in self.ctx.sessions.values():
            st.events.clear()
            st.info.meta.pop("usage_by_model", None)  # (added up by the store: sent once per line)
        self.ctx.summaries.clear()
        self.ctx.backups.clear()


def _mark(conn, source_id: int, key: Key) -> tuple[int, int]:
    """The key's mark (the newest row shown) and how many rows were shown."""
    found = sql(conn, 'SELECT "offset", line_count FROM source_file WHERE source_id = ? AND path = ?',
                (source_id, mark_path(key))).fetchone()
    return (found[0], found[1]) if found else (0, 0)


def show(conn, key: Key, readings: dict) -> int:
    """Build the events of the key's rows not shown yet, in the caller's write transaction, and move its
    mark; the events added. `readings` keeps each key's Reading between calls (a fresh dict reads whole)."""
    from sessionscope.sources.claude_code.importer import ingest_converted
    from sessionscope.sources.claude_code.lines import convert
    from sessionscope.sources.scan import source_row
    from sessionscope.store.db import upsert

    reading = readings.get(key)
    if reading is None or reading.unfinished:  # (a retried or failed transaction: read everything again)
        source = source_row(conn, "claude_code", LOCATION + key[1], enabled=False)
        reading = readings[key] = Reading(key, source)
    reading.unfinished = True
    mark, count = _mark(conn, reading.source_id, key)
    rows = sql(conn, f"SELECT id, entry FROM mirror_entry WHERE {_KEY} AND id > ? ORDER BY id",
               (*key, reading.last_row)).fetchall()
    shown = [r for r in rows if r[0] <= mark]  # shown by another process: read for what they teach only
    for row_id, raw in shown:
        convert(row_id, raw, untrusted.loaded(raw)[1], reading.ctx)
    reading.forget_sent()
    new = rows[len(shown):]
    added = 0
    if new:
        for row_id, raw in new:
            convert(row_id, raw, untrusted.loaded(raw)[1], reading.ctx)
        added, _touched = ingest_converted(conn, reading.ctx, [])
        reading.forget_sent()
        upsert(conn, SOURCE_FILE, dict(source_id=reading.source_id, path=mark_path(key)),
               dict(offset=new[-1][0], line_count=count + len(new), scanned_at=time.time(), size=0, mtime=0.0,
                    inode=0, bad_lines=0, problems="[]", last_ts=0.0))
    if rows:
        reading.last_row = rows[-1][0]
    return added


def committed(readings: dict, key: Key) -> None:
    """The transaction that ran `show` for `key` committed: what its Reading read is stored."""
    if (reading := readings.get(key)) is not None:
        reading.unfinished = False


_quiet: dict[str, int] = {}  # store url → the newest mirror row when every key was found shown


def catch_up(store, settle: float = 0.0) -> ImportReport:
    """Show the mirrored rows no event shows yet: an SDK process killed, or closed, before its worker
    showed its last appends. A key is shown only when its newest row is `settle` seconds old (an agent
    still running shows its own); nothing is read when no row was added since all were found shown."""
    report = ImportReport()
    url = str(store.url)
    with store.reader() as conn:
        top = sql(conn, "SELECT max(id) FROM mirror_entry WHERE sdk = ?", (SDK,)).fetchone()[0] or 0
        after = _quiet.get(url, 0)
        if top <= after:
            return report
        keys = sql(conn, "SELECT project_key, session_id, subpath, max(id), max(written) FROM mirror_entry "
                         "WHERE sdk = ? AND id > ? GROUP BY project_key, session_id, subpath", (SDK, after)).fetchall()
        marks = {(loc[len(LOCATION):], path): offset for loc, path, offset in conn.execute(
            sa.select(SOURCE.c.location, SOURCE_FILE.c.path, SOURCE_FILE.c.offset)
            .join(SOURCE, SOURCE.c.id == SOURCE_FILE.c.source_id)
            .where(SOURCE.c.kind == "claude_code", SOURCE.c.location.startswith(LOCATION))).all()}
    waiting = False
    for project, session, subpath, newest, written in keys:
        key = (SDK, project, session, subpath)
        if marks.get((project, mark_path(key)), 0) >= newest:
            continue
        if time.time() - written < settle:
            waiting = True
            continue
        readings: dict = {}
        try:
            report.events_added += store.write(show, key, readings)
        except Exception as exc:  # noqa: BLE001 - a locked or damaged store: said, never fatal to a scan
            report.problems.append({"path": f"{LOCATION}{project}/{mark_path(key)}", "line": None, "offset": None,
                                    "problem": f"the Claude Agent SDK's mirrored lines: {exc}"})
            waiting = True
            continue
        report.sessions.add(session)
        report.files_read += 1
    if not waiting:
        _quiet[url] = top
    return report
