"""What `sessionscope COMMAND --json` prints, command by command, as types: the one declaration the manual's
"JSON output" table and tests/test_cli_json.py both read (a test holds every command's output to its shape, and
the manual's row for it to its keys).

A shape is a read-model (a session, an event, a note, a pin: what `as_dict` gives) or a TypedDict here, printed
as one object or as a list of them. Times are epoch seconds; ids are full ids."""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple, TypedDict

from sessionscope.history.read_models import EventView, NoteView, PinView, SessionView

Session = dict[str, Any]  # SessionView.as_dict()
Event = dict[str, Any]  # EventView.as_dict(), its payload the tool's own line as JSON


class Shape(NamedTuple):
    many: bool  # a list of them (else one object)
    model: type  # a read-model dataclass or a TypedDict

    def keys(self) -> frozenset[str]:
        return keys(self.model)


def keys(model: type) -> frozenset[str]:
    """The keys an object of `model` has as printed: a dataclass's fields, a TypedDict's keys (a key named after a
    Python keyword is declared with a trailing underscore: `continue_`)."""
    if dataclasses.is_dataclass(model):
        return frozenset(f.name for f in dataclasses.fields(model))
    declared = getattr(model, "__required_keys__", frozenset()) | getattr(model, "__optional_keys__", frozenset())
    return frozenset(k.removesuffix("_") for k in declared)


class Facts(TypedDict):
    event: str
    facts: dict[str, Any]


class Diff(TypedDict):
    a: str
    b: str
    added: dict[str, Any]
    removed: dict[str, Any]
    changed: dict[str, dict[str, Any]]  # {key: {old, new}}


class Shown(TypedDict):
    session: Session
    events: list[Event]
    same_tool_id: list[str]


class Made(TypedDict):
    """A fork, or a rewind written as a new session."""
    session: Session
    file: str | None
    note: str
    extended: bool
    interrupted: int
    resume: str


class Forked(Made):
    continue_: dict[str, Any] | None  # printed as "continue": {prompt, command, cwd, line, appended}


class Rewound(Made):
    moved: bool


class Resumed(TypedDict):
    session: Session
    command: list[str] | None
    cwd: str | None
    resume: str
    facts: dict[str, Any]
    transcript: list[Event]
    budget_left: dict[str, Any] | None


class TagCount(TypedDict):
    tag: str
    sessions: int


class Summarized(TypedDict):
    session: str
    sent: str
    note: dict[str, Any] | None
    title: str
    renamed: bool
    model: str
    sent_chars: int


class Pinned(TypedDict):
    session: Session
    pins: list[dict[str, Any]]


class Deleted(TypedDict):
    session: str
    events_removed: int
    files_removed: list[str]


class Verified(TypedDict):
    ok: bool
    file: str | None
    redacted: Any
    problem: str | None
    sessions: list[dict[str, Any]]  # {session_id, events, ok, broken_event_id, broken_seq, broken_line, reason, …}
    blobs: list[dict[str, Any]]


class SessionVerified(TypedDict):
    session_id: str
    events: int
    ok: bool
    broken_event_id: str | None
    broken_seq: int | None
    broken_line: int | None
    reason: str
    redacted_copy: dict[str, Any] | None


class Exported(TypedDict):
    format: str
    path: str
    sessions: int
    events: int
    bytes: int
    seconds: float
    redacted: Any
    files: list[str]
    findings: list[dict[str, Any]]


class Redaction(TypedDict):
    patterns: list[str]
    allowed: list[str]


class Hit(TypedDict):
    session_id: str
    session_title: str
    event_id: str
    seq: int
    kind: str
    role: str | None
    ts: float
    snippet: str
    matches: list[list[int]]
    match: str  # words, meaning or both
    note_id: str | None
    did_you_mean: str  # "" or, where the query found nothing as typed, the query searched instead (typos mended)


class Meaning(TypedDict):
    enabled: bool
    model: str
    tool_output: bool
    embedded: int
    pending: int
    bytes: int
    fetched: bool


class Embedded(Meaning):
    embedded_now: int


class Similar(TypedDict):
    session_id: str
    title: str
    score: float
    updated_at: float


class Live(TypedDict):
    session: str
    title: str
    tool: str
    label: str
    state: str
    why: str
    written: float | None
    pid: int | None


class Drift(TypedDict):
    tool: str
    label: str
    version: str
    shape: str
    lines: int
    sessions: int
    example: str
    kept: bool


class ToolOutcome(TypedDict):
    name: str
    calls: int
    failures: int
    errors: int
    refused: int
    interrupted: int
    failure_rate: float
    p50_s: float | None
    p90_s: float | None
    retries: int
    before_correction: float | None
    mean_output_chars: float | None
    sessions: int


class UsageReport(TypedDict):
    by: str  # total, day, week, month, session, project, model, tool
    since: str | None
    until: str | None
    rows: list[dict]  # {key, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, total_tokens, cost,
    #                    sessions, models[, breakdown][, title, project, tool, updated]}
    totals: dict
    unpriced: dict[str, int]


class UsageBlocks(TypedDict):
    tool: str
    blocks: list[dict]  # {start, end, last_reply, active, gap, replies, input_tokens, …, cost, models, burn, projection}


class VitalSigns(TypedDict):
    session: str
    title: str
    tool: str
    first_ts: float | None
    last_ts: float | None
    active_s: float
    duration_s: float
    turns: int
    calls: int
    failures: int
    failure_rate: float
    interruptions: int
    compactions: int
    loops: list[dict[str, Any]]
    files: list[list[str]]
    files_changed: int
    tests: list[dict[str, Any]]
    test_runs: int
    commits: list[dict[str, Any]]
    ids: dict[str, list[str]]
    tokens_in: int
    tokens_out: int
    cost: float | None


class Blame(TypedDict):
    path: str
    repository: str | None
    lines: list[dict[str, Any]]
    changes: list[dict[str, Any]]


class Commit(TypedDict):
    sha: str
    ts: float
    subject: str
    session: str | None
    event: str | None
    title: str | None


class Team(TypedDict):
    login: str
    admin: bool
    rules_on: bool
    owner: bool
    members: list[dict[str, Any]]
    projects: list[str]
    done: list[str]


class HookState(TypedDict):
    tool: str
    label: str
    settings: str
    events: list[str]
    commands: list[str]
    problem: str | None
    last_signal: float | None
    last_event: str | None
    sessions: int


class HookChange(TypedDict):
    tool: str
    settings: str
    events: list[str]
    command: str
    removed: int
    written: bool
    note: str
    backup: str | None
    problem: str | None
    removed_file: bool
    status_line: str  # Claude Code's status line: "set", "kept" (someone else's), "removed" or ""


class Retention(TypedDict):
    archive_after_days: float | None
    purge_after_days: float | None
    ran: bool
    dry_run: bool
    archived: list[str]
    purged: list[str]
    skipped: list[dict[str, Any]]


class Imported(TypedDict):
    files_seen: int
    files_read: int
    bytes_read: int
    events_added: int
    bad_lines: int
    sessions: list[str]
    problems: list[dict[str, Any]]  # {path, line, offset, problem}
    cancelled: bool
    seconds: float


class ImportedFiles(Imported):
    exports: list[dict[str, Any]]
    embedded: int | None


class Scanned(Imported):
    roots: list[str]
    embedded: int | None


class Pulled(Imported):
    workspaces: list[str]


class WrittenBack(TypedDict):
    session: str
    written: list[str]
    resume: str


class FilesRestored(TypedDict):
    session: str
    prompt: str
    prompt_text: str
    folder: str
    files: list[dict[str, Any]]  # the plan: {path, target, action, inside, escapes, selected}
    restored: list[str]
    undone: bool
    rewind: dict[str, Any] | None


class Audited(TypedDict):
    id: int
    ts: float
    action: str
    actor: str
    outcome: str
    session_id: str | None
    event_id: str | None
    detail: dict[str, Any]


class Sent(TypedDict):
    session: str
    events_added: int
    problems: list[dict[str, Any]]


class RunDetail(TypedDict):
    fork: bool
    at: str | None
    model: str | None
    permission_mode: str | None
    prompt_chars: int
    ended: str  # success, interrupted, error
    turns: int
    cost_usd: float | None
    seconds: float
    session: str | None  # the session the run wrote (a fork's own)
    asked: list[dict[str, Any]]  # {tool, allowed} for each call the agent asked about


class Ran(TypedDict):
    session: Session | None
    run: RunDetail
    reply: str


class Key(TypedDict):
    workspace: str
    key_from: str


class Sync(TypedDict):
    target: str | None
    every: float | None
    default: str
    rules: dict[str, str]
    plan: dict[str, Any] | None
    last: dict[str, Any] | None
    report: dict[str, Any] | None


class Desktop(TypedDict):
    files: list[str]
    uninstalled: bool


class Opened(TypedDict):
    session: str
    event: str | None
    window: str  # "brought to it": the open window shows it (without one, `open` starts one and prints nothing)


class Backup(TypedDict):
    store: str
    folder: str
    made: dict[str, Any] | None
    restored: str | None
    kept: str | None
    backups: list[dict[str, Any]]  # {path, kind, made_at, size}


class Repaired(TypedDict):
    store: str
    kept_damaged: str
    copied: dict[str, int]
    lost: dict[str, int]
    replaced_text: int
    events_reimported: int
    broken_sessions: list[str]
    seconds: float


def _one(model: type) -> Shape:
    return Shape(False, model)


def _list(model: type) -> Shape:
    return Shape(True, model)


# command (or "command subcommand" where they differ) → what it prints
SHAPES: dict[str, Shape] = {
    **{c: _one(SessionView) for c in ("new", "close", "pause", "archive", "unarchive", "rename", "tag", "star")},
    **{c: _one(EventView) for c in ("append", "fact", "compact")},
    "list": _list(SessionView), "show": _one(Shown), "facts": _one(Facts), "diff": _one(Diff),
    "fork": _one(Forked), "rewind": _one(Rewound), "resume": _one(Resumed), "tags": _list(TagCount),
    "summarize": _one(Summarized), "pin": _one(Pinned), "pins": _list(PinView),
    "note": _one(NoteView), "note list": _list(NoteView), "delete": _one(Deleted), "verify": _one(Verified),
    "export": _one(Exported), "redaction": _one(Redaction), "search": _list(Hit),
    "semantic": _one(Meaning), "embed": _one(Embedded), "similar": _list(Similar), "status": _list(Live),
    "drift": _list(Drift), "stats": _list(ToolOutcome), "stats sessions": _list(VitalSigns),
    "usage": _one(UsageReport), "usage blocks": _one(UsageBlocks), "blame": _one(Blame),
    "commits": _list(Commit), "team": _one(Team), "hooks": _list(HookState), "hooks change": _list(HookChange),
    "retention": _one(Retention), "import": _one(ImportedFiles), "scan": _one(Scanned),
    "write-back": _one(WrittenBack), "restore": _one(WrittenBack), "restore-files": _one(FilesRestored),
    "audit": _list(Audited), "pull": _one(Pulled), "send": _one(Sent), "interrupt": _one(Sent), "run": _one(Ran),
    "key": _one(Key),
    "sync": _one(Sync), "install-desktop": _one(Desktop), "open": _one(Opened), "backup": _one(Backup), "repair": _one(Repaired),
}
