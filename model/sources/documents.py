"""Files a tool rewrites whole (Cline's task JSON, OpenHands trajectories) or that are read whole
(Aider's chat history): read again when they change, every session in them rebuilt, and only what
is new stored.

An event's id is derived from its parent's id and its own content, so an unchanged
prefix gives the same ids (and adds nothing), while a history the tool rewrote
differently from some point on continues as a new branch from there: what was seen
before is kept, never replaced.
"""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa

from sessionscope.history.titles import from_prompt
from sessionscope.sources import jsonl
from sessionscope.sources.records import add_fact
from sessionscope.sources.scan import ImportReport, save_state, unchanged
from sessionscope.store.incoming import NewEvent, SessionInfo, name_id
from sessionscope.store.ingest import ingest
from sessionscope.store.schema import SESSION


@dataclass
class Transcript:
    """One session read from a document: its events in order, each under the one before."""

    ns: uuid.UUID
    key: str  # our session id
    tool_id: str | None = None
    ts: float = 0.0  # the time of events that carry none (the file's mtime)
    fields: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    events: list[NewEvent] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # items that could not be read (counted as bad)
    last: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    # the session goes on from what the store holds of it (a trace a tool splits over several files): its first
    # event here, when it has no parent of its own, hangs under the session's head
    continues: bool = False
    # the tokens the tool counts for the whole session only (in, out), where it keeps no count per reply: what
    # they grew by since the last read is stored as one usage event (sessionscope.insight.usage reads it)
    totals: tuple[int, int] | None = None
    totals_model: str = ""
    # what the events' ids are drawn from, where not `key`: a run stored in another session keeps the ids it had as a
    # session of its own (a Roo Code subtask, sessionscope.sources.cline), so it is never stored twice
    ids: str | None = None

    def add(self, kind: str, role: str | None, text: str, payload: Any, ts: float | None = None, *,
            tokens_in: int = 0, tokens_out: int = 0, head: bool | None = None, key: str | None = None) -> NewEvent:
        """One event under the one before. Its id: from `key` (the tool's own id of the item, for a store
        the tool updates in place: a message streamed further keeps its event) or else from its parent
        and content (a document rewritten differently from some point on continues as a branch)."""
        body = payload if isinstance(payload, str) else orjson.dumps(payload, default=str).decode()
        if key is not None:
            name = f"{self.ids or self.key}:item:{key}"
        else:
            digest = hashlib.sha1(f"{kind}\0{role}\0{body}".encode("utf-8", "surrogatepass")).hexdigest()
            name = f"{self.last or self.ids or self.key}:{digest}"
        e = NewEvent(id=name_id(self.ns, name), parent_id=self.last,
                     ts=ts or self.ts, kind=kind, role=role, text=text[:65_536], payload=body,
                     tokens_in=tokens_in, tokens_out=tokens_out,
                     head=kind in ("message", "tool_call", "tool_result", "thinking") if head is None else head)
        self.events.append(e)
        self.last = e.id
        return e

    # -- the shapes every tool's items come to (sessionscope.history.pairing, cards and render read these payloads) --

    def said(self, role: str, text: str, ts: float | None = None, raw: Any = None, *, key: str | None = None,
             model: str = "", tokens: tuple[int, int, int, int] | None = None) -> NewEvent:
        """A message of `role` (user, assistant, system); `tokens` = (input, output, cache read, cache
        write) of the reply it ends, as the tool counted them."""
        kind, role = ("system", "system") if role in ("system", "developer") else ("message", role)
        payload: dict[str, Any] = {"role": role, "text": text}
        if model:
            payload["model"] = model
        if raw is not None:
            payload["raw"] = raw
        e = self.add(kind, role, text, payload, ts, key=key)
        self.usage(e, model, tokens)
        if role == "user" and kind == "message":
            self.title(text)
        return e

    def thought(self, text: str, ts: float | None = None, raw: Any = None, *, key: str | None = None) -> NewEvent:
        return self.add("thinking", "assistant", text, {"thinking": text, **({"raw": raw} if raw is not None else {})},
                        ts, key=key)

    def call(self, call_id: str | None, name: str, args: Any, ts: float | None = None, raw: Any = None, *,
             key: str | None = None) -> NewEvent:
        """A tool call; its result names `call_id` (sessionscope.history.pairing)."""
        text = args if isinstance(args, str) else orjson.dumps(args, default=str).decode()
        payload: dict[str, Any] = {"id": call_id, "name": name, "input": args}
        if raw is not None:
            payload["raw"] = raw
        return self.add("tool_call", "assistant", f"{name} {text}"[:65_536], payload, ts, key=key)

    def function_call(self, c: Any, ts: float | None = None, *, key: str | None = None) -> NewEvent:
        """An OpenAI chat message's `tool_calls[]` entry (`{id, function{name, arguments as JSON text}}`) as a call."""
        fn = c.get("function") if isinstance(c, dict) and isinstance(c.get("function"), dict) else {}
        return self.call(c.get("id") if isinstance(c, dict) else None, str(fn.get("name", "")),
                         parsed(fn.get("arguments")), ts, raw=c, key=key)

    def result(self, call_id: str | None, output: Any, ts: float | None = None, *, error: bool = False,
               raw: Any = None, key: str | None = None) -> NewEvent:
        """What a tool call gave back (`error`: the tool said it failed, or the user refused it)."""
        out = output if isinstance(output, str) else orjson.dumps(output, default=str).decode()
        payload: dict[str, Any] = {"tool_use_id": call_id, "output": out, "is_error": bool(error)}
        if raw is not None:
            payload["raw"] = raw
        return self.add("tool_result", "tool", out, payload, ts, key=key)

    @staticmethod
    def usage(e: NewEvent, model: str, tokens: tuple[int, int, int, int] | None) -> None:
        """Tokens on an event (input counting cache reads and writes, as every tool's event counts them), the
        model and the cache split in its payload for sessionscope.insight.usage."""
        if not tokens or not any(tokens):
            return
        fresh, out, read, write = (max(0, int(n or 0)) for n in tokens)
        e.tokens_in, e.tokens_out = fresh + read + write, out
        p = orjson.loads(e.payload)
        p["model"] = model or p.get("model") or ""
        p["tokens"] = {"cached": read, "cache_write": write}
        e.payload = orjson.dumps(p, default=str).decode()

    def fact(self, key: str, value: Any, ts: float | None = None, *, whole: bool = False) -> None:
        """A durable fact, set under the latest event when its value changed; `whole`: a fact of the
        whole document (a task's metadata, no time of its own), under the first event, so reading the
        document again after it grew does not set it again."""
        anchor = self.events[0].id if whole and self.events else self.last
        if anchor is not None:
            add_fact(self.events, self.facts, self.ns, anchor, ts or self.ts, key, value)

    def json_lines(self, lines: Iterable[bytes], where: str = "") -> Iterator[tuple[int, Any]]:
        """(line number, value) of each JSON line of a file read whole; a line that is not JSON is this session's
        problem (`where` names the file when it is not the session's own), said with its number, and skipped."""
        for n, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                yield n, orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                self.problems.append(f"{where}line {n}: not JSON ({str(exc).split(':')[0]})")

    def title(self, text: str) -> None:
        if not self.fields.get("title") and text.strip():
            self.fields["title"] = from_prompt(text)


Build = Callable[[Path, bytes], list[Transcript]]


@dataclass(frozen=True)
class GroupStat:
    """A file with the files whose changes are its own, as one: a database's write-ahead log (what an application
    commits lands in the `-wal` first; the database file's own size and time move only at a checkpoint), a
    session's side file the tool rewrites (Posit Assistant's message log beside its tree, Vibe's meta). A change
    to any of them is a change to read."""

    st_size: int
    st_mtime: float
    st_ino: int

    @classmethod
    def of(cls, path: Path, beside: Iterable[Path] = ()) -> "GroupStat":
        st = path.stat()
        size, mtime = st.st_size, st.st_mtime
        for other in beside:
            try:
                extra = other.stat()
            except OSError:
                continue
            size, mtime = size + extra.st_size, max(mtime, extra.st_mtime)
        return cls(size, mtime, st.st_ino)


def read_whole(build: Build, *, database: bool = False, beside: Callable[[Path], list[Path]] | None = None) -> Callable:
    """A `read_file` for sessionscope.sources.scan.run_import that reads a document whole when it changed and
    stores the sessions `build(path, data)` finds in it. A `database` (another application's SQLite file) is
    opened by `build(path, b"")` itself, read only, and counts as changed when its write-ahead log did; the files
    `beside(path)` names (that `build` reads with it) count as changed with it."""

    def read_file(store, _root: Path, path: Path, source_id: int, known, report: ImportReport, _cancel) -> None:
        st = GroupStat.of(path, [Path(f"{path}-wal")] if database else beside(path) if beside else ())
        if unchanged(known, st):
            return
        state = jsonl.ReadState(offset=st.st_size, bytes_read=st.st_size)
        report.files_read += 1
        try:
            found = build(path, b"" if database else path.read_bytes())
        except (OSError, ValueError, RecursionError, sqlite3.Error) as exc:  # unreadable, not JSON, too deep
            state.problem(1, 0, f"cannot be read: {exc}")
            found = []
        for t in found:
            for p in t.problems:
                state.problem(None, None, p)

        def commit(conn) -> int:  # (run again from the start when a transaction is retried)
            added = 0
            for t in found:
                if not t.events:
                    continue  # a run with nothing in it (a header alone, an unreadable line): no session
                if t.continues and t.events[0].parent_id is None:
                    head = conn.execute(sa.select(SESSION.c.head_event_id).where(SESSION.c.id == t.key)).scalar()
                    if head and head != t.events[0].id:
                        t.events[0].parent_id = head
                info = SessionInfo(id=t.key, source_id=source_id, tool_id=t.tool_id, fields=t.fields, meta=t.meta)
                added += ingest(conn, info, t.events)
                if t.totals:
                    added += _grown_totals(conn, t, source_id)
            save_state(conn, path, source_id, st, state)
            return added

        def said() -> None:  # once stored (with the files before it, in one transaction: SharedCommits)
            report.bytes_read += st.st_size
            report.bad_lines += state.bad_lines
            report.problems += [{"path": str(path), **p} for p in state.problems]

        # small files share a transaction (ImportReport.shared): a commit per file wrote the same index pages again
        # for each (a folder of 174 Aider histories spent a quarter of its import committing)
        touched = {t.key for t in found if t.events}
        report.shared(store).add(path, st.st_size, lambda conn: (commit(conn), touched), said, touched)

    return read_file


STREAM_CHUNK = 200  # transcripts of a streamed document stored a transaction


def read_streamed(build: Callable[[Path], Iterator[Transcript]]) -> Callable:
    """A `read_file` for sessionscope.sources.scan.run_import over a document too big to hold whole (a chat
    service's export of every conversation): `build(path)` gives its sessions one at a time, and they are stored
    STREAM_CHUNK a transaction as they come, so neither the document nor its sessions are all in memory at once.
    A session that could not be read is a transcript with its problem and no events: said, and the next is read.
    What was stored before an unreadable rest of the document is kept; the file is read again when it changes."""

    def read_file(store, _root: Path, path: Path, source_id: int, known, report: ImportReport, cancel) -> None:
        st = GroupStat.of(path)
        if unchanged(known, st):
            return
        state = jsonl.ReadState(offset=st.st_size, bytes_read=st.st_size)
        report.files_read += 1

        def commit(conn, batch: list[Transcript], last: bool) -> int:
            added = 0
            for t in batch:
                info = SessionInfo(id=t.key, source_id=source_id, tool_id=t.tool_id, fields=t.fields, meta=t.meta)
                added += ingest(conn, info, t.events)
            if last:
                save_state(conn, path, source_id, st, state)
            return added

        batch: list[Transcript] = []
        try:
            for t in build(path):
                for p in t.problems:
                    state.problem(None, None, p)
                if t.events:
                    batch.append(t)
                if len(batch) >= STREAM_CHUNK:
                    report.events_added += store.write(commit, batch, False)
                    report.sessions |= {t.key for t in batch}
                    batch = []
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    return  # (its state is not saved: the next import reads it again, adding only what is new)
        except (OSError, ValueError, RecursionError, zipfile.BadZipFile) as exc:  # the rest of it is unreadable
            state.problem(1, 0, f"cannot be read to its end: {exc}")
        report.events_added += store.write(commit, batch, True)
        report.sessions |= {t.key for t in batch}
        report.bytes_read += st.st_size
        report.bad_lines += state.bad_lines
        report.problems += [{"path": str(path), **p} for p in state.problems]

    return read_file


def _grown_totals(conn, t: Transcript, source_id: int) -> int:
    """What a session's own token totals grew by since the store last counted them, as a usage event."""
    row = conn.execute(sa.select(SESSION.c.tokens_in, SESSION.c.tokens_out, SESSION.c.head_event_id)
                       .where(SESSION.c.id == t.key)).first()
    grew = (t.totals[0] - (row.tokens_in or 0), t.totals[1] - (row.tokens_out or 0))
    if grew[0] <= 0 and grew[1] <= 0:
        return 0
    grew = (max(0, grew[0]), max(0, grew[1]))
    e = NewEvent(id=str(uuid.uuid5(t.ns, f"{t.key}:totals:{t.totals[0]}:{t.totals[1]}")), parent_id=row.head_event_id,
                 ts=max((e.ts for e in t.events), default=t.ts), kind="meta", role="usage",
                 text=f"{grew[0]:,} tokens in, {grew[1]:,} out (the session's totals, as {t.tool_id or 'the tool'} "
                      "counts them)", payload=orjson.dumps({"model": t.totals_model, "totals": t.totals}).decode(),
                 tokens_in=grew[0], tokens_out=grew[1], activity=False)
    return ingest(conn, SessionInfo(id=t.key, source_id=source_id), [e])


def blocks_text(content: Any) -> str:
    """The text of a message's content: a string as it is, or its blocks' `text` joined (an image block as
    [image]; other blocks, calls and results, are events of their own)."""
    if isinstance(content, str):
        return content
    out = []
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and isinstance(b.get("text"), str):
            out.append(b["text"])
        elif isinstance(b, dict) and "image" in str(b.get("type")):
            out.append("[image]")
    return "\n".join(out)


def parsed(value: Any) -> Any:
    """A value a tool kept as JSON text (a call's arguments, a result) as the object it says; anything else,
    or text that is not JSON, as it is."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def is_document(path: Path, sniff: Callable[[Any], bool]) -> bool:
    """Whether the JSON document at `path` is one `sniff` recognises (False for anything unreadable)."""
    if not jsonl.is_regular(path):  # a FIFO or a device: never opened
        return False
    try:
        return bool(sniff(load_json(path.read_bytes())))
    except (OSError, ValueError, RecursionError):
        return False


def oldest_first(paths: list[Path]) -> list[Path]:
    return sorted(paths, key=lambda p: (p.stat().st_mtime, str(p)))


def load_json(data: bytes) -> Any:
    """A JSON document (orjson; the standard parser where orjson refuses the nesting). Anything
    unreadable, however deep, is a ValueError the caller reports."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "recursion" not in str(exc).lower():
            raise ValueError(f"not JSON: {exc}") from exc
    import json
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("not read: nested too deeply (over 1,024 levels)") from None
