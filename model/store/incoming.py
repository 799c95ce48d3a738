"""What an importer hands the store: `NewEvent`s and a `SessionInfo` per session, and the ids it draws from names.

Kept apart from sessionscope.store.ingest (which stores them, and imports SQLAlchemy) so that the
process reading transcripts for a big import (sessionscope.sources.claude_code.reader) starts
without loading the store.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class NewEvent:
    """One event as an importer found it; the store assigns seq, depth and hash."""

    id: str
    parent_id: str | None
    ts: float
    kind: str
    role: str | None = None
    text: str = ""
    payload: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    sidechain: bool = False
    agent_id: str | None = None
    activity: bool = True  # False for lines a tool writes by merely opening a session
    head: bool = False  # a candidate for the session's head (main-chain message)
    # parent_id is a logical link (Claude's compaction logicalParentUuid) that may name a line never
    # written: then the event hangs under fallback_parent, or, when that is None, the session's head
    logical_parent: bool = False
    fallback_parent: str | None = None
    # the payload as SQLite keeps it (sessionscope.store.payloads.pack), when the reader process packed it already
    packed: str | bytes | None = None
    # False for a tool's record of the user's own marks (Claude Code's title and tag lines, and the title they set):
    # kept like any line, but not counted among the session's events, so renaming or tagging leaves the count be
    counted: bool = True
    # the API response an assistant line belongs to (event.response_id), when the reader knows it already (it
    # parsed the line): the writer then does not parse the payload again for it
    response_id: str | None = None
    response_known: bool = False

    def __reduce__(self):  # pickled (by the reader process) as its values: 5x faster than the slots' state
        return NewEvent, tuple(getattr(self, f) for f in _NEW_EVENT_FIELDS)


_NEW_EVENT_FIELDS = tuple(NewEvent.__dataclass_fields__)


@dataclass(slots=True)
class SessionInfo:
    """What an importer learned about a session: fields to set, metadata to merge."""

    id: str
    source_id: int
    tool_id: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # title, cwd, git_branch, model, project, …
    meta: dict[str, Any] = field(default_factory=dict)
    forked_from_session: str | None = None
    forked_from_event: str | None = None


def name_id(ns: uuid.UUID, name: str) -> str:
    """`str(uuid.uuid5(ns, name))`, a third of its time: importers draw an id for every event this way (the
    version and variant bits set on the SHA-1's first 16 bytes, then the 8-4-4-4-12 hex form)."""
    n = int.from_bytes(hashlib.sha1(ns.bytes + name.encode("utf-8")).digest()[:16], "big")
    h = "%032x" % (n & _KEEP | _V5)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_KEEP = ~((0xF000 << 64) | (0xC000 << 48))  # the version nibble and the two variant bits, cleared
_V5 = (0x5000 << 64) | (0x8000 << 48)  # version 5, RFC 4122's variant
