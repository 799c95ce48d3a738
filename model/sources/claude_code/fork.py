"""The lines of a Claude Code fork that ends where the user clicked.

"Fork at E" keeps the branch up to E (Store.branch_view with a head ends there):
what `claude_agent_sdk.fork_session(up_to_message_id=E)` keeps when no sibling
branch lies before the cut, in the same order with the same content and new
uuids. Two things are added, each only where the cut alone would give a
transcript the API refuses, and `ForkPlan` says which happened:

- E is a thinking block whose reply goes on in later lines of the same API
  response (Claude Code writes one line per content block): a reply of thinking
  alone cannot be sent back, so the fork runs on to the first line of that
  response that is not thinking.
- A tool call of the last reply has its result after the cut: it is closed as
  Claude Code closes a call the user interrupts (an `is_error` tool_result with
  its cancel message, then "[Request interrupted by user for tool use]"), so the
  fork opens and continues in `claude --resume`.

The copied lines are rewritten without decoding what they carry: each line is
read as its top-level keys over raw JSON values (msgspec), the envelope is
changed and the rest written back byte for byte (an 85 MB session: 0.07 s,
where decoding and re-encoding it whole took 0.6 s).
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import dataclass, field

import msgspec
import orjson
import sqlalchemy as sa

from sessionscope.errors import Refused
from sessionscope.store import payloads
from sessionscope.store.api import Store
from sessionscope.store.schema import EVENT, EVENT_ALIAS, SESSION

# What Claude Code writes when the user interrupts a tool call (seen in the corpus).
CANCEL_MESSAGE = ("The user doesn't want to take this action right now. STOP what you are doing and "
                  "wait for the user to tell you how to proceed.")
INTERRUPT_MESSAGE = "[Request interrupted by user for tool use]"
KEEP_KINDS = ("message", "tool_call", "tool_result", "thinking", "compaction", "compaction_summary",
              "system", "attachment", "context")
_DROP_FIELDS = ("teamName", "agentName", "slug", "sourceToolAssistantUUID")
_ENVELOPE = ("userType", "cwd", "version", "gitBranch", "entrypoint")


_LINE = msgspec.json.Decoder(dict[str, msgspec.Raw])  # a line's top-level keys, their values left as JSON
_ENCODE = msgspec.json.Encoder().encode
_NULL, _FALSE = msgspec.Raw(b"null"), msgspec.Raw(b"false")


@dataclass
class ForkPlan:
    """A fork's new session id and lines, and what was added beyond the cut (for the UI)."""

    session_id: str
    lines: list[bytes]  # the transcript, a JSON object a line (no newlines)
    ends_at: str  # the original event the fork's history ends at
    copies: list[tuple[str, str]]  # (a copied line's new uuid, the event it copies): the first lines, in order
    extended: list[str] = field(default_factory=list)  # lines after E kept to finish a thinking-only reply
    interrupted: list[str] = field(default_factory=list)  # tool_use ids closed as interrupted

    @property
    def exact(self) -> bool:
        """True when the fork holds exactly the branch up to E (what fork_session would write)."""
        return not self.extended and not self.interrupted

    def describe(self) -> str:
        """One sentence for the status bar / CLI about what the fork holds beyond the cut."""
        parts = []
        if self.extended:
            parts.append(f"kept {len(self.extended)} more line(s) of the same reply (a reply of thinking alone "
                         "cannot be resumed)")
        if self.interrupted:
            parts.append(f"closed {len(self.interrupted)} tool call(s) whose result came after the cut as "
                         "interrupted, as Claude Code does")
        return "; ".join(parts)


@dataclass(slots=True)
class _Row:
    """A branch event as the fork needs it: its line as raw bytes, decoded only where it must be."""

    id: str
    parent_id: str | None
    session_id: str
    seq: int
    kind: str
    role: str | None
    sidechain: bool
    line: bytes
    keys: dict[str, msgspec.Raw] | None = None  # the line's top-level keys (set for the lines copied)

    def entry(self) -> dict | None:
        """The whole line decoded (for the few lines whose content the fork looks into)."""
        try:
            obj = orjson.loads(self.line)
        except orjson.JSONDecodeError:
            return None
        return obj if isinstance(obj, dict) else None


def _rows(conn, ids: list[str]) -> list[_Row]:
    """The events `ids`, in that order, with the payloads of the lines a fork copies as UTF-8 bytes (never
    decoded to text); the others' (progress lines, most of a recent transcript) are not read at all."""
    found: dict[str, _Row] = {}
    kinds = ", ".join(f"'{k}'" for k in KEEP_KINDS)
    if conn.dialect.name == "sqlite":  # raw driver: the compressed payloads are decompressed, not decoded
        sql = (f"SELECT id, parent_id, session_id, seq, kind, role, sidechain, CASE WHEN kind IN ({kinds}) "
               "AND sidechain = 0 THEN payload END FROM event WHERE id IN (SELECT value FROM json_each(?))")
        for i in range(0, len(ids), 20_000):
            for r in conn.connection.driver_connection.execute(sql, (json.dumps(ids[i:i + 20_000]),)):
                found[r[0]] = _Row(*r[:6], bool(r[6]), payloads.unpack_bytes(r[7]))
    else:
        payload = sa.case((sa.and_(EVENT.c.kind.in_(KEEP_KINDS), EVENT.c.sidechain.is_(False)), EVENT.c.payload))
        cols = (EVENT.c.id, EVENT.c.parent_id, EVENT.c.session_id, EVENT.c.seq, EVENT.c.kind, EVENT.c.role,
                EVENT.c.sidechain, payload)
        for i in range(0, len(ids), 500):
            for r in conn.execute(sa.select(*cols).where(EVENT.c.id.in_(ids[i:i + 500]))):
                found[r[0]] = _Row(*r[:6], bool(r[6]), (r[7] or "").encode("utf-8", "surrogatepass"))
    return [found[i] for i in ids if i in found]


def _branch_rows(store: Store, session_id: str, up_to: str) -> list[_Row]:
    """The branch up to `up_to` (Store.branch_view with a head), light. At the session's head it
    comes from the cached outline, less what its own session wrote after the head (which is all
    a walk that ends there leaves out): no walk of the session's events."""
    with store.reader() as conn:
        head = conn.execute(sa.select(SESSION.c.head_event_id).where(SESSION.c.id == session_id)).scalar()
    if up_to != head:
        return _read(store, store.branch_ids(session_id, head=up_to))
    rows = _read(store, store.branch_ids(session_id))
    cut = next((r for r in rows if r.id == up_to), None)
    if cut is None:
        return _read(store, store.branch_ids(session_id, head=up_to))
    return [r for r in rows if r.session_id != cut.session_id or r.seq <= cut.seq]


def _read(store: Store, ids: list[str]) -> list[_Row]:
    with store.reader() as conn:
        return _rows(conn, ids)


def _blocks(entry: dict) -> list[dict]:
    msg = entry.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _response_id(entry: dict) -> str | None:
    msg = entry.get("message")
    mid = msg.get("id") if isinstance(msg, dict) and entry.get("type") == "assistant" else None
    return mid if isinstance(mid, str) and mid else None


def _thinking_only(entry: dict) -> bool:
    blocks = _blocks(entry)
    return entry.get("type") == "assistant" and bool(blocks) and all(b.get("type") == "thinking" for b in blocks)


def _rest_of_reply(store: Store, cut: _Row, entry: dict) -> list[_Row]:
    """The lines after a thinking-only `cut` up to the first one of its response that is not thinking."""
    response = _response_id(entry)
    if response is None:
        return []
    with store.reader() as conn:
        ids = conn.execute(sa.select(EVENT.c.id).where(
            EVENT.c.session_id == cut.session_id, EVENT.c.seq > cut.seq, EVENT.c.sidechain.is_(False),
            EVENT.c.role == "assistant").order_by(EVENT.c.seq).limit(64)).scalars().all()
        later_rows = _rows(conn, list(ids))
    out = []
    for row in later_rows:
        later = row.entry()
        if later is None or _response_id(later) != response:
            continue
        out.append(row)
        if not _thinking_only(later):
            return out
    return []  # the reply never went past thinking (interrupted): nothing to finish it with


def _last_reply(rows: list[_Row]) -> tuple[int, list[dict]]:
    """(index of the first line of the last API response, every line from there decoded): where a
    call can be left open. A response's lines are written together, so reading back stops at an
    assistant line of another response; only assistant lines are decoded on the way."""
    last, start = None, len(rows)
    for i in range(len(rows) - 1, -1, -1):
        if rows[i].role == "assistant" and (rid := _response_id(rows[i].entry() or {})):
            if last is not None and rid != last:
                break
            last, start = rid, i
    return start, [r.entry() or {} for r in rows[start:]]


def _unanswered_calls(entries: list[dict]) -> list[tuple[int, str]]:
    """(index of the line, tool_use id) of the last reply's calls that have no result in `entries`."""
    answered = {b.get("tool_use_id") for x in entries for b in _blocks(x) if b.get("type") == "tool_result"}
    last_response = next((_response_id(x) for x in reversed(entries) if _response_id(x)), None)
    if last_response is None:
        return []
    out = []
    for i, x in enumerate(entries):
        if _response_id(x) != last_response:
            continue
        for b in _blocks(x):
            if b.get("type") == "tool_use" and isinstance(b.get("id"), str) and b["id"] not in answered:
                out.append((i, b["id"]))
    return out


def _timestamp() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text(raw: msgspec.Raw | None) -> str | None:
    """The string a raw JSON value holds (None for any other value)."""
    if raw is None or memoryview(raw)[:1] != b'"':
        return None
    try:
        value = orjson.loads(memoryview(raw))
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def _json(value) -> msgspec.Raw:
    return msgspec.Raw(orjson.dumps(value))


def _aliases(conn, session_ids: set[str]) -> dict[str, str]:
    """{a copied line's uuid: the event it copies} in these sessions (forks Sessionscope wrote): a line
    appended to such a fork names its parent by the copy's uuid."""
    return dict(conn.execute(sa.select(EVENT_ALIAS.c.id, EVENT_ALIAS.c.event_id)
                             .where(EVENT_ALIAS.c.session_id.in_(session_ids))).all())


def copied_lines(rows: list[_Row], parent_of: dict[str, str | None], aliases: dict[str, str], mapping: dict[str, str],
                 new_id: str, origin: str, stamp_last: str | None) -> list[bytes]:
    """The fork's copies of `rows` (each decoded to its top-level keys): a new uuid each (`mapping`, by
    event id), the parent the nearest kept ancestor, `forkedFrom` naming the line copied, the last line
    stamped `stamp_last` when given (fork_session stamps it: Claude Code finds the leaf by it)."""
    kept = {r.id for r in rows}
    uuids = {_text(r.keys.get("uuid")): mapping[r.id] for r in rows}
    uuids.pop(None, None)
    out = []
    for i, r in enumerate(rows):
        d = dict(r.keys)
        parent = _text(d.get("parentUuid"))
        parent = aliases.get(parent, parent)
        while parent and parent not in kept:  # skip progress and other dropped ancestors
            parent = parent_of.get(parent)
        logical = d.get("logicalParentUuid")
        logical_text = _text(logical)
        logical_text = aliases.get(logical_text, logical_text)
        copied = d.get("uuid")
        d["uuid"] = _json(mapping[r.id])
        d["parentUuid"] = _json(uuids.get(parent)) if parent else _NULL
        d["logicalParentUuid"] = _json(uuids.get(logical_text)) if logical_text else logical or _NULL
        d["sessionId"] = _json(new_id)
        d["isSidechain"] = _FALSE
        if i == len(rows) - 1 and stamp_last:
            d["timestamp"] = _json(stamp_last)
        elif "timestamp" not in d:
            d["timestamp"] = _json(stamp_last or _timestamp())
        d["forkedFrom"] = {"sessionId": origin, "messageUuid": copied if copied is not None else _NULL}
        for key in _DROP_FIELDS:
            d.pop(key, None)
        out.append(_ENCODE(d))
    return out


def plan_fork(store: Store, session_id: str, up_to: str, title: str | None = None) -> ForkPlan:
    """The lines of a fork ending at `up_to`: its branch only, never a sibling branch or a later line."""
    at = store.event(up_to)
    if at.sidechain:
        raise Refused(f"event #{at.seq} is part of a subagent's run{f' (agent {at.agent_id})' if at.agent_id else ''}, "
                      "which Claude Code cannot resume as a session of its own: fork at the tool call that started "
                      "the run, or at any event of the main conversation")
    branch = _branch_rows(store, session_id, up_to)
    cut = next((r for r in branch if r.id == up_to), None)
    extended: list[_Row] = []
    if cut is not None and (entry := cut.entry()) is not None and _thinking_only(entry):
        extended = _rest_of_reply(store, cut, entry)
    rows = []
    for r in branch + extended:
        if r.kind in KEEP_KINDS and not r.sidechain and r.line.startswith(b"{"):
            try:
                r.keys = _LINE.decode(r.line)
            except msgspec.DecodeError:
                continue
            rows.append(r)
    if not rows:
        raise Refused(f"nothing to fork in session {session_id} up to {up_to}")
    start, tail = _last_reply(rows)
    open_calls = [(start + i, call) for i, call in _unanswered_calls(tail)]
    mapping = {r.id: str(uuid.uuid4()) for r in rows}
    new_id = str(uuid.uuid4())
    now = _timestamp()
    with store.reader() as conn:
        aliases = _aliases(conn, {r.session_id for r in rows})
    lines = copied_lines(rows, {r.id: r.parent_id for r in branch + extended}, aliases, mapping, new_id, session_id,
                         None if open_calls else now)
    last = rows[-1].entry() or {}
    # what the fork adds (the interruption of calls left open, its title) happened at the cut, not today: a
    # fork of a year-old session does not "run for a year" (the last copy alone is stamped now, as the SDK does)
    cut = last["timestamp"] if isinstance(last.get("timestamp"), str) and last["timestamp"] else now
    if open_calls:
        lines += _interruption(last, [(mapping[rows[i].id], call) for i, call in open_calls],
                               mapping[rows[-1].id], new_id, cut)
    s = store.session(session_id)
    name = title.strip() if title and title.strip() else f"{s.title or 'Forked session'} (fork)"
    lines.append(orjson.dumps({"type": "custom-title", "sessionId": new_id, "customTitle": name,
                               "uuid": str(uuid.uuid4()), "timestamp": cut}))
    return ForkPlan(new_id, lines, rows[-1].id, [(mapping[r.id], r.id) for r in rows],
                    [r.id for r in extended], [call for _, call in open_calls])


def copies_of(store: Store, session_id: str) -> list[bytes]:
    """A fork's copied lines written out again from the events they reference (`event_alias`), as
    plan_fork wrote them (all but the last line's time of the fork): what `restore` writes for them."""
    with store.reader() as conn:
        pairs = conn.execute(sa.select(EVENT_ALIAS.c.id, EVENT_ALIAS.c.event_id)
                             .where(EVENT_ALIAS.c.session_id == session_id)
                             .order_by(EVENT_ALIAS.c.position)).all()
        if not pairs:  # not a fork Sessionscope wrote: nothing of it is kept as references
            return []
        origin = conn.execute(sa.select(SESSION.c.forked_from_session).where(SESSION.c.id == session_id)).scalar()
        rows = _rows(conn, [event_id for _, event_id in pairs])
        sessions = {r.session_id for r in rows}
        # a parent a copy skipped (a progress line) is found through the origin's events
        parent_of = dict(conn.execute(sa.select(EVENT.c.id, EVENT.c.parent_id)
                                      .where(EVENT.c.session_id.in_(sessions))).all())
        aliases = _aliases(conn, sessions)
    for r in rows:
        r.keys = _LINE.decode(r.line)
    mapping = {event_id: alias for alias, event_id in pairs}
    return copied_lines(rows, parent_of, aliases, mapping, session_id, origin or "", None)


def _interruption(last: dict, open_calls: list[tuple[str, str]], last_uuid: str, new_id: str, now: str) -> list[bytes]:
    """What Claude Code writes when the user interrupts tool calls: one cancelled result per
    call (naming the line that made it), then the interruption notice (the lines carry no
    forkedFrom: they are not copies)."""
    envelope = {k: last[k] for k in _ENVELOPE if k in last}
    out, parent = [], last_uuid
    for call_line, tool_use_id in open_calls:
        line = {"parentUuid": parent, "isSidechain": False, **envelope, "sessionId": new_id, "type": "user",
                "message": {"role": "user", "content": [{"type": "tool_result", "content": CANCEL_MESSAGE,
                                                         "is_error": True, "tool_use_id": tool_use_id}]},
                "uuid": str(uuid.uuid4()), "timestamp": now, "toolUseResult": f"Error: {CANCEL_MESSAGE}",
                "sourceToolAssistantUUID": call_line}
        out.append(orjson.dumps(line))
        parent = line["uuid"]
    notice = {"parentUuid": parent, "isSidechain": False, **envelope, "sessionId": new_id, "type": "user",
              "message": {"role": "user", "content": [{"type": "text", "text": INTERRUPT_MESSAGE}]},
              "uuid": str(uuid.uuid4()), "timestamp": now}
    out.append(orjson.dumps(notice))
    return out
