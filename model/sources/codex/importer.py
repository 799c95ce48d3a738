"""Codex CLI: find rollouts (`$CODEX_HOME` or ~/.codex: sessions/ and archived_sessions/), import them
incrementally (a rescan reads only the bytes appended), every batch committed with the file's offset."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import orjson
import sqlalchemy as sa

from sessionscope.sources import jsonl
from sessionscope.sources.codex.lines import NS, CodexFile, convert, event_id, sniff, spawned_by_thread
from sessionscope.sources.scan import ImportReport, importer, resume_state, save_state, unchanged
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import EVENT, SESSION, SOURCE

KIND = "codex"
Progress = Callable[[int, int, str], None]


def default_roots() -> list[Path]:
    """Where Codex keeps rollouts: $CODEX_HOME (default ~/.codex) sessions/ and archived_sessions/."""
    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
    return [d for d in (home / "sessions", home / "archived_sessions") if d.is_dir()]


def kind_for(path: Path) -> str:
    """A rollout under TRAE CLI's folder (`~/.trae/cli/`) is TraeX's, Codex's fork (sessionscope.sources.traex)."""
    parts = [p.lower() for p in path.parts]
    return "traex" if any(a == ".trae" and b == "cli" for a, b in zip(parts, parts[1:])) else KIND


def is_rollout(path: Path) -> bool:
    """Whether a file's first JSON line is a Codex rollout line."""
    try:
        with jsonl.open_binary(path) as fh:  # a regular file only
            while raw := fh.readline(jsonl.MAX_LINE_BYTES):
                if raw.strip():
                    return sniff(orjson.loads(raw))
    except (OSError, ValueError):  # unreadable, not JSON, or a damaged zstandard frame
        return False
    return False


def session_files(root: Path) -> list[Path]:
    """Every rollout under root, oldest first (a fork's parent before the fork)."""
    found = [Path(d) / n for d, _dirs, files in os.walk(root) for n in files
             if n.endswith((".jsonl", ".jsonl.zst")) and is_rollout(Path(d) / n)]
    found.sort(key=lambda p: (p.stat().st_mtime, str(p)))
    return found



def stands_alone(path: Path) -> bool:
    """Whether a rollout may be read before older ones (scan.import_order): it starts a thread of its own, neither
    a fork (`forked_from_id`: read before its parent, the line it forked at is not known yet and its
    forked_from_event stays empty) nor a subagent's thread (a run in its parent's session)."""
    try:
        with jsonl.open_binary(path) as fh:
            first = orjson.loads(fh.readline(jsonl.MAX_LINE_BYTES))
    except (OSError, ValueError):
        return False
    meta = first.get("payload") if isinstance(first, dict) and first.get("type") == "session_meta" else None
    return isinstance(meta, dict) and not meta.get("forked_from_id") and spawned_by_thread(meta) is None


def _resume_context(store, path: Path, ctx: CodexFile, key: str) -> None:
    """On a rescan: the file's session (its first line's event), the line to hang under, the token total."""
    with jsonl.open_binary(path) as fh:
        line = jsonl.parse_line(fh.readline(jsonl.MAX_LINE_BYTES), 1, 0, jsonl.ReadState())  # its text as the scan stored it
    with store.reader() as conn:
        sid = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == event_id(line.raw))).scalar() \
            if line is not None else None
        if sid is None:  # no session_meta first (a damaged one): the session the scan named after the file
            sid = conn.execute(sa.select(SESSION.c.id).where(SESSION.c.id == str(uuid.uuid5(NS, key)))).scalar()
        if sid is None:
            return
        ctx.session_id = sid
        ctx.agent_id = _subagent_of(line.obj if line is not None else None, sid)
        mine = EVENT.c.agent_id == ctx.agent_id if ctx.agent_id else EVENT.c.sidechain.is_(False)  # this file's run
        ctx.last = conn.execute(sa.select(EVENT.c.id).where(EVENT.c.session_id == sid, ~EVENT.c.kind.startswith("fact."),
                                                            mine).order_by(EVENT.c.seq.desc()).limit(1)).scalar()
        for payload in conn.execute(sa.select(EVENT.c.payload).where(
                EVENT.c.session_id == sid, EVENT.c.kind == "meta", EVENT.c.payload.like('%"token_count"%'), mine)
                .order_by(EVENT.c.seq.desc()).limit(1)).scalars():
            total = (((orjson.loads(payload).get("payload") or {}).get("info") or {}).get("total_token_usage") or {})
            ctx.totals = (int(total.get("input_tokens") or 0), int(total.get("output_tokens") or 0))
            ctx.cumulative = True
        ctx.titled = bool(conn.execute(sa.select(SESSION.c.title).where(SESSION.c.id == sid)).scalar())
        # facts that did not change are not extracted again (a scan in two halves equals one whole scan):
        # the last value the file set for each key, whatever the head is yet
        for payload in conn.execute(sa.select(EVENT.c.payload).where(
                EVENT.c.session_id == sid, EVENT.c.kind == "fact.set").order_by(EVENT.c.seq)).scalars():
            fact = orjson.loads(payload)
            ctx.facts[fact["key"]] = fact["value"]


def _subagent_of(first: object, session_id: str) -> str | None:
    """A subagent's own thread id, when the file's first line says it is one spawned by `session_id`."""
    p = first.get("payload") if isinstance(first, dict) and first.get("type") == "session_meta" else None
    if isinstance(p, dict) and spawned_by_thread(p) == session_id and isinstance(p.get("id"), str):
        return p["id"]
    return None


def _import_file(store, root: Path, path: Path, source_id: int, known, report: ImportReport,
                 cancel: threading.Event | None) -> None:
    try:
        st = path.stat()
    except OSError as exc:
        report.problems.append({"path": str(path), "line": None, "offset": None, "problem": str(exc)})
        return
    if jsonl.compressed(path):
        # compressed once, when Codex archives it: read whole, and again only if it is replaced
        if known is not None and (known.size, known.mtime, known.inode) == (st.st_size, st.st_mtime, st.st_ino):
            return
        state = jsonl.ReadState()
    elif unchanged(known, st):
        return
    else:
        state = resume_state(known, st)
    ctx = CodexFile(session_id=None, source_id=source_id)
    ctx.last_ts = state.last_ts
    try:
        key = str(path.relative_to(root))
    except ValueError:
        key = str(path)
    if state.offset:
        _resume_context(store, path, ctx, key)
    report.files_read += 1
    old_bad, first_new_problem = state.bad_lines, len(state.problems)
    try:
        for batch in jsonl.read_lines(path, state):
            for line in batch:
                jsonl.converted(convert, line, state, ctx, key)
            added = store.write(_commit, ctx, path, source_id, st, state)
            report.events_added += added
            if ctx.info is not None:
                report.sessions.add(ctx.info.id)
                ctx.info.fields, ctx.info.meta = {}, {}
            ctx.events = []
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
        if state.bytes_read == 0 or ctx.info is None:
            store.write(save_state, path, source_id, st, state)
        if jsonl.compressed(path) and not report.cancelled:
            expected = jsonl.decompressed_size(path)
            if expected is not None and state.offset < expected:
                report.problems.append({"path": str(path), "line": None, "offset": state.offset, "problem":
                                        f"the compressed file ends early: {state.offset:,} of {expected:,} bytes "
                                        "(the lines before are kept)"})
    except (OSError, ValueError) as exc:  # ValueError: zstandard's, for a damaged or truncated frame
        report.problems.append({"path": str(path), "line": None, "offset": state.offset,
                                "problem": f"{exc} (the lines before it are kept)"})
    report.bytes_read += state.bytes_read
    report.bad_lines += state.bad_lines - old_bad
    for p in state.problems[first_new_problem:]:
        report.problems.append({"path": str(path), **p})


def _fork_point(conn, session_id: str, origin: str) -> None:
    """A fork's own lines hang under the last line it copied from its parent: that is where it forked."""
    if conn.execute(sa.select(SESSION.c.forked_from_event).where(SESSION.c.id == session_id)).scalar():
        return
    parent = EVENT.alias("parent")
    at = conn.execute(sa.select(EVENT.c.parent_id).join(parent, parent.c.id == EVENT.c.parent_id).where(
        EVENT.c.session_id == session_id, parent.c.session_id == origin).order_by(EVENT.c.seq).limit(1)).scalar()
    if at:
        conn.execute(SESSION.update().where(SESSION.c.id == session_id).values(forked_from_event=at))


def _commit(conn, ctx: CodexFile, path: Path, source_id: int, st, state) -> int:
    problems: list[str] = []
    state.last_ts = ctx.last_ts
    added = ingest(conn, ctx.info, list(ctx.events), problems) if ctx.info is not None else 0
    if ctx.info is not None and ctx.info.forked_from_session:
        _fork_point(conn, ctx.info.id, ctx.info.forked_from_session)
    for msg in problems:
        state.problem(0, state.offset, msg, bad=False)
    save_state(conn, path, source_id, st, state)
    return added


_import_rollouts = importer(KIND, session_files, _import_file, "Codex rollouts", stands_alone)

INDEX = "session_index.jsonl"  # CODEX_HOME's append-only {id, thread_name, updated_at}: the newest entry wins
INDEX_MAX_BYTES = 64 << 20
_index_seen: dict[tuple[str, Path], tuple[int, float]] = {}  # (store, index) → (size, mtime) applied here


def import_paths(store, paths, *, progress=None, cancel=None, warm: bool = True, only=None) -> ImportReport:
    """Import Codex rollouts (each folder or file a source location), then the thread names Codex keeps in
    its session index: the title a user gave a thread in Codex (or Codex gave it) names the session."""
    report = _import_rollouts(store, paths, progress=progress, cancel=cancel, warm=warm, only=only)
    if not report.cancelled:
        for index in {h / INDEX for p in map(Path, paths) for h in _codex_homes(p)}:
            try:
                thread_names(store, index)
            except OSError as exc:
                report.problems.append({"path": str(index), "line": None, "offset": None, "problem": str(exc)})
    return report


def _codex_homes(path: Path) -> list[Path]:
    """The CODEX_HOME a rollout path lies in (the folder holding its sessions/ or archived_sessions/)."""
    return [q.parent for q in (path, *list(path.parents)[:5]) if q.name in ("sessions", "archived_sessions")
            and (q.parent / INDEX).is_file()]


def read_index(index: Path) -> dict[str, tuple[str, str]]:
    """{thread id: (name, updated_at)} from a session index, the newest entry of each id; a line that is not
    an entry is skipped (the file is Codex's, appended while it runs)."""
    names: dict[str, tuple[str, str]] = {}
    with jsonl.open_binary(index) as fh:
        read = 0
        while (raw := fh.readline(jsonl.MAX_LINE_BYTES)) and read < INDEX_MAX_BYTES:
            read += len(raw)
            try:
                row = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(row, dict):
                continue
            tid, name, at = row.get("id"), row.get("thread_name"), str(row.get("updated_at") or "")
            if isinstance(tid, str) and isinstance(name, str) and name.strip() and at >= names.get(tid, ("", ""))[1]:
                names[tid] = (" ".join(name.split())[:200], at)
    return names


def thread_names(store, index: Path) -> int:
    """Name the Codex sessions the index names, where its entry is newer than the name last taken from it (a
    user's rename here stands until Codex names the thread again); returns how many were renamed."""
    import json

    st = index.stat()
    if _index_seen.get((store.url, index)) == (st.st_size, st.st_mtime):
        return 0
    names = read_index(index)

    def apply(conn) -> int:
        renamed = 0
        rows = conn.execute(sa.select(SESSION.c.id, SESSION.c.tool_id, SESSION.c.title, SESSION.c.meta)
                            .join(SOURCE, SOURCE.c.id == SESSION.c.source_id)
                            .where(SOURCE.c.kind == KIND, SESSION.c.tool_id.in_(list(names)[:30_000]))).all() \
            if names else []
        for sid, tid, title, meta_text in rows:
            name, at = names[tid]
            meta = json.loads(meta_text or "{}")
            if at <= meta.get("thread_name_at", "") or (title == name and meta.get("thread_name_at")):
                continue
            meta.update(title_rank=max(meta.get("title_rank", 0), 4), title_source="thread_name", thread_name_at=at)
            conn.execute(SESSION.update().where(SESSION.c.id == sid).values(title=name, meta=json.dumps(meta)))
            renamed += 1
        return renamed
    renamed = store.write(apply)
    _index_seen[(store.url, index)] = (st.st_size, st.st_mtime)
    return renamed
