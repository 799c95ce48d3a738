"""How an import's events hang together: links kept as written, whatever order the lines came in.

A tool may write a line before the line it names as its parent (Claude Code runs hooks concurrently: a
`task_reminder` attachment can name a `hook_success` attachment written 10 ms later). Claude Code's own reader
joins lines by uuid, not by position, so the store keeps every link as written:

- a parent later in the same batch is simply linked (depths are counted down the tree, not in file order);
- a parent not written yet *waits*: the event keeps `parent_id` as written (a link to nothing for now) and the
  session's meta lists it under `links_waiting`; the batch that brings the parent re-links the child by counting
  its subtree's depths again. `parent_id` and the hash chain never change (the chain hashes `parent_id` as
  written, in append order), so a file read in two scans gives the same store as one scan;
- only a link that would close a loop (damaged files) is cut, and said.

The session's head follows Claude Code's leaf: the last-written main-chain line with no main-chain line under it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.store.incoming import NewEvent
from sessionscope.store.schema import EVENT

WAITING_KEY = "links_waiting"
WAITING_MOST = 2_000  # links kept waiting a session; past that a link still resolves, its depth stays an estimate
_WALK_MOST = 100_000  # a guard on walks up stored chains while looking for a loop


def cut_loops(fresh: list[NewEvent], waiting: dict[str, str], parent_of_stored: Callable[[str], str | None],
              problems: list[str] | None) -> None:
    """Cut the links of `fresh` that would close a loop: within the batch, or through a stored event waiting for
    a parent the batch brings (`waiting`: stored child → the parent it names)."""
    in_batch = {e.id: e for e in fresh}
    place = {e.id: k for k, e in enumerate(fresh)}
    state: dict[str, int] = {}  # 1: on the walk now, 2: known to reach a root
    for start in fresh:
        walk: list[NewEvent] = []
        e: NewEvent | None = start
        while e is not None and e.id not in state:
            state[e.id] = 1
            walk.append(e)
            e = in_batch.get(e.parent_id) if e.parent_id else None
        if e is not None and state.get(e.id) == 1:  # back on this walk: a loop from e round to e
            loop = walk[walk.index(e):]
            # the link of the line that closed the loop, the last written of it: what a second scan would cut,
            # its first lines being stored already (so a file read in two scans is stored as in one)
            _cut(max(loop, key=lambda x: place[x.id]), problems)
        for x in walk:
            state[x.id] = 2
    for child, parent in waiting.items():
        if parent not in in_batch:
            continue
        cur: str | None = parent
        steps, mine = 0, cast(list[str], [])  # (mine: the batch's ids walked up, in order)
        while cur is not None and steps < _WALK_MOST:  # up from the parent: does the stored child lie above it?
            if cur == child:  # a loop: its last-written line's link is cut (a fresh one: the stored came first)
                _cut(in_batch[max(mine, key=place.__getitem__)], problems)
                break
            steps += 1
            if cur in in_batch:
                mine.append(cur)
                cur = in_batch[cur].parent_id
            else:
                cur = parent_of_stored(cur)


def _cut(e: NewEvent, problems: list[str] | None) -> None:
    if problems is not None:
        problems.append(f"parentUuid of {e.id} names {e.parent_id}, which lies under it (a cycle): cut")
    e.parent_id = None


def depths(fresh: list[NewEvent], stored: dict[str, Any]) -> dict[str, int]:
    """Each fresh event's depth: its parent's plus one, the parent stored or anywhere in the batch; 0 for a root
    or an event whose parent is not written yet (it waits)."""
    in_batch = {e.id: e for e in fresh}
    out: dict[str, int] = {}
    for start in fresh:
        walk = []
        e = start
        while e.id not in out:
            walk.append(e)
            p = e.parent_id
            if p in in_batch and p not in out:
                e = in_batch[p]
                continue
            break
        for x in reversed(walk):
            p = x.parent_id
            out[x.id] = (out[p] + 1 if p in out else stored[p] + 1 if p in stored and stored[p] is not None
                         else 0)
    return out


def waiting_now(fresh: list[NewEvent], stored: dict[str, Any], before: dict[str, str]) -> dict[str, str]:
    """The session's links still waiting after this batch: those before it whose parent did not come, and the
    batch's own whose parent is neither stored nor in the batch."""
    ids = {e.id for e in fresh}
    out = {c: p for c, p in before.items() if p not in ids}
    for e in fresh:
        if e.parent_id and e.parent_id not in ids and e.parent_id not in stored and len(out) < WAITING_MOST:
            out[e.id] = e.parent_id
    return out


def relink(conn: Connection, child: str, depth: int) -> None:
    """A stored event whose parent came: its subtree's depths counted from `depth` (its own new depth)."""
    old = conn.execute(sa.select(EVENT.c.depth).where(EVENT.c.id == child)).scalar()
    if old is None or old == depth:
        return
    sub = sa.select(EVENT.c.id).where(EVENT.c.id == child).cte("sub", recursive=True)
    sub = sub.union(sa.select(EVENT.c.id).join(sub, EVENT.c.parent_id == sub.c.id))
    conn.execute(EVENT.update().where(EVENT.c.id.in_(sa.select(sub.c.id))).values(depth=EVENT.c.depth + (depth - old)))


def head(events: list[NewEvent], fresh_ids: set[str], parent_of: dict[str, str | None], self_linked: set[str],
         under_stored: set[str]) -> str | None:
    """The batch's new head, as Claude Code finds its leaf: of the main-chain lines (`head`), the last written (a
    line written again counts where it was written last) that no main-chain line hangs under, in the batch or
    stored (`under_stored`: fresh events a stored main-chain line waited for). A line that names itself as its
    parent counts as one with a line under it (Claude Code's reader never takes it for a leaf). None: none."""
    covered: set[str] = set(self_linked)

    def cover_above(p: str | None) -> None:
        while p is not None and p not in covered:
            covered.add(p)
            p = parent_of.get(p)

    for e in events:
        if e.head:
            cover_above(parent_of.get(e.id, e.parent_id) if e.id in fresh_ids else e.parent_id)
    for p in under_stored:
        cover_above(p)
    for e in reversed(events):
        if e.head and e.id in fresh_ids and e.id not in covered:
            return e.id
    return None
