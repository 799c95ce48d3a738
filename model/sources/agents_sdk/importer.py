"""OpenAI Agents SDK: a session database the user adds (SQLiteSession's `agent_sessions` /
`agent_messages`), read only (FORMATS.md §4). Each row is one Responses-API item, an event under the row
before it as the database holds them now: an item `pop_item()` removed stays, as an abandoned branch,
and what is added after hangs where the session really continues. A rescan reads rows past the last id."""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path

import orjson

from sessionscope.history.titles import from_prompt
from sessionscope.sources import databases, jsonl
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import ImportReport, importer, save_state
from sessionscope.store.incoming import NewEvent, SessionInfo
from sessionscope.store.ingest import ingest

KIND = "agents_sdk"
NS = uuid.UUID("8b2e4f10-6a3d-4c57-9e81-0d2c5b7a9f46")


def default_roots() -> list[Path]:
    return []  # a database is added by the user (File ▸ Import, `sessionscope import FILE.db`)


MESSAGE_COLUMNS = {"id", "session_id", "message_data"}


def messages_table(con: sqlite3.Connection) -> str | None:
    """The items table: `agent_messages` by default, any name an application chose (SQLiteSession's
    `messages_table`) recognised by its columns."""
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    found = [n for n in names if MESSAGE_COLUMNS <= databases.columns(con, n)]
    return "agent_messages" if "agent_messages" in found else (found[0] if found else None)


def claims(path: Path) -> bool:
    """Whether a file is an Agents SDK session database (SQLiteSession, SQLAlchemySession or
    AdvancedSQLiteSession: an items table of session_id and message_data)."""
    return databases.inspect(path, lambda con: messages_table(con) is not None)


def session_files(root: Path) -> list[Path]:
    return sorted(Path(d) / n for d, _dirs, names in os.walk(root) for n in names if claims(Path(d) / n))



def session_key(place: Path | str, sdk_session: str) -> str:
    """Our id for an SDK session: its id is chosen by the application ("user_123"), unique per database only. A
    database is a file (its absolute path) or on a server (its address without the password)."""
    from sessionscope.sources.server_databases import shown
    where = shown(place) if isinstance(place, str) else place.absolute()
    return str(uuid.uuid5(NS, f"{where}:{sdk_session}"))


def item_kind(item: dict) -> tuple[str, str | None, str]:
    """(kind, role, searchable text) of one Agents SDK item (also what sessionscope.adapters.agents stores)."""
    t = item.get("type")
    role = item.get("role")
    if t in (None, "message") and role in ("user", "assistant", "system", "developer"):
        content = item.get("content")
        text = content if isinstance(content, str) else "\n".join(
            str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and b.get("text"))
        return ("message", role, text) if role in ("user", "assistant") else ("system", "system", text)
    if t == "function_call":
        return "tool_call", "assistant", f"{item.get('name', '')} {item.get('arguments', '')}".strip()
    if t == "function_call_output":
        out = item.get("output")
        return "tool_result", "tool", out if isinstance(out, str) else orjson.dumps(out).decode()
    if t == "reasoning":
        summary = item.get("summary") or []
        return "thinking", "assistant", "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
    return "opaque", None, ""


def _advanced(con: sqlite3.Connection) -> tuple[list[tuple], list[dict]]:
    """AdvancedSQLiteSession's tables, when there: (message_structure rows in order, turn_usage rows
    with the last item of their turn)."""
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "message_structure" not in names:
        return [], []
    structure = con.execute("SELECT id, session_id, message_id, branch_id, sequence_number, branch_turn_number "
                            "FROM message_structure ORDER BY id").fetchall()
    usage: list[dict] = []
    if "turn_usage" in names:
        for sid, branch, turn, requests, tin, tout in con.execute(
                "SELECT session_id, branch_id, user_turn_number, requests, input_tokens, output_tokens "
                "FROM turn_usage ORDER BY id"):
            last = con.execute("SELECT message_id FROM message_structure WHERE session_id = ? AND branch_id = ? "
                               "AND branch_turn_number = ? ORDER BY sequence_number DESC LIMIT 1",
                               (sid, branch, turn)).fetchone()
            usage.append({"session_id": sid, "branch_id": branch, "turn": turn, "requests": requests or 0,
                          "input_tokens": tin or 0, "output_tokens": tout or 0,
                          "last_message": last[0] if last else None})
    return structure, usage


def _branch_parents(structure: list[tuple]) -> dict[int, int | None]:
    """{item id: the item before it in the first branch that holds it}: a branch created from a turn
    copies the items before that turn (the same item ids), so what it adds hangs where it forked."""
    order: dict[tuple[str, str], list[tuple[int, int]]] = {}
    first: dict[int, tuple[str, str]] = {}
    for _sid_row, sid, message_id, branch, seq, _turn in structure:
        order.setdefault((sid, branch), []).append((seq, message_id))
        first.setdefault(message_id, (sid, branch))
    before: dict[int, int | None] = {}
    for key, items in order.items():
        items.sort()
        prev = None
        for _seq, message_id in items:
            if first[message_id] == key and message_id not in before:
                before[message_id] = prev
            prev = message_id
    return before


def _import_db(store, _root: Path, path: Path, source_id: int, known, report: ImportReport, _cancel) -> None:
    st = path.stat()
    last_id = known.offset if known is not None else 0
    report.files_read += 1
    try:
        con = databases.open_readonly(path)
        try:
            table = messages_table(con)
            if table is None:
                raise sqlite3.DatabaseError("no table of Agents SDK items in it")
            rows = con.execute(f'SELECT id, session_id, message_data, created_at FROM "{table}" '
                               "ORDER BY session_id, id").fetchall()
            structure, usage = _advanced(con)
        finally:
            con.close()
    except sqlite3.Error as exc:
        report.problems.append({"path": str(path), "line": None, "offset": None, "problem": f"cannot read: {exc}"})
        return
    _store(store, path, str(path), path.stem, source_id, st, rows, structure, usage, last_id, report)


def _store(store, place, where: str, project: str, source_id: int, st, rows, structure, usage, last_id: int,
           report: ImportReport) -> None:
    """The items of the rows past `last_id` as events, each session's under the row before it; then stored with the
    scan state (the newest row id read), in one write. `place` is the database's (its sessions' ids are made from
    it), `where` how it is shown, `project` what its sessions are filed under."""
    state = jsonl.ReadState(offset=max([last_id] + [r[0] for r in rows]), bytes_read=0)
    previous: dict[str, str | None] = {}
    by_session: dict[str, list[NewEvent]] = {}
    titles: dict[str, str] = {}
    before = _branch_parents(structure)  # AdvancedSQLiteSession: each item under the one before it in its branch
    for row_id, sdk_session, data, created in rows:
        key = session_key(place, sdk_session)
        eid = str(uuid.uuid5(NS, f"{key}:{row_id}"))
        if row_id in before:
            parent_row = before[row_id]
            previous[key] = str(uuid.uuid5(NS, f"{key}:{parent_row}")) if parent_row is not None else None
        if row_id > last_id:
            try:
                item = orjson.loads(data)
                kind, role, text = item_kind(item) if isinstance(item, dict) else ("opaque", None, "")
            except orjson.JSONDecodeError as exc:
                state.problem(row_id, row_id, f"row {row_id}: message_data is not JSON ({exc})")
                kind, role, text = "opaque", None, ""
            ts = _when(created)
            by_session.setdefault(key, []).append(NewEvent(
                id=eid, parent_id=previous.get(key), ts=ts or st.st_mtime, kind=kind, role=role, text=text[:16_384],
                payload=data, head=kind in ("message", "tool_call", "tool_result", "thinking")))
            if kind == "message" and role == "user" and key not in titles and text.strip():
                titles[key] = from_prompt(text)
        previous[key] = eid  # the row before the next one, as the database holds them now
    for u in usage:  # each turn's usage, as AdvancedSQLiteSession stored it, under the turn's last item
        key = session_key(place, u["session_id"])
        last = u["last_message"]
        if last is None:
            continue
        branch = "" if u["branch_id"] == "main" else f" (branch {u['branch_id']})"
        by_session.setdefault(key, []).append(NewEvent(
            id=str(uuid.uuid5(NS, f"{key}:usage:{u['branch_id']}:{u['turn']}")),
            parent_id=str(uuid.uuid5(NS, f"{key}:{last}")), ts=st.st_mtime, kind="meta", role="usage",
            text=f"turn {u['turn']}{branch}: {u['input_tokens']:,} tokens in, {u['output_tokens']:,} out, "
                 f"{u['requests']} requests",
            payload=orjson.dumps(u).decode(), tokens_in=u["input_tokens"], tokens_out=u["output_tokens"],
            activity=False))
    report.bad_lines += state.bad_lines
    report.problems += [{"path": where, **p} for p in state.problems]
    sdk_ids = {session_key(place, r[1]): r[1] for r in rows} | {session_key(place, u["session_id"]): u["session_id"]
                                                                for u in usage}

    def commit(conn) -> int:
        added = 0
        for key, events in by_session.items():
            info = SessionInfo(id=key, source_id=source_id, tool_id=sdk_ids[key],
                               fields={"title": titles.get(key, ""), "project": project},  # no cwd: its database
                               meta={"database": where, "title_rank": 1 if key in titles else 0})
            added += ingest(conn, info, events)
        save_state(conn, where, source_id, st, state)
        return added
    report.events_added += store.write(commit)
    report.sessions |= set(by_session)


def _when(created) -> float | None:
    """A row's created_at: SQLite's text ("2026-03-01 09:00:00", UTC), or a server's timestamp."""
    if not created:
        return None
    if hasattr(created, "timestamp"):
        import datetime as dt
        return (created if created.tzinfo else created.replace(tzinfo=dt.timezone.utc)).timestamp()
    return parse_ts(str(created).replace(" ", "T") + "Z")


import_paths = importer(KIND, session_files, _import_db, "Agents SDK session databases")


def claims_server(conn) -> bool:
    """Whether a database on a server holds an Agents SDK items table (SQLAlchemySession's `agent_messages`)."""
    return _server_table(conn) is not None


def _server_table(conn) -> str | None:
    from sessionscope.sources.server_databases import columns, tables
    found = sorted(t for t in tables(conn) if MESSAGE_COLUMNS <= columns(conn, t))
    return "agent_messages" if "agent_messages" in found else (found[0] if found else None)


def import_server(store, address: str, conn, report: ImportReport) -> None:
    """SQLAlchemySession's tables on a PostgreSQL server (sessionscope.sources.server_databases): the rows past the
    last one read, as a SQLiteSession file's are read."""
    import sqlalchemy as sa

    from sessionscope.sources.scan import source_row
    from sessionscope.sources.server_databases import name, shown, stat
    from sessionscope.store.schema import SOURCE_FILE
    where = shown(address)
    source_id = store.write(source_row, KIND, where)
    with store.reader() as c:
        last_id = c.execute(sa.select(SOURCE_FILE.c.offset).where(SOURCE_FILE.c.source_id == source_id,
                                                                  SOURCE_FILE.c.path == where)).scalar() or 0
    table = _server_table(conn)
    try:
        rows = [(r["id"], r["session_id"], r["message_data"], r["created_at"]) for r in conn.execute(
            f'SELECT id, session_id, message_data, created_at FROM "{table}" ORDER BY session_id, id')]
    except Exception as exc:  # noqa: BLE001 - a table it cannot read, a dropped connection: this address's
        report.problems.append({"path": where, "line": None, "offset": None, "problem": f"cannot read: {exc}"})
        return
    report.files_read += 1
    rows = [(i, s, d if isinstance(d, str) else orjson.dumps(d).decode(), c) for i, s, d, c in rows]
    _store(store, address, where, name(address), source_id, stat(), rows, [], [], last_id, report)
