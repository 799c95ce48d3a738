"""Files a tool appends to, one session a file (Qwen Code's chats, Kimi's wire logs, Cursor's agent
transcripts, the Copilot CLI's events): read from where the last scan stopped, a line at a time.

A tool's package gives `convert(log, line)`, which turns one JSON line into events on the
`Log` (a documents.Transcript whose chain resumes at the last event stored for the file's
session): ids from the tool's own ids where it has them, else from the line's byte offset, so
reading a line again adds nothing. A line the converter does not understand is a bad line of
its file (said, with the line number); the lines around it are kept.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from sessionscope.sources import jsonl
from sessionscope.sources.documents import Transcript
from sessionscope.sources.scan import ImportReport, resume_state, save_state, unchanged
from sessionscope.store.incoming import SessionInfo
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import EVENT, SESSION


@dataclass
class Log(Transcript):
    """One appended file's session as a run reads it: `line` is the line being converted (its offset
    names the events of a line that has no ids of its own)."""

    line: jsonl.Line | None = None
    committed: bool = False  # some of its events are in the store (the session exists)

    def line_key(self, part: int | str = 0) -> str:
        """A key for the `part`th event of the current line (documents.Transcript.add's `key`)."""
        return f"@{self.line.offset if self.line else 0}:{part}"


Convert = Callable[[Log, jsonl.Line], None]


def read_appended(ns: uuid.UUID, convert: Convert, session_key: Callable[[Path], str],
                  tool_id: Callable[[Path], str | None] = lambda p: p.stem,
                  setup: Callable[[Log, Path], None] | None = None) -> Callable:
    """A `read_file` for sessionscope.sources.scan.run_import: the lines appended to `path` since the last
    scan, each through `convert`, stored as the session `session_key(path)`. `setup(log, path)` reads what
    the tool keeps beside the file (a title, a project folder) before the lines."""

    def read_file(store, _root: Path, path: Path, source_id: int, known, report: ImportReport, _cancel) -> None:
        st = path.stat()
        if unchanged(known, st):
            return
        state = resume_state(known, st)
        key = session_key(path)
        log = Log(ns, key, tool_id=tool_id(path), ts=st.st_mtime)
        if state.offset:  # the chain goes on from the last event stored for this file's session
            with store.reader() as conn:
                log.last = conn.execute(sa.select(EVENT.c.id).where(
                    EVENT.c.session_id == key, ~EVENT.c.kind.startswith("fact."), EVENT.c.sidechain.is_(False))
                    .order_by(EVENT.c.seq.desc()).limit(1)).scalar()
                log.fields["title"] = conn.execute(sa.select(SESSION.c.title).where(SESSION.c.id == key)).scalar() or ""
        titled = bool(log.fields.get("title"))
        if setup is not None:
            setup(log, path)
        report.files_read += 1
        old_bad, first_problem = state.bad_lines, len(state.problems)
        try:
            for batch in jsonl.read_lines(path, state):
                for line in batch:
                    log.line = line
                    try:
                        convert(log, line)
                    except (MemoryError, KeyboardInterrupt):
                        raise
                    except Exception as exc:  # noqa: BLE001 — this line's: said with its type, the rest read
                        state.problem(line.number, line.offset, f"not understood ({type(exc).__name__}: {exc})")
                    if log.events:
                        state.last_ts = max(state.last_ts, log.events[-1].ts)
                if titled and log.fields.get("title") and not log.meta.get("title_rank"):
                    log.fields.pop("title")  # the stored title stands unless the tool named the session
                report.events_added += store.write(_commit, log, path, source_id, st, state)
                if log.committed:
                    report.sessions.add(key)
            if state.bytes_read == 0 or not log.committed:
                store.write(save_state, path, source_id, st, state)
        except OSError as exc:
            report.problems.append({"path": str(path), "line": None, "offset": state.offset, "problem": str(exc)})
        report.bytes_read += state.bytes_read
        report.bad_lines += state.bad_lines - old_bad
        report.problems += [{"path": str(path), **p} for p in state.problems[first_problem:]]

    return read_file


def _commit(conn, log: Log, path: Path, source_id: int, st, state) -> int:
    added = 0
    if log.events:
        info = SessionInfo(id=log.key, source_id=source_id, tool_id=log.tool_id, fields=dict(log.fields),
                           meta={k: v for k, v in log.meta.items() if not k.startswith("_")})  # _: the run's own
        added = ingest(conn, info, list(log.events))
        log.committed = True
        log.events = []
    save_state(conn, path, source_id, st, state)
    return added
