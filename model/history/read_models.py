"""Read-models: what leaves the model. No ORM object crosses a thread. Treat them as values: all but
SessionView are frozen, and nothing changes one after it is made."""

from __future__ import annotations

import json
import operator
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from typing import Any

import orjson


@dataclass(slots=True)  # not frozen: a frozen __init__ sets each of the 22 fields through object.__setattr__,
class SessionView:      # half the cost of listing 20,000 sessions; it is never changed all the same
    id: str
    tool_id: str | None
    source_kind: str
    title: str
    project: str
    cwd: str
    git_branch: str
    model: str
    agent: str
    status: str
    created_at: float
    updated_at: float
    tokens_in: int
    tokens_out: int
    event_count: int
    head_event_id: str | None
    tags: tuple[str, ...]
    meta: dict[str, Any]
    budget: dict[str, Any]
    forked_from_session: str | None
    forked_from_event: str | None
    imported_by: str = ""  # user@host (sessionscope.store.people)
    starred: bool = False  # the user's star (#33)
    owner: str = ""  # a team store's: the database login that brought it in (sessionscope.safety.team); "" on SQLite
    shared: bool = False  # its owner shares it with the team (the session itself; a project may be shared too)
    yours: bool = True  # whether this login may change it (a team store's rules; always on SQLite)

    @classmethod
    def from_tuples(cls, names: list[str], rows) -> list["SessionView"]:
        """From plain driver rows whose columns are `names` (a list of thousands, quickly)."""
        ix = {n: i for i, n in enumerate(names)}
        pick = operator.itemgetter(*[ix[n] for n in (
            "id", "tool_id", "source_kind", "title", "project", "cwd", "git_branch", "model", "agent", "status",
            "created_at", "updated_at", "tokens_in", "tokens_out", "event_count", "head_event_id", "tags", "meta",
            "budget", "forked_from_session", "forked_from_event", "imported_by")])
        out = []
        star, owner, shared, yours = ix.get("starred"), ix.get("owner"), ix.get("shared"), ix.get("yours")
        for r in rows:
            (sid, tool_id, kind, title, project, cwd, branch, model, agent, status, created, updated, tin, tout,
             count, head, tags, meta, budget, from_session, from_event, by) = pick(r)
            out.append(cls(sid, tool_id, kind or "native", title, project, cwd, branch, model, agent, status,
                           created, updated, tin, tout, count, head,
                           tuple(orjson.loads(tags)) if tags not in ("", "[]") else (),
                           orjson.loads(meta) if meta not in ("", "{}") else {},
                           orjson.loads(budget) if budget not in ("", "{}") else {}, from_session, from_event, by or "",
                           bool(r[star]) if star is not None else False,
                           r[owner] if owner is not None else "", bool(r[shared]) if shared is not None else False,
                           bool(r[yours]) if yours is not None else True))
        return out

    @classmethod
    def from_row(cls, row) -> "SessionView":
        return cls.from_tuples(list(row._mapping.keys()), [tuple(row)])[0]

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__} | {"tags": list(self.tags)}

    def budget_left(self) -> dict[str, Any]:
        """What remains of each budget the session was opened with."""
        used = {"tokens": self.tokens_in + self.tokens_out, "events": self.event_count}
        return {k: (v - used[k] if k in used and isinstance(v, (int, float)) else v) for k, v in self.budget.items()}


# not frozen (a frozen __init__ costs a third of listing a 12,000-event session through object.__setattr__),
# but hashed by value as before: it is never changed all the same
@dataclass(slots=True, unsafe_hash=True)
class EventView:
    id: str
    session_id: str
    parent_id: str | None
    seq: int
    depth: int
    ts: float
    kind: str
    role: str | None
    text: str
    payload: str
    tokens_in: int
    tokens_out: int
    sidechain: bool
    agent_id: str | None
    hash: str

    @classmethod
    def from_row(cls, row) -> "EventView":
        m = row._mapping
        return cls(**{f: m[f] for f in cls.__dataclass_fields__})

    def payload_json(self) -> Any:
        """The payload parsed, or the raw string when it is not JSON."""
        try:
            return json.loads(self.payload) if self.payload else None
        except ValueError:
            return self.payload

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class FactDiff:
    """Keys added, removed and changed between facts A and facts B."""

    added: dict[str, Any]
    removed: dict[str, Any]
    changed: dict[str, tuple[Any, Any]]

    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def as_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "removed": self.removed,
            "changed": {k: {"old": a, "new": b} for k, (a, b) in self.changed.items()},
        }


@dataclass(frozen=True, slots=True)
class ResumeContext:
    """What an agent needs to pick a session up: its facts and its recent transcript."""

    session: SessionView
    facts: dict[str, Any]
    transcript: tuple[EventView, ...]  # since the last compaction, the summary first
    budget_left: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "session": self.session.as_dict(),
            "facts": self.facts,
            "transcript": [e.as_dict() for e in self.transcript],
            "budget_left": self.budget_left,
        }


@dataclass(frozen=True, slots=True)
class SearchHit:
    session_id: str
    session_title: str
    event_id: str
    seq: int
    kind: str
    role: str | None
    ts: float
    snippet: str  # matches wrapped in MARK_START / MARK_END
    match: str = "words"  # what found it: "words", "meaning" (search by meaning alone) or "both"
    note_id: str = ""  # a note's hit (kind "note"): which note
    did_you_mean: str = ""  # the query found nothing as typed: this is what was searched instead (a typo mended)

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


MARK_START, MARK_END = "\x02", "\x03"


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The result of verifying one session's hash chain."""

    session_id: str
    checked: int
    ok: bool
    broken_event_id: str | None = None
    broken_seq: int | None = None
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


class Action(StrEnum):
    """What an operation was: the name the audit log records it under (kept as the log always had it)."""

    OPEN = "open"
    APPEND = "append"  # an event written by hand (`sessionscope append`, `fact`); an SDK's appends are not entries
    FORK = "fork"
    CONTINUE = "fork.continue"  # a fork's next message: given to its tool to start with, or appended here
    RUN = "run"  # an agent run on a session (or a fork of it) from here, its tool's own process
    REWIND = "rewind"
    COMPACT = "compact"
    RESUME = "resume"
    PAUSE = "pause"
    IDLE = "idle"
    CLOSE = "close"
    ARCHIVE = "archive"
    UNARCHIVE = "unarchive"
    DELETE = "delete"
    RENAME = "rename"
    TAG = "tag"
    STAR = "star"
    UNSTAR = "unstar"
    PIN = "pin"
    UNPIN = "unpin"
    NOTE_ADD = "note.add"
    NOTE_EDIT = "note.edit"
    NOTE_REMOVE = "note.rm"
    SUMMARIZE = "summarize"  # a model asked for a title and a summary, kept as a generated note
    WRITE_BACK = "restore"  # a kept session written back where its tool finds it
    RESTORE_FILES = "restore-files"
    UNDO_RESTORE = "restore-files.undo"
    REDO_RESTORE = "restore-files.redo"
    EXPORT = "export"
    IMPORT = "import"
    SEND = "managed.send"
    INTERRUPT = "managed.interrupt"
    REMOTE_DELETE = "managed.delete"  # deleted where the session lives; the copy kept here
    REPORTED = "managed.status"
    START = "start"
    RESCHEDULE = "reschedule"
    TERMINATE = "terminate"
    RETENTION = "retention"
    STORE = "store"  # someone else wrote the store (the watcher saw it)
    PURGE = "purge"
    SHARE = "team.share"  # shared with a team store's members (sessionscope.safety.team)
    UNSHARE = "team.unshare"
    SYNC = "sync"  # the shared sessions pushed to a team store, redacted (sessionscope.sync)
    SYNC_RULE = "sync.rule"  # a project's sharing rule (always, ask, never), or the default one
    SYNC_TARGET = "sync.target"  # the team store a sync pushes to, and how often the app does it


@dataclass(frozen=True, slots=True)
class PinView:
    """A pinned event (#33), with what a list of pins shows of it and of its session."""

    event_id: str
    session_id: str
    session_title: str
    pinned_at: float
    kind: str
    role: str | None
    ts: float
    text: str  # its first 300 characters

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class NoteView:
    """A note (#33): on a session (`event_id` None) or on one of its events."""

    id: str
    session_id: str
    event_id: str | None
    text: str
    created_at: float
    updated_at: float
    session_title: str = ""
    generated_by: str | None = None  # the model that wrote it (Summarize); None: the user did

    def as_dict(self) -> dict[str, Any]:
        return {f: getattr(self, f) for f in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class Changes:
    """What an operation changed, so each view can decide whether to refresh, and what to tell the user."""

    action: Action
    _: KW_ONLY  # every other field by its name (16 places built it from positional booleans)
    session_ids: frozenset[str] = field(default_factory=frozenset)
    session_list: bool = False  # sessions appeared, disappeared or changed status
    session: SessionView | None = None  # the session the action produced or changed
    event: EventView | None = None  # the event the action appended
    detail: dict[str, Any] = field(default_factory=dict)  # what the audit log records
    note: str = ""  # one line for the user about how the tool did it ("new thread t-fork-1a2b in graph.db")
    files: tuple[str, ...] = ()  # the files the action wrote, restored or removed
    recorded: bool = False  # the audit entry was written with the work (in its transaction)
