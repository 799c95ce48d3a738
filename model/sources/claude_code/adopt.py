"""A fork Sessionscope wrote, recorded in the store without reading it back.

The file was written a moment ago from lines the store holds. Its copies of the
origin's lines are kept as references to the events they copy (`event_alias`:
the shared prefix is referenced, not copied), the lines of its own (a tool call
closed as interrupted, its title) are imported as any line is, and the file is
recorded as read to its end under the source whose scans find it, so no scan
reads it again. What Claude Code appends when the fork is resumed is imported
as usual; a line under a copy hangs under the event it copies (sessionscope.store.ingest),
and `restore` writes the copies out again from the events (fork.copies_of).

A store that meets the same file in a scan instead (a new store, another
machine) imports it like any transcript, copies and all.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import sqlalchemy as sa

from sessionscope.history import lifecycle, sessions
from sessionscope.sources import jsonl
from sessionscope.sources.claude_code.fork import ForkPlan
from sessionscope.sources.claude_code.importer import KIND, default_roots, ingest_converted
from sessionscope.sources.claude_code.lines import convert
from sessionscope.sources.claude_code.places import projects_dir
from sessionscope.sources.claude_code.reader import file_context
from sessionscope.sources.scan import save_state, source_row
from sessionscope.store.api import Store
from sessionscope.store.schema import EVENT_ALIAS, SOURCE

_KEPT_META = ("cli_version", "entrypoint")  # what the copies would have told the session about itself


def _location(conn, path: Path) -> Path:
    """Where scans find the file: the deepest Claude Code source folder that holds it, else the projects
    folder it lies in (the source the app's first scan creates), else the file itself."""
    holders = [Path(loc) for loc in conn.execute(sa.select(SOURCE.c.location).where(SOURCE.c.kind == KIND)).scalars()
               if Path(loc) == path or Path(loc) in path.parents]
    if holders:
        return max(holders, key=lambda p: len(p.parts))
    if path.parent.parent in set(default_roots()) | {projects_dir()}:
        return path.parent.parent
    return path


def _insert_aliases(conn, plan: ForkPlan) -> None:
    rows = [(copy, event_id, plan.session_id, i) for i, (copy, event_id) in enumerate(plan.copies)]
    if conn.dialect.name == "sqlite":  # the driver's executemany: SQLAlchemy's handling of 10,000 rows costs more
        conn.exec_driver_sql("INSERT INTO event_alias (id, event_id, session_id, position) VALUES (?, ?, ?, ?)", rows)
    else:
        conn.execute(EVENT_ALIAS.insert(), [dict(zip(("id", "event_id", "session_id", "position"), r)) for r in rows])


def adopt(store: Store, path: Path, plan: ForkPlan, origin_id: str) -> set[str]:
    """Record the fork `plan` written to `path`; returns the sessions it changed."""
    st = path.stat()
    origin = store.session(origin_id)
    own = plan.lines[len(plan.copies):]

    def work(conn) -> set[str]:
        location = _location(conn, path)
        source_id = source_row(conn, KIND, location)
        sessions.create_session(
            conn, session_id=plan.session_id, source_id=source_id, tool_id=plan.session_id, status=lifecycle.IDLE,
            created_at=origin.created_at, cwd=origin.cwd, project=origin.project, git_branch=origin.git_branch,
            model=origin.model, meta={k: origin.meta[k] for k in _KEPT_META if k in origin.meta},
            forked_from_session=origin_id, forked_from_event=plan.ends_at, head_event_id=plan.ends_at)
        _insert_aliases(conn, plan)
        ctx = file_context(path, location if location != path else path.parent, source_id)
        state = jsonl.ReadState(offset=st.st_size, line_count=len(plan.lines))
        offset = sum(len(line) + 1 for line in plan.lines[:len(plan.copies)])
        for number, raw in enumerate(own, start=len(plan.copies) + 1):
            jsonl.converted(convert, jsonl.Line(offset, number, raw.decode(), orjson.loads(raw)), state, ctx)
            offset += len(raw) + 1
        problems: list[str] = []
        _, touched = ingest_converted(conn, ctx, problems)
        for msg in problems:
            state.problem(0, state.offset, msg, bad=False)
        state.last_ts = ctx.last_ts
        save_state(conn, path, source_id, st, state)
        return touched | {plan.session_id}

    return store.write(work)
