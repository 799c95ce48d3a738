"""What every file source shares: the report of an import, each file's scan state, its source row.

A rescan reads only what was appended: each file's size, mtime, inode and the
byte offset reached are kept in `source_file`, committed with the events they
produced, so a crash or a cancel halfway leaves a store the next run completes.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from sessionscope.history.read_models import Action, Changes
from sessionscope.sources import jsonl
from sessionscope.store import db
from sessionscope.store.schema import SOURCE, SOURCE_FILE


@dataclass
class ImportReport:
    files_seen: int = 0
    files_read: int = 0
    bytes_read: int = 0
    events_added: int = 0
    bad_lines: int = 0
    sessions: set[str] = field(default_factory=set)
    problems: list[dict] = field(default_factory=list)  # {path, line, offset, problem}
    cancelled: bool = False
    seconds: float = 0.0

    def as_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["sessions"] = sorted(self.sessions)
        return d

    def shared(self, store) -> "SharedCommits":
        """The transaction the small files of this import share (stored by `flush_shared`, at the latest by
        `finish`). Kept beside the report's fields, not among them: it is no part of what an import says."""
        shared = self.__dict__.get("_shared")
        if shared is None:
            shared = self.__dict__["_shared"] = SharedCommits(store, self)
        return shared

    def flush_shared(self) -> None:
        shared = self.__dict__.pop("_shared", None)
        if shared is not None:
            shared.flush()

    def changes(self) -> Changes:
        return Changes(Action.IMPORT, session_ids=frozenset(self.sessions), session_list=bool(self.sessions),
                       detail=self.as_dict(),
                       recorded=True)

    def finish(self, store, started: float, *, bulk: bool = True, warm: bool = True, audit_if: bool | None = None,
               **detail) -> "ImportReport":
        """The end of every import: what its small files share stored, the big sessions it touched warmed, the
        planner's statistics after a bulk import, the time it took, and its audit entry (when it read anything or
        had problems), `detail` added."""
        from sessionscope.safety import audit
        self.flush_shared()
        if warm and not self.cancelled and self.events_added:
            store.warm(sorted(self.sessions))
        if bulk and not self.cancelled:
            db.after_bulk_import(store.engine, self.events_added)
        self.seconds = time.monotonic() - started
        if _RECORDED_BY_CALLER.get():
            pass  # the caller records the whole import (ops.import_paths)
        elif (self.files_read or self.problems) if audit_if is None else audit_if:
            entry = {k: v for k, v in self.as_dict().items() if k not in ("sessions", "problems")}
            audit.audited(store, Action.IMPORT, outcome="cancelled" if self.cancelled else "ok",
                          detail=entry | detail | {"problems": len(self.problems)})
        return self


_RECORDED_BY_CALLER: contextvars.ContextVar[bool] = contextvars.ContextVar("import_recorded_by_caller", default=False)


@contextlib.contextmanager
def recorded_by_caller() -> Iterator[None]:
    """Within it, an import's tools record no entry of their own: the caller (sessionscope.ops.import_paths)
    records the whole import once."""
    token = _RECORDED_BY_CALLER.set(True)
    try:
        yield
    finally:
        _RECORDED_BY_CALLER.reset(token)


def source_row(conn, kind: str, location: Path | str, enabled: bool = True) -> int:
    """The id of the source (kind, location), created on first use. A source that is not `enabled` is
    never rescanned (an SDK writing to the store directly: there is no file to read)."""
    from sessionscope.safety.team import own_sources
    loc = str(location)
    sid = conn.execute(sa.select(SOURCE.c.id).where(SOURCE.c.kind == kind, SOURCE.c.location == loc,
                                                    own_sources(conn))).scalar()
    if sid is None:
        sid = conn.execute(SOURCE.insert().values(kind=kind, location=loc, enabled=enabled,
                                                  added_at=time.time())).inserted_primary_key[0]
    return sid


def source_id_of(store, kind: str, location: Path | str) -> int:
    """`source_row` in a write of its own, beside other sessions' writers (another member's import)."""
    return store.write_beside([db.source_lock(kind, location)], source_row, kind, location)


def set_watched(conn, locations: list[str], watched: bool) -> list[str]:
    """Rescan the folders and files at `locations` again, or no more (their sessions stay either way); the
    locations changed. Only places on disk: an SDK's or an API's source keeps what it is."""
    from sessionscope.safety.team import own_sources
    q = sa.select(SOURCE.c.location).where(SOURCE.c.location.in_(locations), SOURCE.c.enabled.is_(not watched),
                                           SOURCE.c.kind != "native", ~SOURCE.c.location.contains("://"),
                                           own_sources(conn))
    changed = sorted(set(conn.execute(q).scalars()))
    if changed:
        conn.execute(SOURCE.update().where(SOURCE.c.location.in_(changed), SOURCE.c.kind != "native", own_sources(conn))
                     .values(enabled=watched))
    return changed


def save_state(conn, path: Path, source_id: int, st, state) -> None:
    values = dict(size=st.st_size, mtime=st.st_mtime, inode=st.st_ino, offset=state.offset,
                  line_count=state.line_count, bad_lines=state.bad_lines,
                  problems=json.dumps(state.problems), scanned_at=time.time(), last_ts=getattr(state, "last_ts", 0.0))
    db.upsert(conn, SOURCE_FILE, dict(source_id=source_id, path=str(path)), values)


def file_problems(store) -> list[dict]:
    """Files with bad lines or other problems, for showing to the user."""
    with store.reader() as conn:
        rows = conn.execute(sa.select(SOURCE_FILE).where(SOURCE_FILE.c.problems != "[]")
                            .order_by(SOURCE_FILE.c.path)).mappings().all()
    return [{"path": r["path"], "bad_lines": r["bad_lines"], "problems": json.loads(r["problems"])} for r in rows]


def unchanged(known, st) -> bool:
    """The file is as the last scan left it, read to its end: nothing to do."""
    return known is not None and known.size == st.st_size and known.mtime == st.st_mtime and \
        known.inode == st.st_ino and known.offset == st.st_size


def resume_state(known, st):
    """Where to read a file from: past what the last scan read, or from its start when it was
    replaced or truncated (or never read)."""
    from sessionscope.sources.jsonl import ReadState
    if known is None or known.inode != st.st_ino or st.st_size < known.offset:
        return ReadState()
    return ReadState(offset=known.offset, line_count=known.line_count, bad_lines=known.bad_lines,
                     problems=json.loads(known.problems), last_ts=known.last_ts or 0.0)


RECENT_FIRST = 24  # the newest files of a folder, read before the others (import_order)
BIG_BYTES = 4 << 20  # of those, the ones read after the rest


def import_order(files: list[Path], leads: Callable[[Path], bool] | None = None) -> list[Path]:
    """The order a folder's files are read in: the newest RECENT_FIRST that `leads` lets lead, newest first, the
    big ones (over BIG_BYTES) after the others (a 60 MB transcript read first would hold the rest back for
    seconds), so a first run lists the sessions the user worked in last within its first seconds; then the others
    oldest first, so a file that continues another (a resumed copy of its history, a fork) is read after it. A
    tool says which of its files stand alone (`leads`; without it all go oldest first); a line naming a parent
    stored later is linked by its id once the parent is stored, and a summary titles its leaf at the end of the
    run."""
    def stat(p: Path) -> tuple[float, int]:
        try:
            st = p.stat()
            return st.st_mtime, st.st_size
        except OSError:
            return 0.0, 0  # gone since it was listed: said when it is read
    stats = {p: stat(p) for p in files}
    oldest_first = sorted(files, key=lambda p: (stats[p][0], str(p)))
    if leads is None:  # a tool that does not say which of its files stand alone: all oldest first
        return oldest_first
    first: list[Path] = []
    for p in reversed(oldest_first):
        if len(first) >= RECENT_FIRST:
            break
        if leads(p):
            first.append(p)
    chosen = set(first)
    first.sort(key=lambda p: stats[p][1] > BIG_BYTES)  # (stable: newest first among the small, then the big)
    return first + [p for p in oldest_first if p not in chosen]


def files_under(folder: Path, files: set[Path], find, leads: Callable[[Path], bool] | None = None) -> list[Path]:
    """The session files of a folder in import_order: those a caller already picked out
    (sessionscope.sources.importing has recognised every file), else what `find` lists."""
    return import_order(find(folder) if files is None else [f for f in files if folder in f.parents], leads)


def read_one(read_file, store, root, path, source_id, state, report, cancel, *extra) -> None:
    """One file, which must not stop the others: a shape its reader did not foresee is said as a problem of
    that file (what was committed of it stays; the next scan resumes there) and the run goes on. The
    store's own failures (locked, full disk) and a cancel are not a file's: they stop the run."""
    as_file_problem(report, path, lambda: read_file(store, root, path, source_id, state, report, *extra, cancel)
                    if extra else read_file(store, root, path, source_id, state, report, cancel))


def store_failure(exc: BaseException) -> bool:
    """The store's own failure (locked, full disk, gone) or the user's interrupt: never one file's."""
    from sqlalchemy.exc import SQLAlchemyError

    from sessionscope.errors import Refused, SessionscopeError
    if isinstance(exc, Refused):  # a team store's rules refusing this file's session (another member's): this file's
        return False
    return isinstance(exc, (SQLAlchemyError, SessionscopeError, MemoryError, KeyboardInterrupt))


def as_file_problem(report, path, work, reraise: type[BaseException] | tuple = ()):
    """`work()`, where any failure but the store's (and `reraise`, the caller's to handle) is said as a
    problem of the file `path` (None then)."""
    try:
        return work()
    except reraise:
        raise
    except Exception as exc:  # noqa: BLE001 — any other: this file's, reported with its type
        if store_failure(exc):
            raise
        report.problems.append({"path": str(path), "line": None, "offset": None,
                                "problem": f"could not be read to the end ({type(exc).__name__}: {exc}); "
                                           "the rest of the import went on"})
        return None


class SharedCommits:
    """Small files read from their start share a transaction (up to SHARE_BYTES of them, or what
    SHARE_S gathers): every commit writes each page of the event indexes it dirtied again, and the
    uuid keys dirty a different page a row, so one commit for many small files writes far less than one
    each. Each file's offset is saved with its own events, in file order, so after a crash or a cancel
    the next scan goes on from the last file committed, as with a commit per file. When a file's events
    fail to store, each file of the batch is stored alone: that one is said, the others kept."""

    SHARE_BYTES = 4 << 20
    SHARE_S = 0.5  # the live list of a first import still moves twice a second
    FIRST_S = 0.1  # the first commit of an import: a first run lists sessions as soon as it can

    def __init__(self, store, report: ImportReport):
        self.store, self.report = store, report
        self.pending: list[tuple[Path, Callable, Callable[[], None], frozenset[str] | None]] = []
        self.size, self.since = 0, 0.0
        self.wait_s = self.FIRST_S

    def takes(self, state, st) -> bool:
        # (and is read as one batch: its lines are stored together, or none of them)
        return state.offset == 0 and st.st_size <= min(self.SHARE_BYTES, jsonl.CHUNK_BYTES)

    def add(self, path: Path, size: int, work: Callable, then: Callable[[], None],
            sessions: Collection[str] | None = None) -> None:
        """`work(conn)` stores the file's lines and offset; `then()` runs once it is committed (or failed).
        `sessions`: the sessions `work` writes, beside which it writes only its file's scan state (`save_state`):
        on PostgreSQL the batch then holds their locks alone, beside other sessions' writers (another member's
        import); None: the store's whole lock."""
        if not self.pending:
            self.since = time.monotonic()
        self.pending.append((path, work, then, None if sessions is None else frozenset(sessions)))
        self.size += size
        if self.size >= self.SHARE_BYTES or time.monotonic() - self.since >= self.wait_s:
            self.flush()

    def flush(self) -> None:
        pending, self.pending, self.size, self.wait_s = self.pending, [], 0, self.SHARE_S
        if not pending:
            return
        named = [s for *_, s in pending]
        held: set[str] = set() if None in named else {sid for s in named if s is not None for sid in s}
        try:
            results = self.store.write_beside(held, lambda conn: [work(conn) or (0, set()) for _, work, _, _ in pending])
        except Exception as exc:  # noqa: BLE001 — one file's: each is stored alone, and the one that fails said
            if store_failure(exc):
                raise
            results = [as_file_problem(self.report, path, lambda work=work, s=s: self.store.write_beside(s or [], work))
                       or (0, set()) for path, work, _, s in pending]
        for (added, touched), (_, _, then, _) in zip(results, pending):
            self.report.events_added += added
            self.report.sessions |= touched
            then()


def run_import(store, kind: str, paths, find, read_file, *, progress=None, cancel=None, warm: bool = True,
               only: set[Path] | None = None, leads: Callable[[Path], bool] | None = None) -> ImportReport:
    """The import loop of a file source: `find(folder)` lists a folder's session files (oldest first),
    `read_file(store, root, path, source_id, known_state, report, cancel)` imports one from where its
    last scan stopped, in import_order (`leads`: which files may be read before older ones). Each folder (or
    file) named is a source location; progress counts bytes."""
    started = time.monotonic()
    report = ImportReport()
    plan = []
    for p in paths:
        p = Path(p).expanduser().absolute()
        files = files_under(p, only, find, leads) if p.is_dir() else [p] if p.is_file() else None
        if files is None:
            report.problems.append({"path": str(p), "line": None, "offset": None, "problem": "no such file or folder"})
            continue
        plan.append((p, files))
    total, done = sum(f.stat().st_size for _, fs in plan for f in fs), 0
    for location, files in plan:
        source_id = source_id_of(store, kind, location)
        with store.reader() as conn:
            states = {r.path: r for r in conn.execute(sa.select(SOURCE_FILE).where(SOURCE_FILE.c.source_id == source_id))}
        root = location if location.is_dir() else location.parent
        for path in files:
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
            report.files_seen += 1
            read_one(read_file, store, root, path, source_id, states.get(str(path)), report, cancel)
            done += path.stat().st_size
            if progress:
                progress(done, total, str(path))
        report.flush_shared()  # (a folder's files stored before the next folder's, and before a cancel ends it)
        if report.cancelled:
            break
    return report.finish(store, started, warm=warm, source=kind)


def importer(kind: str, find, read_file, what: str, leads: Callable[[Path], bool] | None = None):
    """The `import_paths` of a file source: `run_import` with the tool's finder, reader and `leads`."""
    def import_paths(store, paths, *, progress=None, cancel=None, warm: bool = True,
                     only: set[Path] | None = None) -> ImportReport:
        return run_import(store, kind, paths, find, read_file, progress=progress, cancel=cancel, warm=warm,
                          only=only, leads=leads)
    import_paths.__doc__ = f"Import {what} (each folder or file a source location)."
    return import_paths
