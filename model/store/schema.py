"""The store's tables, as SQLModel declares them.

Events are append-only: once written, a row of `event` is never updated. The
`session` row is the mutable summary of its log (head, counters, status), kept in
step with the events inside the same write transaction. Migrations in
`model/store/migrations` create these tables; `SQLModel.metadata` here is what
Alembic's autogenerate compares against.
"""

from __future__ import annotations

from typing import Optional

from sqlalchemy import BigInteger, Boolean, Column, Float, Index, Integer, LargeBinary, Table, Text, UniqueConstraint, false, text
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import String, TypeDecorator
from sqlmodel import Field, SQLModel

from sessionscope.store import payloads
from sessionscope.store.packed_sql import compact_hash


class PayloadText(TypeDecorator):
    """`event.payload` and `event.text`: text to every reader, though the bulk writers store them compressed on
    SQLite (sessionscope.store.payloads). A TEXT column either way: SQLite keeps a BLOB in it as it is. SQL that
    reads inside one (substr, LIKE) reads `plain(column)`."""

    impl = Text
    cache_ok = True

    def process_result_value(self, value, dialect):
        return payloads.unpack(value)


class ChainHash(TypeDecorator):
    """`event.hash`: hex digits to every reader and writer, 32 bytes on SQLite (packed_sql.compact_hash)."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return compact_hash(value) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        return value.hex() if isinstance(value, bytes) else value


class plain(FunctionElement):
    """A packed text column as text inside SQL: through `plain_text` on SQLite (sessionscope.store.payloads.sql_plain),
    the column itself elsewhere."""

    type = Text()
    inherit_cache = True
    name = "plain"


@compiles(plain)
def _plain_elsewhere(element, compiler, **kw):
    return compiler.process(list(element.clauses)[0], **kw)


@compiles(plain, "sqlite")
def _plain_on_sqlite(element, compiler, **kw):
    return payloads.sql_plain(compiler.process(list(element.clauses)[0], **kw))


class Source(SQLModel, table=True):
    """Where sessions come from: one tool at one location."""

    __tablename__ = "source"
    __table_args__ = (UniqueConstraint("kind", "location"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str  # native, claude_code, codex, agents_sdk, langgraph, gemini, managed_agents
    location: str = ""
    enabled: bool = True
    added_at: float
    # who scans it (a team store's login, which PostgreSQL fills; '' on SQLite): scan state is its owner's alone,
    # and on PostgreSQL a source is unique per owner (migration 0023)
    owner: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class SourceFile(SQLModel, table=True):
    """Scan state of one file of a source, so a rescan reads only what was appended."""

    __tablename__ = "source_file"
    __table_args__ = (UniqueConstraint("source_id", "path"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    source_id: int = Field(foreign_key="source.id", index=True)
    path: str
    size: int = 0
    mtime: float = 0.0
    inode: int = 0
    offset: int = 0  # bytes consumed; a half-written last line stays beyond it
    line_count: int = 0  # complete lines consumed, for "line N" in problem reports
    bad_lines: int = 0
    problems: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    scanned_at: float = 0.0
    # the time of the last line read: a line without one takes it, on a rescan as in one whole scan
    last_ts: float = Field(default=0.0, sa_column=Column(Float, nullable=False, server_default="0"))


class AgentSession(SQLModel, table=True):
    """One session: identity, summary of its log, lifecycle state and fork lineage."""

    __tablename__ = "session"
    # a project's sessions, newest first (the list filtered by a project; a team store holds thousands of projects'
    # sessions, and without it the listing walked every session by time: 0.13 s among 100,000)
    __table_args__ = (Index("ix_session_project_updated", "project", "updated_at"),)

    id: str = Field(primary_key=True)
    tool_id: Optional[str] = Field(default=None, index=True)
    source_id: Optional[int] = Field(default=None, foreign_key="source.id", index=True)
    title: str = ""
    project: str = ""
    cwd: str = ""
    git_branch: str = ""
    model: str = ""
    agent: str = ""
    status: str = Field(default="active", index=True)
    status_changed_at: float = 0.0
    created_at: float
    updated_at: float = Field(index=True)
    tokens_in: int = 0
    tokens_out: int = 0
    event_count: int = 0
    last_seq: int = 0
    last_hash: str = ""
    head_event_id: Optional[str] = None
    tags: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    meta: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    budget: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    forked_from_session: Optional[str] = Field(default=None, index=True)
    forked_from_event: Optional[str] = None
    # who brought it into the store, `user@host` (sessionscope.store.people): a team store filters by it
    imported_by: str = Field(default="", sa_column=Column(Text, nullable=False, server_default="", index=True))
    # a team store's rules (sessionscope.safety.team): the database login that brought it in (PostgreSQL fills it from
    # session_user; "" on SQLite), and whether its owner shares it with the team
    owner: str = Field(default="", sa_column=Column(Text, nullable=False, server_default="", index=True))
    shared: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))


class Event(SQLModel, table=True):
    """One entry of a session's append-only log; `parent_id` is the tree edge."""

    __tablename__ = "event"
    __table_args__ = (
        UniqueConstraint("session_id", "seq"),
        # (a session's events by time: its (session_id, seq) index, the time filtered; every session's: this, 0030)
        Index("ix_event_ts", "ts"),
        # the lines a reader did not understand (sessionscope.insight.drift): few, listed without reading the table
        Index("ix_event_opaque", "session_id", sqlite_where=text("kind = 'opaque'"),
              postgresql_where=text("kind = 'opaque'")),
    )

    # An integer key keeps the table a rowid table in SQLite (FTS5 content rowid).
    pk: Optional[int] = Field(default=None, primary_key=True)
    id: str = Field(unique=True)
    session_id: str = Field(foreign_key="session.id")
    parent_id: Optional[str] = Field(default=None, index=True)
    seq: int
    depth: int = 0  # distance from the root of the tree, across fork boundaries
    ts: float
    kind: str
    role: Optional[str] = None
    text: str = Field(default="", sa_column=Column(PayloadText, nullable=False, default=""))  # see PayloadText
    payload: str = Field(default="", sa_column=Column(PayloadText, nullable=False, default=""))  # see PayloadText
    tokens_in: int = 0
    tokens_out: int = 0
    sidechain: bool = False
    agent_id: Optional[str] = None
    hash: str = Field(sa_column=Column(ChainHash, nullable=False))  # see ChainHash
    # what SQL needs of a payload it can no longer read inside once compressed (sessionscope.store.payloads)
    response_id: Optional[str] = None  # the API response an assistant line belongs to (Claude's message.id)
    failed: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))


class PayloadDict(SQLModel, table=True):
    """A zstd dictionary the payloads of one tool are compressed with (sessionscope.store.dictionaries)."""

    __tablename__ = "payload_dict"

    id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))  # zstd's id, each frame names it
    tool: str = Field(index=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    made_at: float


class EventAlias(SQLModel, table=True):
    """A transcript line that copies an event the store holds (a Claude Code fork Sessionscope wrote):
    kept as a reference to that event, not as a second copy of it (the shared prefix is referenced)."""

    __tablename__ = "event_alias"

    id: str = Field(primary_key=True)  # the copy's own id (its line's uuid)
    event_id: str  # the event it copies
    session_id: str = Field(index=True)  # the session whose transcript holds the copy
    position: int  # its place among the session's copies (restore writes them back in this order)


class FactSnapshot(SQLModel, table=True):
    """The folded durable facts as they stood at one event (a cache; derivable)."""

    __tablename__ = "fact_snapshot"

    event_id: str = Field(primary_key=True)
    facts: str = Field(sa_column=Column(Text, nullable=False))


class AuditEntry(SQLModel, table=True):
    """Every action taken through Sessionscope, with its outcome."""

    __tablename__ = "audit"

    id: Optional[int] = Field(default=None, primary_key=True)
    ts: float = Field(index=True)
    action: str
    session_id: Optional[str] = Field(default=None, index=True)
    event_id: Optional[str] = None
    outcome: str  # ok, refused, error
    detail: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    actor: str = ""


class Setting(SQLModel, table=True):
    """Store-wide settings that every client of the store shares (retention policy)."""

    __tablename__ = "setting"

    key: str = Field(primary_key=True)
    value: str = Field(sa_column=Column(Text, nullable=False))


class OutlineCache(SQLModel, table=True):
    """A session's head branch in reading order, as the branch walk computed it (a cache;
    derivable). Valid while the session's head and last seq are the ones recorded."""

    __tablename__ = "outline_cache"

    session_id: str = Field(primary_key=True)
    head_event_id: str
    last_seq: int
    entries: bytes  # JSON columns of the walk (history.outline: ids, kind codes, sidechain flags, turn tokens), uncompressed


class UsageCache(SQLModel, table=True):
    """A session's token usage by day and model, split by kind (a cache; derivable from its events).
    Valid while the session's last seq is the one recorded; prices are applied when read."""

    __tablename__ = "usage_cache"

    session_id: str = Field(primary_key=True)
    last_seq: int
    rows: bytes  # JSON [[day, model, input, output, cache_read, cache_write], …] (sessionscope.insight.usage)


class ToolCache(SQLModel, table=True):
    """A session's tool outcomes by day, tool and model (a cache; derivable from its events, sessionscope.insight.outcomes).
    Valid while the session's last seq and the fold's version are the ones recorded."""

    __tablename__ = "tool_cache"

    session_id: str = Field(primary_key=True)
    last_seq: int
    version: int
    rows: bytes  # JSON [[day, tool, model, calls, errors, …, {bucket: n}, [failed call ids]], …]


class VitalsCache(SQLModel, table=True):
    """A session's vital signs (a cache; derivable from its events, sessionscope.insight.vitals). Valid while the session's
    last seq and the fold's version are the ones recorded."""

    __tablename__ = "vitals_cache"

    session_id: str = Field(primary_key=True)
    last_seq: int
    version: int
    data: bytes  # JSON of sessionscope.insight.vitals.Vitals


class FileTouch(SQLModel, table=True):
    """A file operation an agent's edit made (blame's index; derivable from the events, sessionscope.insight.vitals folds it
    with the vital signs). `path` absolute from the session's folder where it was relative; a rename's row is the
    new path, `other` the old one."""

    __tablename__ = "file_touch"

    id: Optional[int] = Field(default=None, primary_key=True)
    path: str
    name: str = Field(index=True)  # the file's name: blame finds a file moved to another folder or machine by it
    session_id: str = Field(index=True)
    event_id: str
    seq: int
    ts: float
    op: str  # write, replace, patch, insert, delete, rename
    other: str = ""


class CommitLink(SQLModel, table=True):
    """A git commit an agent's shell call made (its output's `[branch abc1234] message`): session ↔ commit."""

    __tablename__ = "commit_link"

    id: Optional[int] = Field(default=None, primary_key=True)
    sha: str  # as git printed it (7 characters or more)
    short: str = Field(index=True)  # its first 7, what a full hash is looked up by
    session_id: str = Field(index=True)
    event_id: str
    message: str = ""


class FileBlob(SQLModel, table=True):
    """File contents the store keeps (Claude Code's checkpoint backups, files saved before a restore),
    stored once: keyed by the SHA-256 of the raw bytes, compressed."""

    __tablename__ = "file_blob"

    hash: str = Field(primary_key=True)
    size: int  # raw bytes
    codec: str = "zlib"
    data: bytes


class CheckpointBackup(SQLModel, table=True):
    """Which kept blob one of a session's checkpoint backups is (Claude Code's `<hash>@v<n>` files);
    no blob: the backup was not on disk when the session was imported."""

    __tablename__ = "checkpoint_backup"

    session_id: str = Field(primary_key=True)
    backup_name: str = Field(primary_key=True)
    blob_hash: Optional[str] = None


class MirrorEntry(SQLModel, table=True):
    """An entry an agent SDK handed to the store as its session backend, verbatim, in append order
    (sessionscope.adapters): what the SDK loads back. The browsable session is built from the same
    entries by the tool's importer; this keeps the SDK's own keys (project, session, subpath)."""

    __tablename__ = "mirror_entry"
    __table_args__ = (
        Index("ix_mirror_entry_key", "sdk", "project_key", "session_id", "subpath", "id"),
        # no index over `uuid`: random keys cost an append more than its rows; the adapter keeps what
        # each key holds (adapters.claude._Known) to drop an entry sent again
    )

    id: Optional[int] = Field(default=None, primary_key=True)  # append order
    sdk: str  # "claude"
    project_key: str
    session_id: str
    subpath: str = ""  # "" for the main transcript, "subagents/agent-<id>" for a subagent's
    uuid: Optional[str] = None  # the entry's idempotency key, where it has one
    entry: str = Field(sa_column=Column(Text, nullable=False))  # the JSON the SDK gave
    written: float  # when the store wrote it (the SDK's mtime, in seconds)
    # a team store's rules (sessionscope.safety.team): the login that wrote it (PostgreSQL: session_user; "" on SQLite)
    owner: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class MirrorSummary(SQLModel, table=True):
    """The SDK's own running summary of a mirrored session (opaque to us; the SDK folds it)."""

    __tablename__ = "mirror_summary"

    sdk: str = Field(primary_key=True)
    project_key: str = Field(primary_key=True)
    session_id: str = Field(primary_key=True)
    written: float
    data: str = Field(sa_column=Column(Text, nullable=False))  # JSON
    # the newest main-transcript row folded into `data` (folded behind the appends: adapters.claude)
    folded_to: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    # a team store's rules (sessionscope.safety.team): the login that wrote it (PostgreSQL: session_user; "" on SQLite)
    owner: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class Star(SQLModel, table=True):
    """A session the user starred (#33): the user's own mark, kept apart from the session's row, which
    importers write, so no rescan touches it."""

    __tablename__ = "star"

    session_id: str = Field(primary_key=True)
    starred_at: float


class Pin(SQLModel, table=True):
    """An event the user pinned (#33), in the session they pinned it from (an event of a fork's shared
    history belongs to its origin): the user's own mark, never touched by a rescan."""

    __tablename__ = "pin"

    event_id: str = Field(primary_key=True)
    session_id: str = Field(index=True)
    pinned_at: float


class Note(SQLModel, table=True):
    """A note the user wrote (#33, Markdown) on a session or on one of its events: the user's own durable
    fact, kept apart from what importers write, so no rescan, archive or write-back touches it."""

    __tablename__ = "note"

    id: str = Field(primary_key=True)
    session_id: str = Field(index=True)
    event_id: Optional[str] = Field(default=None, index=True)  # None: a note on the whole session
    text: str = Field(sa_column=Column(Text, nullable=False))
    created_at: float
    updated_at: float
    generated_by: Optional[str] = None  # the model that wrote it when the user asked for a summary; None: the user


class Embedding(SQLModel, table=True):
    """Where one text lies in meaning (#34, search by meaning): the vector the local model made of an event's
    or a note's text (sessionscope.recall.semantic). Derived, like the text index: made again when the model changes."""

    __tablename__ = "embedding"
    # ids never used again (SQLite's AUTOINCREMENT; a sequence elsewhere): (count, newest id) then tells a
    # search's cache every change, a vector gone and another made included
    __table_args__ = {"sqlite_autoincrement": True}

    id: Optional[int] = Field(default=None, primary_key=True)  # the order they were made: a search's cache reads on
    session_id: str = Field(index=True)
    event_pk: Optional[int] = Field(default=None, index=True)  # the event's row (event.pk), or
    note_id: Optional[str] = Field(default=None, index=True)  # the note's id
    vector: bytes  # one signed byte a dimension, then the float32 scale (sessionscope.recall.semantic.pack)


class LiveSignal(SQLModel, table=True):
    """What a tool's hook last said of one of its sessions (#35, `sessionscope hook`): the exact state its
    lines can only suggest (a permission prompt open, the turn ended, the session closed). One row a session,
    the newest signal winning; keyed by the tool's own session id, since a hook can fire before the session's
    first line is imported. Written by the hook through sqlite3 alone (sessionscope.live.hook), so kept flat."""

    __tablename__ = "live_signal"
    __table_args__ = (UniqueConstraint("tool", "tool_session"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    tool: str  # the source kind: claude_code, codex, gemini
    tool_session: str  # the tool's session id (untrusted: from the hook's input)
    event: str  # the hook's event name (PermissionRequest, Stop, AfterAgent, agent-turn-complete, ...)
    detail: str = ""  # what it said: the permission asked for, the notification's message, the last reply
    ts: float  # when the hook ran
    pid: Optional[int] = None  # the tool's process that ran the hook, when it could be told
    # a team store's rules (sessionscope.safety.team): the login that wrote it (PostgreSQL: session_user; "" on SQLite)
    owner: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))


class ProjectShare(SQLModel, table=True):
    """A team store member's choice to share every session of one project with the team (sessionscope.safety.team);
    a session is shared one by one with `session.shared`."""

    __tablename__ = "project_share"

    owner: str = Field(primary_key=True)  # the member (database login) whose sessions of `project` are shared
    project: str = Field(primary_key=True)
    shared_at: float


# Core table handles for the bulk and read paths, which skip the ORM for speed.
def _table(model: type[SQLModel]) -> Table:
    """The Core table SQLModel made for `model` (declared on the class at run time, which a type checker does not
    see)."""
    return getattr(model, "__table__")


SOURCE = _table(Source)
SOURCE_FILE = _table(SourceFile)
SESSION = _table(AgentSession)
EVENT = _table(Event)
EVENT_ALIAS = _table(EventAlias)
FACT_SNAPSHOT = _table(FactSnapshot)
AUDIT = _table(AuditEntry)
SETTING = _table(Setting)
OUTLINE_CACHE = _table(OutlineCache)
USAGE_CACHE = _table(UsageCache)
TOOL_CACHE = _table(ToolCache)
VITALS_CACHE = _table(VitalsCache)
FILE_TOUCH = _table(FileTouch)
COMMIT_LINK = _table(CommitLink)
MIRROR_ENTRY = _table(MirrorEntry)
MIRROR_SUMMARY = _table(MirrorSummary)
STAR = _table(Star)
PIN = _table(Pin)
NOTE = _table(Note)
FILE_BLOB = _table(FileBlob)
CHECKPOINT_BACKUP = _table(CheckpointBackup)
PAYLOAD_DICT = _table(PayloadDict)
EMBEDDING = _table(Embedding)
LIVE_SIGNAL = _table(LiveSignal)
PROJECT_SHARE = _table(ProjectShare)
