"""LangGraph: a checkpointer database the user adds (SqliteSaver), read only (FORMATS.md §5).

A thread is a session. Every checkpoint is an event (`step`) under its parent
checkpoint, so `update_state` on an old checkpoint, or a fork, is a branch in the
tree. The messages a checkpoint added to the conversation come just before its
step, as the prompts, replies, tool calls and results they are; what the graph
paused on (an `interrupt`) and the answer it resumed with follow it. The state's
other keys are durable facts, set where they change, so the facts diff between
two checkpoints compares two graph states key by key.

A rescan decodes only threads with new checkpoints or writes (a mark per thread,
kept in the session's metadata); events are keyed by checkpoint, so reading a
thread again adds only what is new.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import orjson
import sqlalchemy as sa

from sessionscope.errors import MissingExtra
from sessionscope.sources import jsonl
from sessionscope.sources.langgraph import reader
from sessionscope.sources.langgraph.thread_events import (  # noqa: F401 (said here too: mirror, actions and the tests take them from here)
    INTERNAL_WRITES,
    NAME_KEYS,
    NS,
    _ThreadEvents,
    _where,
    _written,
    session_key,
    step_id,
)
from sessionscope.sources.scan import ImportReport, importer, save_state
from sessionscope.store.incoming import NewEvent, SessionInfo
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import SESSION

KIND = "langgraph"


def default_roots() -> list[Path]:
    return []  # a database is added by the user (File ▸ Import, `sessionscope import FILE.sqlite`)


def claims(path: Path) -> bool:
    return reader.claims(path)


def session_files(root: Path) -> list[Path]:
    return sorted(Path(d) / n for d, _dirs, names in os.walk(root) for n in names if claims(Path(d) / n))


def _name(place: reader.Place) -> str:
    """The project a database's threads are filed under: a file's name, a server database's."""
    if isinstance(place, str):
        from sessionscope.sources.server_databases import name
        return name(place)
    return place.stem


def _stored_marks(store, keys: list[str]) -> dict[str, str]:
    with store.reader() as conn:
        rows = conn.execute(sa.select(SESSION.c.id, SESSION.c.meta).where(SESSION.c.id.in_(keys))).all()
    out = {}
    for sid, meta in rows:
        try:
            out[sid] = (orjson.loads(meta or "{}") or {}).get("langgraph_mark", "")
        except orjson.JSONDecodeError:
            out[sid] = ""
    return out


def read_threads(store, path: reader.Place, state, only: str | None = None,
                 con=None) -> dict[str, tuple[_ThreadEvents, str]]:
    """Decode the threads of the database at `path` (a file, or a server database's address) that changed since
    they were last read (all of them, or `only` that one): {thread_id: (its events, its mark)}. Problems go to
    `state`. `con`: a connection to it already open (the caller closes it)."""
    by_thread: dict[str, tuple[_ThreadEvents, str]] = {}
    mine = con is None
    con = reader.connect(path) if mine else con
    try:
        marks = reader.thread_marks(con, only)
        stored = _stored_marks(store, [session_key(path, t) for t in marks])
        sv = reader.saver(con)
        for thread_id, mark in sorted(marks.items()):
            key = session_key(path, thread_id)
            if stored.get(key) == mark:
                continue  # nothing new in this thread since the last read
            thread = reader.read_thread(sv, con, thread_id)
            built = _ThreadEvents(key, path)
            problems, notes = list(thread.problems), []
            if thread.tuples:
                built.origin(sv, thread.tuples[0])
            for t in thread.tuples:
                try:
                    built.add(t, notes)
                except Exception as exc:  # noqa: BLE001 - one odd checkpoint never stops the thread
                    problems.append(f"checkpoint {t.config['configurable'].get('checkpoint_id')}: "
                                    f"{type(exc).__name__}: {exc}")
            for p in problems:
                state.problem(None, None, f"thread {thread_id}: {p}")
            for p in notes:
                state.problem(None, None, f"thread {thread_id}: {p}", bad=False)
            by_thread[thread_id] = (built, mark)
    finally:
        if mine:
            con.close()
    return by_thread


def commit_threads(conn, path: reader.Place, source_id: int, by_thread: dict[str, tuple[_ThreadEvents, str]],
                   project: str | None = None) -> int:
    """Store the decoded threads as sessions (the caller's write transaction); returns the events added.
    Their project is the database's name unless `project` says otherwise."""
    added = 0
    # a forked thread after the thread it came from (its first event hangs under that thread's)
    for thread_id, (built, mark) in sorted(by_thread.items(), key=lambda kv: kv[1][0].forked_from is not None):
        fields = {"title": built.named or built.title or f"thread {thread_id}",
                  "project": _name(path) if project is None else project, "model": built.model}
        info = SessionInfo(id=built.key, source_id=source_id, tool_id=thread_id, fields=fields,
                           meta={"database": _where(path) if isinstance(path, str) else str(path),
                                 "thread_id": thread_id, "langgraph_mark": mark,
                                 "title_rank": 3 if built.named else 1 if built.title else 0,
                                 "title_source": "thread_metadata" if built.named else "first_prompt"},
                           forked_from_session=built.forked_from[0] if built.forked_from else None,
                           forked_from_event=built.forked_from[1] if built.forked_from else None)
        added += ingest(conn, info, built.events)
    return added


def commit_mirror(conn, path: Path, source_id: int, mirror, events: list[NewEvent]) -> int:
    """Store what a thread mirror read since its last call (the caller's write transaction), with its mark,
    as an import of the file would store it; returns the events added."""
    built = mirror.built
    return commit_threads(conn, path, source_id, {mirror.thread_id: (_Read(built, events), mirror.mark)}, "")


class _Read:
    """A mirror's thread with only the events read by its last call (what commit_threads stores)."""

    def __init__(self, built: _ThreadEvents, events: list[NewEvent]):
        self.key, self.title, self.model, self.forked_from = built.key, built.title, built.model, built.forked_from
        self.named = built.named
        self.events = events


_quiet: dict[str, tuple[int, int]] = {}  # path → its tables' newest rowids when everything in it was shown
_stale_since: dict[tuple[str, str, str], float] = {}  # (path, thread, mark) → when first seen unshown


def catch_up(store, settle: float = 0.0) -> ImportReport:
    """Show what the store's own LangGraph checkpointer saved and no session shows yet: a graph process
    killed between a save and its showing leaves a checkpoint behind (on a PostgreSQL store, a save by another
    process is shown so too). A thread is read whole, only when its mark moved and has not moved for `settle`
    seconds (a graph still running shows its own saves); nothing is read when no row was added since everything
    was last found shown (two queries)."""
    from sessionscope.store.locations import sqlite_path
    from sessionscope.store.schema import SOURCE
    report = ImportReport()
    own: reader.Place | None = sqlite_path(store.url)
    if own is None:
        if store.engine.dialect.name != "postgresql":
            return report
        own = store.engine.url.render_as_string(hide_password=False)
    elif not own.exists():
        return report
    shown = _where(own) if isinstance(own, str) else str(own)
    with store.reader() as conn:
        ours = conn.execute(sa.select(SOURCE.c.id).where(
            SOURCE.c.kind == KIND, SOURCE.c.location == f"langgraph-saver://{shown}")).scalar()
    if ours is None:
        return report  # no checkpointer ever wrote into this store
    state = jsonl.ReadState()
    try:
        # (never `immutable` on SQLite: agents write it)
        con = reader.connect(own) if isinstance(own, str) else sqlite3.connect(f"file:{own}?mode=ro", uri=True)
        try:
            tops = _tops(con)
            if _quiet.get(shown) == tops:
                return report
            marks = reader.thread_marks(con)
        finally:
            con.close()
        stored = _stored_marks(store, [session_key(own, t) for t in marks])
        now = time.monotonic()
        stale = {(shown, t, m) for t, m in marks.items() if stored.get(session_key(own, t)) != m}
        for k in [k for k in _stale_since if k[0] == shown and k not in stale]:
            del _stale_since[k]
        waiting = False
        for _path, thread_id, mark in sorted(stale):
            if now - _stale_since.setdefault((_path, thread_id, mark), now) < settle:
                waiting = True
                continue
            by_thread = read_threads(store, own, state, only=thread_id)
            if by_thread:
                report.events_added += store.write(commit_threads, own, ours, by_thread, "")
                report.sessions |= {built.key for built, _ in by_thread.values()}
        if not waiting:
            _quiet[shown] = tops
    except Exception as exc:  # noqa: BLE001 - a locked or damaged table: said, never fatal to a scan
        report.problems.append({"path": shown, "line": None, "offset": None,
                                "problem": f"the LangGraph checkpointer's threads: {exc}"})
    report.problems += [{"path": shown, **p} for p in state.problems]
    return report


def _tops(con) -> tuple:
    """What moves whenever a checkpoint or a write is saved (asked every few seconds, so cheap): SQLite's newest
    rowids; on PostgreSQL the tables' counts of rows inserted and updated (the server's own statistics)."""
    if isinstance(con, sqlite3.Connection):
        return tuple(con.execute(f"SELECT max(rowid) FROM {t}").fetchone()[0] or 0 for t in ("checkpoints", "writes"))
    return tuple((r["relname"], r["n"]) for r in con.execute(
        "SELECT relname, n_tup_ins + n_tup_upd AS n FROM pg_stat_user_tables "
        "WHERE relname IN ('checkpoints', 'checkpoint_writes') ORDER BY relname"))


def _import_db(store, _root: Path, path: Path, source_id: int, known, report: ImportReport, _cancel) -> None:
    st = path.stat()
    report.files_read += 1
    state = jsonl.ReadState()
    try:
        by_thread = read_threads(store, path, state)
    except (reader.Unreadable, Exception) as exc:  # noqa: BLE001 - a locked, damaged or foreign database
        report.problems.append({"path": str(path), "line": None, "offset": None, "problem": f"cannot read: {exc}"})
        return
    state.offset = st.st_size
    report.bad_lines += state.bad_lines
    report.problems += [{"path": str(path), **p} for p in state.problems]

    def commit(conn) -> int:
        added = commit_threads(conn, path, source_id, by_thread)
        save_state(conn, path, source_id, st, state)
        return added
    report.events_added += store.write(commit)
    report.sessions |= {built.key for built, _ in by_thread.values()}


import_paths = importer(KIND, session_files, _import_db, "LangGraph checkpointer databases")


def claims_server(conn) -> bool:
    return reader.claims_server(conn)


def import_server(store, address: str, conn, report: ImportReport) -> None:
    """A PostgresSaver's database (sessionscope.sources.server_databases): its threads that changed since the last
    read, as a SqliteSaver file's are read."""
    from sessionscope.sources.scan import source_row
    from sessionscope.sources.server_databases import shown, stat
    where = shown(address)
    source_id = store.write(source_row, KIND, where)
    state = jsonl.ReadState()
    try:
        by_thread = read_threads(store, address, state, con=conn)
    except (reader.Unreadable, Exception) as exc:  # noqa: BLE001 - a table it cannot read, a dropped connection
        if isinstance(exc, MissingExtra):
            raise
        report.problems.append({"path": where, "line": None, "offset": None, "problem": f"cannot read: {exc}"})
        return
    report.files_read += 1
    report.bad_lines += state.bad_lines
    report.problems += [{"path": where, **p} for p in state.problems]

    def commit(c) -> int:
        added = commit_threads(c, address, source_id, by_thread)
        save_state(c, where, source_id, stat(), state)
        return added
    report.events_added += store.write(commit)
    report.sessions |= {built.key for built, _ in by_thread.values()}
