"""Sessionscope's lossless JSONL: sessions and their events with the hash chain.

    {"sessionscope_export": 1, "exported_at": …, "redacted": false, "sessions": 2}
    {"type": "session", "session": {…stored columns…}, "source": {"kind": …, "location": …}}
    {"type": "event", "id": …, "seq": 1, …, "hash": …}          one line an event, seq order
    {"type": "end", "session_id": …, "events": n, "last_hash": …}
    …                                                           the next session
    {"type": "eof", "sessions": 2}

A fork's origin sessions come before it, so every parent precedes its children.
The file checks on its own (`verify_file`): each session's chain is recomputed,
the end record catches events missing at the end, the eof line a cut-off file.
A redacted export recomputes the chain over the redacted events (the header says
so), so it verifies too, but is a different log from the store's.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import orjson
import sqlalchemy as sa

from sessionscope.errors import InvalidInput
from sessionscope.export.core import EventStream, Progress
from sessionscope.history import sessions
from sessionscope.history.sessions import native_source_id
from sessionscope.recall import search
from sessionscope.safety import audit
from sessionscope.store import chain, ingest, keys, people
from sessionscope.store.schema import EVENT, NOTE, SESSION, SOURCE

FORMAT_KEY = "sessionscope_export"
VERSION = 1
_EVENT_FIELDS = ("id", "session_id", "parent_id", "seq", "depth", "ts", "kind", "role", "text", "payload",
                 "tokens_in", "tokens_out", "sidechain", "agent_id", "hash")
_BATCH = 2000
_KEPT = ("id", "title", "head_event_id", "last_hash", "forked_from_session", "forked_from_event", "status",
         "source_kind", "starred")  # ids and states: never secrets (the title is redacted already)


def write(store, stream: EventStream, fh: IO[str], request) -> None:
    fh.write(_line({FORMAT_KEY: VERSION, "exported_at": time.time(), "redacted": request.redact,
                    "sessions": len(stream.parts)}))
    for index, part in enumerate(stream.parts):
        row = session_row(store, part.session.id)
        source = _source_of(store, row.pop("source_id"))
        row["title"] = stream.session(part).title
        row["starred"] = part.session.starred  # the user's star (#33), carried to the store it is imported into
        row["notes"] = [{"id": n.id, "event_id": n.event_id, "text": stream.text(n.text, "your note"),
                         "created_at": n.created_at, "updated_at": n.updated_at, "generated_by": n.generated_by}
                        for n in store.notes(part.session.id)]  # (and the user's notes, redacted when asked)
        if stream.redactor is not None:  # every field the export writes: meta, agent, tags, budget, cwd, the source
            where = f"session {part.session.id[:8]} · "
            row = {k: stream.redactor.redact_payload(v, where + k) if isinstance(v, str) and k not in _KEPT else v
                   for k, v in row.items()}
            source = stream.redactor.redact_json(source, where + "source")
        fh.write(_line({"type": "session", "session": row, "source": source}))
        count, last = 0, ""
        for e in stream.events(index):
            ev = e.as_dict()
            if request.redact:
                ev["hash"] = chain.link(last, ev)  # the redacted log's own chain
            last = ev["hash"]
            count += 1
            fh.write(_line({"type": "event", **ev}))
        fh.write(_line({"type": "end", "session_id": part.session.id, "events": count, "last_hash": last}))
    fh.write(_line({"type": "eof", "sessions": len(stream.parts)}))


def session_row(store, session_id: str) -> dict[str, Any]:
    """The stored columns of a session (the export carries them as they are)."""
    with store.reader() as conn:
        return dict(conn.execute(sa.select(SESSION).where(SESSION.c.id == session_id)).mappings().first())


def _line(obj: dict[str, Any]) -> str:
    return orjson.dumps(obj).decode() + "\n"


def _source_of(store, source_id: int | None) -> dict[str, str]:
    if source_id is None:
        return {"kind": "native", "location": ""}
    with store.reader() as conn:
        r = conn.execute(sa.select(SOURCE.c.kind, SOURCE.c.location).where(SOURCE.c.id == source_id)).first()
    return {"kind": r.kind, "location": r.location} if r else {"kind": "native", "location": ""}


# -- checking a file on its own --------------------------------------------------


@dataclass
class SessionCheck:
    session_id: str
    title: str
    events: int
    ok: bool
    offset: int  # byte offset of its session line (the import re-reads from there)
    reason: str = ""
    broken_event_id: str | None = None
    broken_line: int | None = None
    row: dict[str, Any] = field(default_factory=dict, repr=False)
    source: dict[str, str] = field(default_factory=dict, repr=False)
    last_hash: str = ""
    first_event_id: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "title": self.title, "events": self.events, "ok": self.ok,
                "reason": self.reason, "broken_event_id": self.broken_event_id, "broken_line": self.broken_line}


@dataclass
class FileCheck:
    path: str
    ok: bool
    redacted: bool = False
    sessions: list[SessionCheck] = field(default_factory=list)
    problem: str = ""  # what is wrong with the file as a whole

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "ok": self.ok, "redacted": self.redacted, "problem": self.problem,
                "sessions": [s.as_dict() for s in self.sessions]}


def is_export(path) -> bool:
    """Whether `path` starts like a Sessionscope JSONL export."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(4096)
        return FORMAT_KEY.encode() in first and isinstance(orjson.loads(first), dict)
    except (OSError, orjson.JSONDecodeError):
        return False


def _lines(path) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, raw line) of a file."""
    offset = 0
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            yield n, offset, raw
            offset += len(raw)


def verify_file(path, *, keep_rows: bool = False) -> FileCheck:
    """Check an exported file on its own: format, every chain, every end record, the eof line."""
    check = FileCheck(str(path), ok=False)
    cur: SessionCheck | None = None
    previous, expected_seq, saw_eof = "", 1, False
    try:
        for n, offset, raw in _lines(path):
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                check.problem = f"line {n} is not valid JSON"
                return _fail(check, cur, n)
            if n == 1:
                if not isinstance(obj, dict) or obj.get(FORMAT_KEY) != VERSION:
                    check.problem = "not a Sessionscope export (version 1): its first line has no export header"
                    return check
                check.redacted = bool(obj.get("redacted"))
                continue
            t = obj.get("type") if isinstance(obj, dict) else None
            if saw_eof:
                check.problem = f"line {n} follows the eof record"
                return check
            if t == "session":
                if cur is not None:
                    check.problem = f"line {n}: session {cur.session_id} has no end record"
                    return _fail(check, cur, n)
                row = obj.get("session") or {}
                cur = SessionCheck(str(row.get("id")), str(row.get("title", "")), 0, False, offset,
                                   row=row if keep_rows else {}, source=obj.get("source") or {})
                previous, expected_seq = "", 1
            elif t == "event":
                if cur is None or obj.get("session_id") != cur.session_id:
                    check.problem = f"line {n}: an event outside its session's block"
                    return _fail(check, cur, n)
                if obj.get("seq") != expected_seq:
                    cur.reason = f"seq {obj.get('seq')} follows {expected_seq - 1}: events are missing before it"
                    cur.broken_event_id, cur.broken_line = obj.get("id"), n
                    return _fail(check, cur, n)
                try:
                    linked = chain.link(previous, obj)
                except (KeyError, TypeError):
                    cur.reason = "the event lacks fields its hash covers"
                    cur.broken_event_id, cur.broken_line = obj.get("id"), n
                    return _fail(check, cur, n)
                if linked != obj.get("hash"):
                    cur.reason = "its content or its predecessor no longer matches its hash"
                    cur.broken_event_id, cur.broken_line = obj.get("id"), n
                    return _fail(check, cur, n)
                previous, expected_seq = obj["hash"], expected_seq + 1
                cur.first_event_id = cur.first_event_id or str(obj.get("id"))
                cur.events += 1
            elif t == "end":
                if cur is None:
                    check.problem = f"line {n}: an end record without a session"
                    return check
                if obj.get("events") != cur.events or obj.get("last_hash") != previous:
                    cur.reason = (f"the end record says {obj.get('events')} events, the file holds {cur.events}: "
                                  "events were removed from the end" if obj.get("events") != cur.events
                                  else "the end record's last hash differs from the chain's")
                    cur.broken_line = n
                    return _fail(check, cur, n)
                cur.ok, cur.last_hash = True, previous
                check.sessions.append(cur)
                cur = None
            elif t == "eof":
                if cur is not None:
                    check.problem = f"line {n}: session {cur.session_id} has no end record"
                    return _fail(check, cur, n)
                if obj.get("sessions") != len(check.sessions):
                    check.problem = f"the eof record counts {obj.get('sessions')} sessions, the file holds {len(check.sessions)}"
                    return check
                saw_eof = True
            else:
                check.problem = f"line {n}: unknown record type {t!r}"
                return _fail(check, cur, n)
    except OSError as exc:
        check.problem = f"cannot read {path}: {exc.strerror or exc}"
        return check
    if not saw_eof:
        check.problem = "the file ends before its eof record: it was cut off"
        if cur is not None:
            cur.reason = "the file ends inside this session"
            check.sessions.append(cur)
        return check
    check.ok = True
    return check


def _fail(check: FileCheck, cur: SessionCheck | None, line: int) -> FileCheck:
    if cur is not None:
        cur.reason = cur.reason or check.problem
        cur.broken_line = cur.broken_line or line
        check.sessions.append(cur)
    check.problem = check.problem or (f"session {cur.session_id}: {cur.reason} (line {line})" if cur else f"line {line}")
    return check


# -- importing a file ----------------------------------------------------------------


@dataclass
class ImportResult:
    path: str
    imported: list[str] = field(default_factory=list)
    already_here: list[str] = field(default_factory=list)
    events: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "imported": self.imported, "already_here": self.already_here,
                "events": self.events}


def import_file(store, path, *, progress: Progress | None = None,
                cancel: threading.Event | None = None) -> ImportResult:
    """Import an export: nothing is written unless the whole file verifies. A session already
    here is skipped when the store holds the same chain (or it continued since); a different
    session under the same id is refused."""
    check = verify_file(path, keep_rows=True)
    if not check.ok:
        audit.audited(store, "import", outcome="refused", detail={"file": str(path), "error": check.problem})
        raise InvalidInput(f"{path} does not verify, nothing imported: {check.problem}")
    result = ImportResult(str(path))
    total = sum(s.events for s in check.sessions)
    for s in check.sessions:
        if cancel is not None and cancel.is_set():
            break
        if _already_here(store, s):
            result.already_here.append(s.session_id)
            continue
        result.events += store.write(_insert_session, path, s)
        result.imported.append(s.session_id)
        if progress:
            progress(result.events, total, s.title or s.session_id)
    store.warm(result.imported)
    audit.audited(store, "import", detail={"file": str(path), "format": "sessionscope-jsonl"} | result.as_dict())
    return result


def _already_here(store, s: SessionCheck) -> bool:
    with store.reader() as conn:
        here = conn.execute(sa.select(SESSION.c.last_seq).where(SESSION.c.id == s.session_id)).scalar()
        if here is None:
            existing = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == s.first_event_id)).scalar()
            if existing:
                raise InvalidInput(f"session {s.session_id}'s events are already in this store under session {existing}")
            return False
        if s.events == 0:
            return True
        stored = conn.execute(sa.select(EVENT.c.hash).where(EVENT.c.session_id == s.session_id,
                                                            EVENT.c.seq == s.events)).scalar()
    if stored != s.last_hash:
        raise InvalidInput(f"session {s.session_id} is in this store with a different log; nothing of it was imported "
                           "(a redacted export cannot go back into the store it came from)")
    return True


# a team store's owner and sharing are the importing login's (the server fills the owner), never the file's
_NOT_CARRIED = ("owner", "shared")


def _insert_session(conn, path, s: SessionCheck) -> int:
    row = dict(s.row)
    row["source_id"] = _source_id(conn, s.source)
    row["last_hash"] = s.last_hash
    # who brought it in: as the export says (its first store's), else whoever imports the file
    conn.execute(SESSION.insert().values(**{"imported_by": people.who()}
                                         | {c.name: row[c.name] for c in SESSION.columns
                                            if row.get(c.name) is not None and c.name not in _NOT_CARRIED}))
    if row.get("starred") is True:
        sessions.star(conn, s.session_id)
    for note in row.get("notes") or []:
        if isinstance(note, dict) and isinstance(note.get("text"), str) and note["text"].strip():
            conn.execute(NOTE.insert().values(
                id=str(note.get("id") or uuid.uuid4()), session_id=s.session_id, event_id=note.get("event_id"),
                text=note["text"], created_at=float(note.get("created_at") or time.time()),
                updated_at=float(note.get("updated_at") or time.time()),
                generated_by=note["generated_by"] if isinstance(note.get("generated_by"), str) else None))
    first_pk = keys.reserve_keys(conn, "event", "pk", max(1, s.events))
    pk, batch, n = first_pk, [], 0
    with open(path, "rb") as fh:
        fh.seek(s.offset)
        fh.readline()  # the session line
        for raw in fh:
            obj = orjson.loads(raw)
            if obj.get("type") != "event" or pk - first_pk >= s.events:  # (the keys reserved: the count checked)
                break
            batch.append({"pk": pk, **{f: obj[f] for f in _EVENT_FIELDS}})
            pk += 1
            if len(batch) >= _BATCH:
                n += _flush(conn, batch)
        n += _flush(conn, batch)
    if n:
        search.index_range(conn, first_pk, pk - 1)
    return n


def _flush(conn, batch: list[dict]) -> int:
    if batch:
        ingest.insert_rows(conn, batch)
    n = len(batch)
    batch.clear()
    return n


def _source_id(conn, source: dict[str, str]) -> int:
    kind, location = source.get("kind") or "native", source.get("location") or ""
    if kind == "native" and not location:
        return native_source_id(conn)
    found = conn.execute(sa.select(SOURCE.c.id).where(SOURCE.c.kind == kind, SOURCE.c.location == location)).scalar()
    if found is not None:
        return found
    # another machine's folder: recorded for where the session came from, never scanned here
    return conn.execute(SOURCE.insert().values(kind=kind, location=location, enabled=False,
                                               added_at=time.time())).inserted_primary_key[0]
