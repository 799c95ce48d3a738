"""A branch as a reader sees it: the path root→head plus the artifacts beside it.

The parent path alone drops parts of a turn: a reply with parallel tool calls is
written as chained assistant lines whose results each hang under their own call,
and the conversation continues from only one of them. Those side lines are not
a user's branch, so they belong in the branch. A real branch (a rewind: another
user prompt under the same parent) is left out: it starts with a user prompt.
"""

from __future__ import annotations

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .reading import path_events
from .schema import EVENT
from .views import EventView

_CHUNK = 500


def _is_artifact(kind: str, role: str | None) -> bool:
    return (kind in ("tool_call", "tool_result", "thinking", "progress", "attachment")
            or (kind == "message" and role == "assistant"))


def branch_view(conn: Connection, head: str) -> list[EventView]:
    """The path to `head` with the side lines of its turns, in file order per session."""
    path = path_events(conn, head)
    on_path = {e.id for e in path}
    position = {e.id: i for i, e in enumerate(path)}
    artifacts: list[tuple[int, EventView]] = []  # (position of the path event it hangs from, event)
    frontier = {e.id: position[e.id] for e in path}
    seen = set(on_path)
    while frontier:
        nxt: dict[str, int] = {}
        ids = list(frontier)
        for i in range(0, len(ids), _CHUNK):
            rows = conn.execute(
                sa.select(EVENT).where(EVENT.c.parent_id.in_(ids[i:i + _CHUNK]), EVENT.c.sidechain.is_(False))
            ).all()
            for r in rows:
                ev = EventView.from_row(r)
                if ev.id in seen or not _is_artifact(ev.kind, ev.role):
                    continue
                seen.add(ev.id)
                root = frontier[ev.parent_id]
                artifacts.append((root, ev))
                nxt[ev.id] = root
        frontier = nxt
    if not artifacts:
        return path
    # A side line goes after the last path line of its response (as claude-agent-sdk
    # places recovered parallel tool calls and results); a result follows its call.
    last_of_response: dict[str, int] = {}
    for pos, e in enumerate(path):
        m = _response_id(e)
        if m:
            last_of_response[m] = pos
    placed: dict[str, int] = {}
    keyed = [(pos, 0, e.seq, e) for pos, e in enumerate(path)]
    for root, a in sorted(artifacts, key=lambda t: t[1].seq):
        m = _response_id(a)
        if m in last_of_response:
            anchor = last_of_response[m]
        elif a.parent_id in placed:
            anchor = placed[a.parent_id]
        elif a.parent_id in position and _response_id(path[position[a.parent_id]]) in last_of_response:
            anchor = last_of_response[_response_id(path[position[a.parent_id]])]
        else:
            anchor = root
        placed[a.id] = anchor
        keyed.append((anchor, 1, a.seq, a))
    keyed.sort(key=lambda t: t[:3])
    return [t[3] for t in keyed]


def _response_id(e: EventView) -> str | None:
    """The API response an assistant line belongs to (Claude's message.id), if any."""
    if e.role != "assistant" or '"message"' not in e.payload:
        return None
    try:
        msg = orjson.loads(e.payload).get("message")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    mid = msg.get("id") if isinstance(msg, dict) else None
    return mid if isinstance(mid, str) and mid else None
