"""Claude Code / Claude Agent SDK: find transcripts, import them incrementally.

`import_paths` is the long job behind `sessionscope import` and `scan`: it
reports progress through a callback, can be cancelled between batches, and
commits each batch together with the file's new offset, so a crash or a
cancel halfway leaves a store that the next run completes without duplicates.
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import orjson
import sqlalchemy as sa

from sessionscope.sources import jsonl
from sessionscope.sources.claude_code import checkpoints as claude_checkpoints
from sessionscope.sources.claude_code import reader
from sessionscope.sources.claude_code.lines import TITLE_RANK, FileContext
from sessionscope.sources.scan import (  # noqa: F401 (re-exported)
    ImportReport,
    SharedCommits,
    as_file_problem,
    file_problems,
    files_under,
    resume_state,
    save_state,
    source_id_of,
    source_row,
    store_failure,
    unchanged,
)
from sessionscope.store.api import Store
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import EVENT, SESSION, SOURCE_FILE

KIND = "claude_code"

Progress = Callable[[int, int, str], None]  # (bytes done, bytes total, current file)


def default_roots() -> list[Path]:
    """Where Claude Code keeps transcripts: $CLAUDE_CONFIG_DIR (comma-separated), ~/.claude, ~/.config/claude."""
    roots: list[Path] = []
    env = os.environ.get("CLAUDE_CONFIG_DIR", "")
    for part in re.split(r"[,:]", env) if env else []:
        if part.strip():
            roots.append(Path(part.strip()).expanduser() / "projects")
    home = Path.home()
    roots += [home / ".claude" / "projects", home / ".config" / "claude" / "projects"]
    seen, out = set(), []
    for r in roots:
        key = str(r.resolve()) if r.exists() else str(r)
        if key not in seen and r.is_dir():
            seen.add(key)
            out.append(r)
    return out


def session_files(root: Path) -> list[Path]:
    """Every transcript under root, oldest first (parents before the files that continue them)."""
    found = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".jsonl") and name != "journal.jsonl" and jsonl.is_regular(Path(dirpath) / name):
                found.append(Path(dirpath) / name)
    found.sort(key=lambda p: (p.stat().st_mtime, str(p)))
    return found


_PEEK_BYTES = 64 << 10


def stands_alone(path: Path) -> bool:
    """Whether a transcript may be read before older ones (scan.import_order): its first line is its own session's
    and starts it, neither a copy of another session's history (a resumed file repeats it under the older
    sessionId: read first, it would take those lines as its own), nor a fork's (`forkedFrom`: read before its
    origin, its copies would keep the fork's time instead of the origin's, ingest_converted's _copied_times),
    nor a line under a parent written elsewhere; a subagent's file waits for its session's."""
    if path.name.startswith("agent-") or not reader._UUID_RE.match(path.stem):
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(_PEEK_BYTES).split(b"\n", 1)
        first = orjson.loads(head[0]) if len(head) == 2 else None
    except (OSError, orjson.JSONDecodeError):
        return False
    return (isinstance(first, dict) and first.get("sessionId") in (None, path.stem)
            and not first.get("parentUuid") and not first.get("logicalParentUuid") and not first.get("forkedFrom"))


def import_paths(store: Store, paths: Iterable[str | os.PathLike], *, progress: Progress | None = None,
                 cancel: threading.Event | None = None, warm: bool = True,
                 only: set[Path] | None = None, kind: str = KIND) -> ImportReport:
    """Import Claude Code transcripts from files or directories (each directory a source root; its source of `kind`:
    Claude Desktop's Cowork keeps the same transcripts, sessionscope.sources.claude_cowork).

    With `warm`, the sessions touched are made quick to open afterwards (Store.warm); the
    app's 2-second watcher skips that (it runs beside the UI, and a followed timeline walks
    its branch anyway)."""
    started = time.monotonic()
    report = ImportReport()
    plan: list[tuple[Path, list[Path], Path]] = []  # (root for relative names, files, source location)
    for p in paths:
        p = Path(p).expanduser().absolute()
        if p.is_dir():
            plan.append((p, files_under(p, only, session_files, stands_alone), p))
        elif p.is_file():
            plan.append((p.parent, [p], p))
        else:
            report.problems.append({"path": str(p), "line": None, "offset": None, "problem": "no such file or folder"})
    total = sum(_size(f) for _, files, _ in plan for f in files)
    done = 0
    summaries: list[tuple[str, str]] = []
    shared = SharedCommits(store, report)
    compress = store.engine.dialect.name == "sqlite"
    read_ahead: reader.Reader | None = None
    try:
        for n, (root, files, location) in enumerate(plan):
            source_id = source_id_of(store, kind, location)
            jobs = _plan_files(store, root, files, source_id, report)
            read_ahead = _read_ahead(read_ahead, [j for j in jobs if j], compress)
            if read_ahead is not None and n == len(plan) - 1:
                read_ahead.no_more()
            i = 0
            while i < len(files):
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    break
                job = jobs[i]
                if job is not None:
                    produced = read_ahead.batches(job) if read_ahead is not None and job.number else \
                        reader.batches(job)  # (not submitted: read here, as the first while the process starts)
                    try:
                        as_file_problem(report, job.path, lambda: _import_file(store, job, produced, report, summaries,
                                                                              shared, cancel), reraise=reader.ReaderGone)
                    except reader.ReaderGone:  # what it stored is kept; the rest is read here, from where it got
                        read_ahead.close()
                        read_ahead = None
                        shared.flush()
                        jobs[i:] = _plan_files(store, root, files[i:], source_id, report)
                        continue
                    report.files_read += 1
                    jobs[i] = None  # its events are stored (or held by the shared transaction)
                report.files_seen += 1
                done += job.st.st_size if job is not None else _size(files[i])
                if progress:
                    progress(done, total, str(files[i]))
                i += 1
            shared.flush()
            if report.cancelled:
                break
    finally:
        if read_ahead is not None:
            read_ahead.close()
    if summaries:
        store.write(_apply_summaries, summaries, report)
    return report.finish(store, started, warm=warm)


def _read_ahead(current: reader.Reader | None, jobs: list[reader.FileJob], compress: bool) -> reader.Reader | None:
    """The reader process that reads `jobs` ahead (started once this run has enough to read), or None: they
    are read here. A process started now is given the jobs after the first `reader.HERE_FIRST_BYTES`: those are
    read here while it starts (reader.HERE_FIRST_BYTES says why)."""
    if current is None and not reader.worth_a_process(sum(j.st.st_size - j.state.offset for j in jobs)):
        return None
    if current is None:
        current, first, here = reader.Reader(), 0, 0
        while first < len(jobs) and here < reader.HERE_FIRST_BYTES:
            here += jobs[first].st.st_size - jobs[first].state.offset
            first += 1
        jobs = jobs[first:]
    for job in jobs:
        job.compress, job.prepare_backups = compress, True
    try:
        current.submit(jobs)
    except reader.ReaderGone:
        current.close()
        return None
    return current


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _plan_files(store: Store, root: Path, files: list[Path], source_id: int,
                report: ImportReport) -> list[reader.FileJob | None]:
    """What to read of each file (None: nothing new, or it cannot be looked at: said), from the scan
    state the store holds now."""
    with store.reader() as conn:
        states = {r.path: r for r in conn.execute(sa.select(SOURCE_FILE).where(SOURCE_FILE.c.source_id == source_id))}
    jobs: list[reader.FileJob | None] = []
    for path in files:
        try:
            st = path.stat()
        except OSError as exc:
            report.problems.append({"path": str(path), "line": None, "offset": None, "problem": str(exc)})
            jobs.append(None)
            continue
        known = states.get(str(path))
        if unchanged(known, st):
            jobs.append(None)
            continue
        state = resume_state(known, st)
        ctx = reader.file_context(path, root, source_id)
        # a line without a timestamp takes the one before it; before any, the file's own time (when the tool
        # last wrote it), never 0: a transcript of no timestamps at all is not listed as written in 1970
        ctx.last_ts = state.last_ts or st.st_mtime
        if state.offset and ctx.file_session:
            _prefill_facts(store, ctx)
        jobs.append(reader.FileJob(path, st, state, ctx, source_id))
    return jobs


def _import_file(store: Store, job: reader.FileJob, produced, report: ImportReport, summaries: list,
                 shared: SharedCommits | None, cancel: threading.Event | None) -> None:
    """Store what `produced` (reader.batches of `job`, here or in the reader process) converts, a batch
    a transaction (small files: shared), each with the file's offset after it."""
    path, st = job.path, job.st
    if shared is not None and not shared.takes(job.state, st):
        shared.flush()  # what came before is stored before this file's first write
        shared = None
    old_bad, first_new_problem = job.state.bad_lines, len(job.state.problems)

    def said() -> None:  # the file's problems, once its lines are stored (storing them finds some)
        for p in job.state.problems[first_new_problem:]:
            report.problems.append({"path": str(path), **p})
    try:
        for _ in produced:
            if shared is not None:  # the whole file is one batch: committed with others
                shared.add(path, st.st_size, functools.partial(_commit_batch, ctx=job.ctx, path=path,
                                                                 source_id=job.source_id, st=st, state=job.state),
                           said, _batch_sessions(job.ctx))
                said = None
                break
            added, touched = store.write_beside(_batch_sessions(job.ctx), _commit_batch, job.ctx, path, job.source_id,
                                                  st, job.state)
            report.events_added += added
            report.sessions |= touched
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
        if said is not None and (job.state.bytes_read == 0 or not job.ctx.sessions):  # nothing stored: its offset
            if shared is not None:
                shared.add(path, st.st_size, functools.partial(save_state, path=path, source_id=job.source_id,
                                                               st=st, state=job.state), said, ())
                said = None
            else:
                store.write(save_state, path, job.source_id, st, job.state)
    except OSError as exc:
        report.problems.append({"path": str(path), "line": None, "offset": job.state.offset, "problem": str(exc)})
    report.bytes_read += job.state.bytes_read
    report.bad_lines += job.state.bad_lines - old_bad
    summaries.extend(job.ctx.summaries)
    if said is not None:
        said()


def _batch_sessions(ctx: FileContext) -> set[str]:
    """The sessions a batch writes (`_commit_batch`: their events, their checkpoints' backups), whose locks alone it
    holds on PostgreSQL: an import beside another member's, or the window's beside the command line's."""
    return set(ctx.sessions) | {sid for sid, _ in ctx.backups}


def _prefill_facts(store: Store, ctx: FileContext) -> None:
    """On a rescan, facts that did not change are not extracted again: the last value the session's
    lines set for each key (not its columns, which a line may set without a fact being extracted)."""
    facts = ctx.session(ctx.file_session).facts
    with store.reader() as conn:
        for payload in conn.execute(sa.select(EVENT.c.payload).where(
                EVENT.c.session_id == ctx.file_session, EVENT.c.kind == "fact.set",
                EVENT.c.role == "extracted").order_by(EVENT.c.seq)).scalars():
            fact = orjson.loads(payload)
            facts[fact["key"]] = fact["value"]


def _copied_times(conn, sess) -> None:
    """A fork's lines copy lines of its origin (`forkedFrom`), but fork_session stamps the last one with
    the time of the fork (Claude Code finds the leaf by it): shown at the time it was first written."""
    if not sess.copies:
        return
    origin = {sess.copies[e.id]: e for e in sess.events if e.id in sess.copies}
    for i in range(0, len(origin), 500):
        chunk = list(origin)[i:i + 500]
        for copied, ts in conn.execute(sa.select(EVENT.c.id, EVENT.c.ts).where(EVENT.c.id.in_(chunk))):
            origin[copied].ts = ts


def ingest_converted(conn, ctx: FileContext, problems: list[str]) -> tuple[int, set[str]]:
    """Store the events `convert` gathered in `ctx` (the caller's transaction); (added, sessions touched).
    Also what the Claude Agent SDK's session store adapter calls with the entries it is given."""
    added, touched = 0, set()
    for sid, sess in ctx.sessions.items():
        if _warmup_alone(sess) and conn.execute(sa.select(SESSION.c.id).where(SESSION.c.id == sid)).first() is None:
            continue  # Claude Code 2.0's "Warmup" stub of a session that left no transcript: no row of its own
        if sess.events or sess.info.fields or sess.info.meta:
            _copied_times(conn, sess)
            added += ingest(conn, sess.info, list(sess.events), problems)
            touched.add(sid)
    return added, touched


def _warmup_alone(sess) -> bool:
    """A run of subagent lines alone, prompted "Warmup": what Claude Code 2.0 wrote at start for each subagent, its
    `sessionId` naming the main session (FORMATS.md §1). Under that session it is kept; alone it is noise."""
    events = sess.events
    return bool(events) and all(e.sidechain for e in events) and any(
        e.kind == "message" and e.role == "user" and e.text.strip() == "Warmup" for e in events)


def _commit_batch(conn, ctx: FileContext, path: Path, source_id: int, st, state) -> tuple[int, set[str]]:
    """The batch's events and the file's new offset, in one transaction (safe to retry)."""
    problems: list[str] = []
    state.last_ts = ctx.last_ts
    added, touched = ingest_converted(conn, ctx, problems)
    for msg in problems:
        state.problem(0, state.offset, msg, bad=False)
    if ctx.backups:  # the checkpoints' backups, kept with the lines that name them
        claude_checkpoints.capture(conn, ctx.backups, claude_checkpoints.history_dirs(path), ctx.prepared)
    save_state(conn, path, source_id, st, state)
    return added, touched


def _apply_summaries(conn, summaries: list[tuple[str, str]], report: ImportReport) -> None:
    """A summary line names a leaf, often in another file: it titles that leaf's session."""
    for leaf, text in summaries:
        sid = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == leaf)).scalar()
        if sid is None:
            continue
        meta = json.loads(conn.execute(sa.select(SESSION.c.meta).where(SESSION.c.id == sid)).scalar() or "{}")
        if meta.get("title_rank", 0) <= TITLE_RANK["summary"]:
            meta.update(title_rank=TITLE_RANK["summary"], title_source="summary")
            conn.execute(SESSION.update().where(SESSION.c.id == sid).values(
                title=" ".join(text.split())[:200], meta=json.dumps(meta)))
            report.sessions.add(sid)
