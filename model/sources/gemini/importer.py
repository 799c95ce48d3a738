"""Gemini CLI: find chats (`~/.gemini/tmp/<project>/chats/`), import them incrementally: a `.jsonl`
chat from the bytes appended, a legacy `.json` chat read again whole when it changes (it is rewritten
in place; what was seen before is kept)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import orjson
import sqlalchemy as sa

from sessionscope.safety.untrusted import is_safe_id
from sessionscope.sources import jsonl
from sessionscope.sources.gemini.lines import NS, GeminiChat, flush, metadata, record, sniff
from sessionscope.sources.scan import ImportReport, importer, resume_state, save_state, unchanged
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import EVENT, SESSION

KIND = "gemini"
Progress = Callable[[int, int, str], None]
MAX_JSON_BYTES = 256 << 20


def default_roots() -> list[Path]:
    """Where Gemini CLI keeps chats: ~/.gemini/tmp (each project's chats/ folder under it)."""
    home = Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()) / ".gemini" / "tmp"
    return [home] if home.is_dir() else []


def is_chat(path: Path) -> bool:
    try:
        if not jsonl.is_regular(path):  # a FIFO or a device: never opened
            return False
        if path.suffix == ".json":
            return path.stat().st_size <= MAX_JSON_BYTES and sniff(orjson.loads(path.read_bytes()))
        with open(path, "rb") as fh:
            return sniff(orjson.loads(fh.readline(jsonl.MAX_LINE_BYTES)))
    except (OSError, orjson.JSONDecodeError):
        return False


def session_files(root: Path) -> list[Path]:
    found = [Path(d) / n for d, _dirs, names in os.walk(root) for n in names
             if n.endswith((".json", ".jsonl")) and is_chat(Path(d) / n)]
    found.sort(key=lambda p: (p.stat().st_mtime, str(p)))
    return found



def _read(store, _root: Path, path: Path, source_id: int, known, report: ImportReport, _cancel) -> None:
    reader = _import_document if path.suffix == ".json" else _import_lines
    reader(store, path, source_id, known, report)


def parent_session(path: Path) -> str | None:
    """The session a chat in `chats/<session id>/` belongs to (a subagent's chat), from its folder's name."""
    folder = path.parent
    return folder.name if folder.parent.name == "chats" and is_safe_id(folder.name) else None


def _fallback(path: Path) -> str:
    import uuid
    return str(uuid.uuid5(NS, str(path)))


def _stored_parent(store):
    def parent_of(message_id: str) -> str | None:
        with store.reader() as conn:
            return conn.execute(sa.select(EVENT.c.parent_id).where(EVENT.c.id == message_id)).scalar()
    return parent_of


def _import_lines(store, path: Path, source_id: int, known, report: ImportReport) -> None:
    st = path.stat()
    if unchanged(known, st):
        return
    state = resume_state(known, st)
    chat = GeminiChat(source_id, stored_parent=_stored_parent(store), parent_session=parent_session(path))
    chat.last_ts = st.st_mtime  # a line of no timestamp before any that has one: the file's time, never 1970
    if state.offset:
        with jsonl.open_binary(path) as fh:
            first = orjson.loads(fh.readline(jsonl.MAX_LINE_BYTES))
        if sniff(first):
            metadata(first, chat)  # which session, and whether the chat is a subagent's run in it
            chat.info.fields, chat.info.meta = {}, {}
            sid = chat.info.id
            mine = EVENT.c.agent_id == chat.agent_id if chat.agent_id else EVENT.c.sidechain.is_(False)
            with store.reader() as conn:
                chat.last = conn.execute(sa.select(EVENT.c.id).where(
                    EVENT.c.session_id == sid, ~EVENT.c.kind.startswith("fact."), mine)
                    .order_by(EVENT.c.seq.desc()).limit(1)).scalar()
                chat.titled = chat.titled or bool(conn.execute(sa.select(SESSION.c.title).where(
                    SESSION.c.id == sid)).scalar())
    report.files_read += 1
    old_bad, first_problem = state.bad_lines, len(state.problems)
    try:
        for batch in jsonl.read_lines(path, state):
            for line in batch:
                record(line.obj, line.raw, chat, _fallback(path))
            flush(chat)  # a later copy of this message, in a later batch or run, adds what it lacked
            report.events_added += store.write(_commit, chat, path, source_id, st, state)
            if chat.info is not None:
                report.sessions.add(chat.info.id)
        if state.bytes_read == 0 or chat.info is None:
            store.write(save_state, path, source_id, st, state)
    except OSError as exc:
        report.problems.append({"path": str(path), "line": None, "offset": state.offset, "problem": str(exc)})
    report.bytes_read += state.bytes_read
    report.bad_lines += state.bad_lines - old_bad
    report.problems += [{"path": str(path), **p} for p in state.problems[first_problem:]]


def _import_document(store, path: Path, source_id: int, known, report: ImportReport) -> None:
    """A legacy chat, rewritten whole: read it all when it changed; message ids make it idempotent."""
    st = path.stat()
    if unchanged(known, st):
        return
    state = jsonl.ReadState(offset=st.st_size, bytes_read=st.st_size)
    report.files_read += 1
    try:
        doc = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        state.problem(1, 0, f"the chat cannot be read as JSON: {exc}")
        store.write(save_state, path, source_id, st, state)
        report.bad_lines += 1
        report.problems.append({"path": str(path), "line": 1, "offset": 0, "problem": str(exc)})
        return
    chat = GeminiChat(source_id, stored_parent=_stored_parent(store), parent_session=parent_session(path))
    chat.last_ts = st.st_mtime  # (as for a .jsonl chat)
    metadata(doc, chat)
    for m in doc.get("messages") or []:
        record(m, orjson.dumps(m).decode(), chat, _fallback(path))
    flush(chat)
    report.events_added += store.write(_commit, chat, path, source_id, st, state)
    report.sessions.add(chat.info.id)
    report.bytes_read += st.st_size


def project_folder(path: Path) -> str | None:
    """The folder a chat's project is, from `~/.gemini/projects.json` (working dir → the slug naming
    `tmp/<slug>/`), or from the SHA-256 an older Gemini CLI named the folder by; None when neither says."""
    import hashlib
    chats = next((p for p in path.parents if p.name == "chats"), None)
    if chats is None:
        return None
    slug, home = chats.parent.name, chats.parent.parent.parent
    try:
        doc = orjson.loads((home / "projects.json").read_bytes()) if (home / "projects.json").is_file() else {}
    except (OSError, orjson.JSONDecodeError):
        return None
    mapping = doc.get("projects", doc) if isinstance(doc, dict) else {}
    for folder, name in (mapping.items() if isinstance(mapping, dict) else ()):
        if isinstance(folder, str) and folder.startswith("/") and (
                name == slug or hashlib.sha256(folder.encode()).hexdigest() == slug):
            return folder
    return None


def _commit(conn, chat: GeminiChat, path: Path, source_id: int, st, state) -> int:
    problems: list[str] = []
    if chat.info is not None and "cwd" not in chat.info.fields and (folder := project_folder(path)):
        chat.info.fields["cwd"] = folder
    added = ingest(conn, chat.info, list(chat.events), problems) if chat.info is not None else 0
    for msg in problems:
        state.problem(0, state.offset, msg, bad=False)
    save_state(conn, path, source_id, st, state)
    chat.events = []
    if chat.info is not None:
        chat.info.fields, chat.info.meta = {}, {}
    return added


import_paths = importer(KIND, session_files, _read, "Gemini CLI chats")
