"""What an export contains, and the stream of events every format writes from.

An export request names sessions (or one branch of one session, or the sessions of
a search); `plan` turns it into parts. Reading formats (Markdown, HTML, Claude
Code) follow each part's branch root→head with its subagent runs; the lossless
JSONL format carries each session's whole log, and the sessions it forks from, so
a fork can be imported on its own. Events are read in pages by id and written as
they come: memory stays flat however long the session.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import sqlalchemy as sa

from sessionscope.errors import Cancelled, InvalidInput, NotFound, Refused, SessionscopeError, failure  # noqa: F401 (Cancelled: export.core.Cancelled)
from sessionscope.export.redact import Finding, Redactor
from sessionscope.history import reading
from sessionscope.history.read_models import EventView, SessionView
from sessionscope.store import partfiles, settings
from sessionscope.store.schema import EVENT

FORMATS = ("md", "html", "jsonl", "claude")
DETAILS = ("prompts", "conversation", "full")
PAGE = 500
# the writer of each format; a tool's own format is written by that tool's source package
_MODULES = {"md": "sessionscope.export.markdown", "html": "sessionscope.export.html", "jsonl": "sessionscope.export.jsonl",
            "claude": "sessionscope.sources.claude_code.writer"}

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class ExportRequest:
    """What to export and how."""

    format: str
    session_ids: tuple[str, ...] = ()
    head: str | None = None  # one branch, root → head (of the single session named)
    search: str | None = None  # the sessions of this search's results
    detail: str = "full"  # Markdown and HTML: prompts, conversation, full
    redact: bool = False

    def __post_init__(self):
        if self.format not in FORMATS:
            raise InvalidInput(f"unknown export format {self.format!r}; use one of {', '.join(FORMATS)}")
        if self.detail not in DETAILS:
            raise InvalidInput(f"unknown detail level {self.detail!r}; use one of {', '.join(DETAILS)}")
        if self.head and len(self.session_ids) != 1:
            raise InvalidInput("a branch export names exactly one session and the head of the branch")
        if not self.session_ids and not self.search:
            raise InvalidInput("nothing to export: name sessions, a branch or a search")


@dataclass(frozen=True)
class Part:
    """One section of an export: a session, followed root → `head` (None: its head)."""

    session: SessionView
    head: str | None
    whole_log: bool  # JSONL: every event of the session in seq order, not one branch


@dataclass
class ExportReport:
    format: str
    path: str
    sessions: int = 0
    events: int = 0
    bytes: int = 0
    seconds: float = 0.0
    redacted: bool = False
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    session_ids: tuple[str, ...] = ()
    detail: dict[str, Any] = field(default_factory=dict)  # what the audit log records of it

    def as_dict(self) -> dict[str, Any]:
        return {"format": self.format, "path": self.path, "sessions": self.sessions, "events": self.events,
                "bytes": self.bytes, "seconds": round(self.seconds, 3), "redacted": self.redacted,
                "files": self.files, "findings": [f.as_dict() for f in self.findings]}


def plan(store, request: ExportRequest) -> list[Part]:
    """The parts of an export, in the order they are written."""
    ids = list(request.session_ids)
    if request.search:
        ids += [h.session_id for h in store.search(request.search, limit=10_000)]
    ids = list(dict.fromkeys(store.resolve_session(i) for i in ids))
    if not ids:
        raise NotFound("no sessions to export" + (f": nothing matches {request.search!r}" if request.search else ""))
    if request.head:
        head = store.resolve_event(request.head)
        if not _on_session_tree(store, ids[0], head):
            raise InvalidInput(f"event {head} is not in session {ids[0]}")
    else:
        head = None
    if request.format == "jsonl":
        ordered: list[str] = []
        for sid in ids:  # each fork's origins first, so every parent precedes its children
            chain = []
            cur: str | None = sid
            while cur and cur not in ordered and cur not in chain:
                chain.append(cur)
                cur = store.session(cur).forked_from_session
            ordered += reversed(chain)
        return [Part(store.session(sid), None, True) for sid in ordered]
    return [Part(store.session(sid), head, False) for sid in ids]


def _on_session_tree(store, session_id: str, event_id: str) -> bool:
    with store.reader() as conn:
        owner = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == event_id)).scalar()
        if owner == session_id:
            return True
        # an event of the origin a fork continues from is on the fork's tree too
        return reading.is_ancestor(conn, event_id, reading.get_session(conn, session_id).head_event_id or "")


def redactor_for(store) -> Redactor:
    """A redactor with the store's placeholder key, the user's own patterns and the values they dismissed."""
    return Redactor(_placeholder_key(store), redaction_patterns(store), allowed=set(allowed_values(store)))


def allowed_values(store) -> list[str]:
    """The placeholders of values a user said are no secret (the placeholder, never the value, is kept)."""
    with store.reader() as conn:
        raw = settings.get(conn, "redaction.allowed")
    return [p for p in (raw or "").splitlines() if p.strip()]


def set_allowed_values(store, placeholders: list[str]) -> None:
    """Remember which found values are no secret (by their placeholders: the same value gets the same one)."""
    from sessionscope.export.redact import PLACEHOLDER
    bad = [p for p in placeholders if not PLACEHOLDER.fullmatch(p)]
    if bad:
        raise InvalidInput(f"not a placeholder of a finding: {bad[0]!r} (they look like [REDACTED:kind:1a2b3c4d])")
    value = "\n".join(dict.fromkeys(placeholders))
    store.audited("redaction.allowed", lambda conn: settings.put(conn, "redaction.allowed", value),
                  detail={"allowed": len(placeholders)})


class _Counting:
    """A text sink that counts the placeholders written through it: a reading format (Markdown, HTML) shows
    part of each event, so what it holds, not what was scanned, is what the review reports."""

    def __init__(self, fh: IO[str] | None = None):
        self.fh, self.counts = fh, {}

    def write(self, text: str) -> int:
        if "[REDACTED:" in text:
            from sessionscope.export.redact import PLACEHOLDER
            for m in PLACEHOLDER.finditer(text):
                self.counts[m.group()] = self.counts.get(m.group(), 0) + 1
        return self.fh.write(text) if self.fh is not None else len(text)

    def findings(self, found: list[Finding]) -> list[Finding]:
        import dataclasses
        return [dataclasses.replace(f, count=self.counts[f.placeholder]) for f in found if self.counts.get(f.placeholder)]


_WRITTEN_AS_STORED = ("jsonl", "claude")  # formats that write every event's text and payload whole


def redaction_patterns(store) -> list[str]:
    with store.reader() as conn:
        raw = settings.get(conn, "redaction.patterns")
    return [p for p in (raw or "").splitlines() if p.strip()]


def set_redaction_patterns(store, patterns: list[str]) -> None:
    """Store the user's patterns (one regular expression each) for every client of the store."""
    Redactor(b"", patterns)  # raises InvalidInput naming a bad pattern
    value = "\n".join(p for p in patterns if p.strip())
    store.audited("redaction.patterns", lambda conn: settings.put(conn, "redaction.patterns", value),
                  detail={"patterns": len([p for p in patterns if p.strip()])})


def _placeholder_key(store) -> bytes:
    """The key placeholders are made under: the store's (made on first use); a team store's member's own, derived
    from it by the owner's function (sessionscope.safety.team: a member never reads the store's key)."""
    with store.reader() as conn:
        key = settings.get(conn, "redaction.key")
        member = key is None and conn.dialect.name == "postgresql" and conn.exec_driver_sql(
            "SELECT row_security_active('setting') AND to_regprocedure('sessionscope_member_key()') IS NOT NULL"
        ).scalar()
    if key:
        return bytes.fromhex(key)
    if member:
        return bytes.fromhex(store.write(lambda conn: conn.exec_driver_sql("SELECT sessionscope_member_key()").scalar()))

    def create(conn):
        existing = settings.get(conn, "redaction.key")
        if existing:
            return existing
        fresh = secrets.token_hex(32)
        settings.put(conn, "redaction.key", fresh)
        return fresh
    return bytes.fromhex(store.write(create))


class EventStream:
    """Events of the parts in pages, redacted when asked, with progress and cancel."""

    def __init__(self, store, parts: list[Part], redactor: Redactor | None,
                 progress: Progress | None, cancel: threading.Event | None):
        self.store, self.parts, self.redactor = store, parts, redactor
        self.progress, self.cancel = progress, cancel
        self.done = 0
        self._ids: dict[int, list[str]] = {}
        self.total = sum(self._count(i, p) for i, p in enumerate(parts))

    def _count(self, index: int, part: Part) -> int:
        if part.whole_log:
            return part.session.event_count
        # a session: its head branch (cached); a branch export: the branch up to its event, which ends there
        # (a session of subagent runs alone has no head: the store's walk gives its runs)
        ids = self.store.branch_ids(part.session.id, part.head, include_subagents=True)
        self._ids[index] = ids  # ids only (~100 bytes each), never the events
        return len(ids)

    def check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("export cancelled; nothing was written")

    def _tick(self, n: int, label: str) -> None:
        self.done += n
        self.check()
        if self.progress:
            self.progress(self.done, self.total, label)

    def ids(self, index: int) -> list[str]:
        """The event ids of part `index` in branch order (a session's branch; [] for a whole log)."""
        return list(self._ids.get(index, []))

    def events(self, index: int) -> Iterator[EventView]:
        """The events of part `index`: its branch (reading order) or its whole log (seq order)."""
        part = self.parts[index]
        label = part.session.title or part.session.id[:8]
        if part.whole_log:
            last = 0
            while True:
                with self.store.reader() as conn:
                    rows = conn.execute(sa.select(EVENT).where(EVENT.c.session_id == part.session.id,
                                                               EVENT.c.seq > last)
                                        .order_by(EVENT.c.seq).limit(PAGE)).all()
                if not rows:
                    return
                last = rows[-1].seq
                yield from self._redacted(EventView.from_row(r) for r in rows)
                self._tick(len(rows), label)
        else:
            ids = self._ids.get(index, [])
            for i in range(0, len(ids), PAGE):
                yield from self._redacted(self.store.events_by_ids(ids[i:i + PAGE]))
                self._tick(len(ids[i:i + PAGE]), label)

    def _redacted(self, events) -> Iterator[EventView]:
        if self.redactor is None:
            yield from events
        else:
            for e in events:
                yield self.redactor.redact_event(e)

    def text(self, value: str, where: str) -> str:
        """Any other text the export shows (an origin's title, a note naming a fork), redacted when asked."""
        return self.redactor.redact_text(value, where) if self.redactor is not None else value

    def session(self, part: Part) -> SessionView:
        """The part's session, its title redacted when asked."""
        s = part.session
        if self.redactor is None:
            return s
        import dataclasses
        where = f"session {s.id[:8]} · title"
        return dataclasses.replace(s, title=self.redactor.redact_text(s.title, where))


def scan(store, request: ExportRequest, *, progress: Progress | None = None,
         cancel: threading.Event | None = None) -> list[Finding]:
    """The review list: every secret the export would replace, where and how many times."""
    import importlib
    parts = plan(store, request)
    redactor = redactor_for(store)
    stream = EventStream(store, parts, redactor, progress, cancel)
    if request.format in _WRITTEN_AS_STORED:
        if request.format == "jsonl":  # the session rows too, as the export writes them
            importlib.import_module(_MODULES["jsonl"]).write(store, stream, _Counting(), request)
        else:
            for i, part in enumerate(parts):
                stream.session(part)
                for _ in stream.events(i):
                    pass
        return redactor.review()
    sink = _Counting()  # rendered and counted, written nowhere
    importlib.import_module(_MODULES[request.format]).write(store, stream, sink, request)
    return sink.findings(redactor.review())


def export(store, request: ExportRequest, path: str | os.PathLike | None, *, progress: Progress | None = None,
           cancel: threading.Event | None = None) -> ExportReport:
    """Write the export to `path` (atomically: a cancelled or failed export leaves nothing).

    For the Claude Code format `path` may be a folder, a `.jsonl` file, or None: the
    project's folder where `claude --resume` looks."""
    import importlib
    started = time.perf_counter()
    parts = plan(store, request)
    redactor = redactor_for(store) if request.redact else None
    stream = EventStream(store, parts, redactor, progress, cancel)
    report = ExportReport(request.format, str(path), sessions=len(parts), redacted=request.redact)
    detail = {"format": request.format, "path": str(path), "sessions": [p.session.id for p in parts],
              "head": request.head, "redacted": request.redact}
    try:
        module = importlib.import_module(_MODULES[request.format])
        if request.format == "claude":
            report.files = module.write(store, stream, Path(path) if path else None)
        else:
            with atomic_output(Path(path)) as fh:
                sink = _Counting(fh)
                module.write(store, stream, sink, request)
            report.files = [str(path)]
    except (SessionscopeError, OSError) as exc:
        # the operation that asked (sessionscope.ops.export) records the failure, with what was being written
        outcome = "cancelled" if isinstance(exc, Cancelled) else "refused" if isinstance(exc, SessionscopeError) else "error"
        if isinstance(exc, OSError):
            import errno
            full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG)  # the machine's, not a mistake
            raise failure((Refused if full else InvalidInput)(f"could not write {path}: {exc.strerror or exc}"),
                          outcome, detail) from exc
        raise failure(exc, outcome, detail)
    report.events = stream.done
    report.bytes = sum(Path(f).stat().st_size for f in report.files)
    report.seconds = time.perf_counter() - started
    report.findings = redactor.review() if redactor else []
    if redactor and request.format not in _WRITTEN_AS_STORED:
        report.findings = sink.findings(report.findings)  # what the file holds
    report.session_ids = tuple(p.session.id for p in parts)
    report.detail = detail | {"events": report.events, "bytes": report.bytes, "files": report.files,
                              "secrets_replaced": sum(f.count for f in report.findings)}
    return report


@contextlib.contextmanager
def atomic_output(path: Path) -> Iterator[IO[str]]:
    """A text file written beside `path` and moved over it only when complete."""
    fd, tmp = partfiles.temporary(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def new_file(path: Path) -> Iterator[IO[bytes]]:
    """A file that must not exist yet: written beside `path`, then linked into place
    (which fails if the name exists: nothing is ever overwritten)."""
    fd, tmp = partfiles.temporary(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise Refused(f"{path} already exists; Sessionscope never overwrites a transcript") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
