"""A branch as a reader sees it: the path root→head plus the artifacts beside it.

The parent path alone drops parts of a turn: a reply with parallel tool calls is
written as chained assistant lines whose results each hang under their own call,
and the conversation continues from only one of them. Those side lines are not
a user's branch, so they belong in the branch. A real branch (a rewind: another
user prompt under the same parent) is left out: it starts with a user prompt.

"The branch up to E" (fork, rewind, branch export, a branch picked in the tree)
ends at E: a side line joins it only if it was written before E (in the session's
append order), which is what claude-agent-sdk's `fork_session(up_to_message_id=E)`
keeps when no sibling branch lies before the cut. Where the path crosses into a
session it was forked or continued from, that session's part ends at the last
path event in it, for every branch.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.history.read_models import EventView
from sessionscope.store import gcpause
from sessionscope.store.schema import EVENT, SESSION

_CHUNK = 500


def _is_artifact(row: tuple) -> bool:
    """A line beside the path that is part of its turn. An assistant line counts only when it
    belongs to an API response (Claude splits one reply over several lines); a native log
    writes a reply whole, so a sibling reply there is a rewound alternative, not an artifact."""
    kind, role, response = row[4], row[5], row[6]
    if kind in ("tool_result", "progress", "attachment", "context", "checkpoint"):
        return True
    return bool(response) and (kind in ("tool_call", "thinking") or (kind == "message" and role == "assistant"))


_LIGHT = (EVENT.c.id, EVENT.c.parent_id, EVENT.c.session_id, EVENT.c.seq, EVENT.c.kind, EVENT.c.role)


def _light_rows(conn: Connection, query) -> list[tuple]:
    """(id, parent_id, session_id, seq, kind, role, response id, tokens) without loading payloads."""
    return [tuple(r) for r in conn.execute(query.add_columns(EVENT.c.response_id, EVENT.c.tokens_in + EVENT.c.tokens_out))]


_SESSION_ROWS_SQL = (
    "SELECT id, parent_id, session_id, seq, kind, role, response_id, tokens_in + tokens_out "
    "FROM event WHERE session_id = ? AND sidechain = 0"
)


def _session_rows(conn: Connection, session_id: str) -> list[tuple]:
    if conn.dialect.name == "sqlite":
        # straight from the driver: SQLAlchemy's row objects cost ~5 µs each, 200,000 of them a second;
        # in chunks, because one fetchall of 200,000 rows holds the GIL (and the UI thread) for ~70 ms
        cur = conn.connection.driver_connection.execute(_SESSION_ROWS_SQL, (session_id,))
        rows: list[tuple] = []
        while chunk := cur.fetchmany(2000):
            rows += chunk
        return rows
    return _light_rows(conn, sa.select(*_LIGHT).where(EVENT.c.session_id == session_id,
                                                      EVENT.c.sidechain.is_(False)))


@dataclass(frozen=True)
class Outline:
    """A branch in reading order, light: ids, kinds, and each turn's token cost."""

    ids: list[str]
    kinds: list[str]
    turn_tokens: dict[str, int]  # prompt event id → tokens spent from that prompt to the next
    sidechain: list[bool] = field(default_factory=list)  # a subagent's event


def walk_entries(conn: Connection, head: str, ending_at_head: bool = False) -> list[tuple]:
    """The full walk to `head`: every kind, subagent runs included (what the cache keeps).

    With `ending_at_head`, nothing written after `head` joins it ("the branch up to E");
    without, the head's own session contributes every side line of the path (a session's
    head branch shows the lines written after its last message too)."""
    with gcpause.paused():
        return _walk(conn, head, (), True, ending_at_head)


def _walk(conn: Connection, head: str, skip_kinds: tuple[str, ...] = (),
          include_subagents: bool = False, ending_at_head: bool = False) -> list[tuple]:
    """(id, kind, role, tokens, sidechain) of the path to `head` with the side lines of its
    turns, in reading order.

    `skip_kinds` leaves out kinds a reader rarely wants (progress lines are 70% of
    a recent Claude Code transcript); the walk still passes through them. The walk
    runs in memory over each session's rows (one query a session it crosses): a
    200,000-step recursive query costs seconds, this a fraction of one.
    """
    by_id: dict[str, tuple] = {}
    children: dict[str, list[tuple]] = {}
    loaded: set[str] = set()

    def load(session_id: str) -> None:
        loaded.add(session_id)
        for r in _session_rows(conn, session_id):
            by_id[r[0]] = r
            if r[1]:
                children.setdefault(r[1], []).append(r)

    start = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == head)).scalar()
    if start is None:
        return []
    load(start)
    if head not in by_id:  # the head is a sidechain event: a session of subagent work alone
        q = sa.select(EVENT.c.id, EVENT.c.kind, EVENT.c.role, EVENT.c.tokens_in + EVENT.c.tokens_out, EVENT.c.seq) \
            .where(EVENT.c.session_id == start, EVENT.c.sidechain.is_(True)).order_by(EVENT.c.seq)
        rows = conn.execute(q).all()
        last = next((r[4] for r in rows if r[0] == head), None) if ending_at_head else None
        return [(r[0], r[1], r[2], r[3], True) for r in rows
                if (last is None or r[4] <= last) and r[1] not in skip_kinds
                and (include_subagents or r[0] == head)]
    path: list[tuple] = []
    seen: set[str] = set()
    cur: str | None = head
    while cur is not None and cur not in seen:
        row = by_id.get(cur)
        if row is None:
            owner = conn.execute(sa.select(EVENT.c.session_id).where(EVENT.c.id == cur)).scalar()
            if owner is None or owner in loaded:
                break
            load(owner)
            row = by_id.get(cur)
            if row is None:
                break
        seen.add(cur)
        path.append(row)
        cur = row[1]
    path.reverse()
    position = {r[0]: i for i, r in enumerate(path)}
    # the last seq each session may contribute: the path's last event in it (see the module doc)
    cut: dict[str, float] = {}
    for r in path:
        cut[r[2]] = max(cut.get(r[2], 0), r[3])
    if not ending_at_head:
        cut[start] = float("inf")
    artifacts: list[tuple[int, tuple]] = []  # (position of the path event it hangs from, row)
    frontier = [(r[0], position[r[0]]) for r in path]
    visited = set(position)
    # an assistant line beside the path is part of a reply on the path (a parallel call written after the one the
    # conversation went on from); a reply of its own beside the path is another branch (claude-agent-sdk's chain
    # takes back only the lines of its own replies)
    replies = {r[6] for r in path if r[6]}
    while frontier:
        nxt = []
        for node, root in frontier:
            for r in children.get(node, ()):
                if r[0] in visited or not _is_artifact(r) or r[3] > cut.get(r[2], 0) or (r[6] and r[6] not in replies):
                    continue
                visited.add(r[0])
                artifacts.append((root, r))
                nxt.append((r[0], root))
        frontier = nxt
    skip = set(skip_kinds)
    # a branch that ends at `head` (a fork's, cut there) holds the subagent work written up to it: a run still
    # going after the cut (an async agent) stops there too
    until = conn.execute(sa.select(EVENT.c.ts).where(EVENT.c.id == head)).scalar() if ending_at_head else None
    runs = _subagent_runs(conn, start, position, path, until) if include_subagents else []
    if not artifacts and not runs:
        return [(r[0], r[4], r[5], r[7], False) for r in path if r[4] not in skip]
    return _in_reading_order(path, position, artifacts, runs, skip)


def _in_reading_order(path: list[tuple], position: dict[str, int], artifacts: list[tuple[int, tuple]],
                      runs: list[tuple], skip: set[str]) -> list[tuple]:
    """The path with its side lines and subagent runs placed among it. A side line goes after the last path line
    of its response (as claude-agent-sdk places recovered parallel tool calls and results); a result follows its
    call; a subagent's run after the event that spawned it."""
    last_of_response = {r[6]: pos for pos, r in enumerate(path) if r[6]}
    placed: dict[str, int] = {}
    keyed = [(pos, 0, r[3], (r[0], r[4], r[5], r[7], False)) for pos, r in enumerate(path) if r[4] not in skip]
    for root, a in sorted(artifacts, key=lambda t: t[1][3]):
        parent_pos = position.get(a[1])
        if a[6] in last_of_response:
            anchor = last_of_response[a[6]]
        elif a[1] in placed:
            anchor = placed[a[1]]
        elif parent_pos is not None and path[parent_pos][6] in last_of_response:
            anchor = last_of_response[path[parent_pos][6]]
        else:
            anchor = root
        placed[a[0]] = anchor
        if a[4] not in skip:
            keyed.append((anchor, 1, a[3], (a[0], a[4], a[5], a[7], False)))
    for anchor, seq, event_id, kind, role, tokens in runs:
        if kind not in skip:
            keyed.append((anchor, 2, seq, (event_id, kind, role, tokens, True)))
    keyed.sort(key=lambda t: t[:3])
    return [t[3] for t in keyed]


def _subagent_runs(conn: Connection, session_id: str, position: dict[str, int], path: list[tuple],
                   until: float | None = None) -> list[tuple]:
    """(anchor position, seq, id, kind, role, tokens) of the subagent events of a session, each run after
    the path event that spawned it: its parent natively, the tool result that names the
    agent for Claude Code subagent transcripts (recorded at import in the session's meta); a run
    that names neither (older Claude Code wrote runs inline, as sidechain lines with no agent id,
    starting from no parent) where it was written: after the last path event written before it."""
    q = sa.select(EVENT.c.id, EVENT.c.parent_id, EVENT.c.seq, EVENT.c.kind, EVENT.c.agent_id,
                  EVENT.c.role, EVENT.c.tokens_in + EVENT.c.tokens_out) \
        .where(EVENT.c.session_id == session_id, EVENT.c.sidechain.is_(True))
    if until is not None:
        q = q.where(EVENT.c.ts <= until)
    rows = conn.execute(q.order_by(EVENT.c.seq)).all()
    if not rows:
        return []
    meta = conn.execute(sa.select(SESSION.c.meta).where(SESSION.c.id == session_id)).scalar() or "{}"
    runs_meta = {agent: info for agent, info in orjson.loads(meta).get("subagents", {}).items() if isinstance(info, dict)}
    spawned = {agent: info.get("spawned_by") for agent, info in runs_meta.items()}
    started = {agent: info["spawned_at"] for agent, info in runs_meta.items()
               if isinstance(info.get("spawned_at"), (int, float))}
    written = sorted((r[3], position[r[0]]) for r in path if r[2] == session_id)  # (seq, position)
    seqs = [w[0] for w in written]

    def by_seq(seq: int) -> int:
        i = bisect.bisect_left(seqs, seq)
        return written[i - 1][1] if i else -1  # -1: before the first path event

    anchors: dict[str | None, int] = {}
    timed: list[tuple[float, int, int]] | None = None  # (read once, for the first run that names when it began)
    run_of: dict[str, str | None] = {}  # event → its run (inline runs have no agent id: a run is a chain)
    out = []
    for event_id, parent, seq, kind, agent, role, tokens in rows:
        run = agent if agent is not None else run_of.get(parent, f"inline:{event_id}")
        run_of[event_id] = run
        if run not in anchors:
            if parent in position:
                anchors[run] = position[parent]
            elif spawned.get(agent) in position:
                anchors[run] = position[spawned[agent]] - 1  # the run comes before the result it produced
            elif agent in started:  # a run in a file of its own (Codex, Gemini) that names only when it began
                if timed is None:
                    timed = _path_by_time(conn, session_id, position)
                anchors[run] = _last_before(timed, started[agent])
            else:
                anchors[run] = by_seq(seq)
        out.append((anchors[run], seq, event_id, kind, role, tokens))
    return out


def _path_by_time(conn: Connection, session_id: str, position: dict[str, int]) -> list[tuple[float, int, int]]:
    """(ts, seq, position) of the session's own path events, in time order (then append order): read once by the
    session's (session_id, seq) index, for every run that names only when it began (the store keeps no index on the
    session and the time: migration 0030)."""
    rows = conn.execute(sa.select(EVENT.c.ts, EVENT.c.seq, EVENT.c.id).where(EVENT.c.session_id == session_id,
                                                                            EVENT.c.sidechain.is_(False)))
    return sorted((ts, seq, position[eid]) for ts, seq, eid in rows if eid in position)


def _last_before(timed: list[tuple[float, int, int]], ts: float) -> int:
    """The position of the last path event written at or before `ts` (-1: none): where a run that names only when
    it began goes."""
    i = bisect.bisect_right(timed, (ts, float("inf")))
    return timed[i - 1][2] if i else -1


def events_by_ids(conn: Connection, ids: list[str]) -> list[EventView]:
    """EventViews for `ids`, in the order given."""
    found: dict[str, EventView] = {}
    for i in range(0, len(ids), _CHUNK):
        for r in conn.execute(sa.select(EVENT).where(EVENT.c.id.in_(ids[i:i + _CHUNK]))):
            found[r.id] = EventView.from_row(r)
    return [found[i] for i in ids if i in found]


_TURN_KINDS = frozenset({"message", "tool_call", "tool_result", "thinking"})


def turn_end(conn: Connection, event_id: str) -> str:
    """The last event of the turn `event_id` is in: reading on from it along its branch (the
    session's head branch if it is on it, else the branch to the newest line under it) until
    the next prompt."""
    row = conn.execute(sa.select(EVENT.c.session_id, SESSION.c.head_event_id).join(
        SESSION, SESSION.c.id == EVENT.c.session_id).where(EVENT.c.id == event_id)).first()
    if row is None:
        return event_id
    entries = walk_entries(conn, row.head_event_id) if row.head_event_id else []
    ids = [e[0] for e in entries]
    if event_id not in ids:
        entries = walk_entries(conn, _newest_leaf_under(conn, row.session_id, event_id), ending_at_head=True)
        ids = [e[0] for e in entries]
    if event_id not in ids:
        return event_id
    end = event_id
    for event, kind, role, _tokens, sidechain in entries[ids.index(event_id) + 1:]:
        if sidechain:
            continue
        if kind == "message" and role == "user":
            break
        if kind in _TURN_KINDS:
            end = event
    return end


def _newest_leaf_under(conn: Connection, session_id: str, event_id: str) -> str:
    """Follow children from `event_id` (the conversation before side lines, the newest first)."""
    children: dict[str, list[tuple]] = {}
    with gcpause.paused():
        for r in _session_rows(conn, session_id):
            if r[1]:
                children.setdefault(r[1], []).append(r)
    cur, seen = event_id, {event_id}
    while True:
        nxt = [r for r in children.get(cur, ()) if r[0] not in seen and r[4] not in ("meta", "opaque", "checkpoint")
               and not r[4].startswith("fact.")]
        if not nxt:
            return cur
        cur = max(nxt, key=lambda r: (r[4] in _TURN_KINDS, r[3]))[0]
        seen.add(cur)
