"""Compare two branches from where they part: "fork, explore both paths, compare what emerged, decide".

Two heads (two sessions' heads, two branch tips, two events) are walked from the root; where
they share events (a rewind's branches, a store-native fork or a Claude Code fork Sessionscope
wrote, both referencing their origin's prefix), the last shared event is the fork point. A
Claude Code fork made elsewhere (fork_session, `--fork-session`) shares no event: its transcript
holds copies of its origin's lines, each naming the line it copies (`forkedFrom.messageUuid`);
there the fork point is the origin's line its last copy names.
Each side is then what happened after that point: its events, the files its tool calls
changed, its tokens and cost, how long it ran, and its outcome (the last reply).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import orjson

from sessionscope.history import cards
from sessionscope.history.read_models import EventView, FactDiff
from sessionscope.insight import usage

EDITS = cards.EDIT | cards.WRITE | cards.PATCH


@dataclass
class Side:
    session_id: str
    head: str
    title: str
    events: list[EventView] = field(default_factory=list)  # after the fork point, in reading order
    files: list[str] = field(default_factory=list)  # changed by its tool calls, first change first
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None  # None: no model it used has a price
    seconds: float = 0.0  # from the fork point's time (or its first event) to its last event
    outcome: str = ""  # its last reply

    @property
    def prompts(self) -> int:
        return sum(1 for e in self.events if e.kind == "message" and e.role == "user" and not e.sidechain)


@dataclass
class Comparison:
    fork_point: EventView | None  # the last event both share (or the origin's line a fork copied last)
    shared: int  # events before the sides part
    a: Side
    b: Side
    facts: FactDiff


def _copied_from(e: EventView) -> str | None:
    if '"forkedFrom"' not in e.payload:
        return None
    try:
        forked = orjson.loads(e.payload).get("forkedFrom")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return forked.get("messageUuid") if isinstance(forked, dict) else None


def split_point(pa: list[EventView], pb: list[EventView]) -> tuple[int, int]:
    """(i, j): the sides are pa[i+1:] and pb[j+1:]; (-1, -1) when they share nothing."""
    in_b = {e.id: j for j, e in enumerate(pb)}
    i = max((k for k, e in enumerate(pa) if e.id in in_b), default=-1)
    if i >= 0:
        return i, in_b[pa[i].id]
    for first, second, flip in ((pa, pb, False), (pb, pa, True)):  # one side a copy of the other's prefix
        index = {e.id: k for k, e in enumerate(first)}
        copies = [(k, index[o]) for k, e in enumerate(second) if (o := _copied_from(e)) in index]
        if copies:
            k, origin = copies[-1]
            return (k, origin) if flip else (origin, k)
    return -1, -1


def _side(store, session_id: str, head: str, events: list[EventView], since: float) -> Side:
    s = store.session(session_id)
    side = Side(session_id, head, s.title or session_id[:8], events)
    seen: dict[str, None] = {}
    priced = False
    total = 0.0
    for e in events:
        side.tokens_in += e.tokens_in
        side.tokens_out += e.tokens_out
        if e.kind == "tool_call":
            for c in cards.calls(e.payload):
                path = cards.path_of(c.args)
                if c.name.lower() in EDITS:
                    for p in [path] if path else cards.patched_files(c):
                        seen.setdefault(p, None)
        if (e.tokens_in or e.tokens_out) and '"forkedFrom"' not in e.payload:
            model, *parts = usage.split(e.payload, e.tokens_in, e.tokens_out)
            c = usage.cost(model or s.model, dt.date.fromtimestamp(e.ts or 0).isoformat(), parts)
            if c is not None:
                total, priced = total + c, True
        if e.kind == "message" and e.role == "assistant" and e.text.strip() and not e.sidechain:
            side.outcome = e.text
    side.files = list(seen)
    side.cost = total if priced else None
    if events:
        start = min(since, events[0].ts) if since else events[0].ts  # (a copied clock can run behind)
        side.seconds = max(0.0, events[-1].ts - start)
    return side


def compare(store, a: tuple[str, str | None], b: tuple[str, str | None]) -> Comparison:
    """Compare (session, head) A with B; a head of None is the session's own head."""
    (sa_, ha), (sb_, hb) = a, b
    ha = ha or store.session(sa_).head_event_id
    hb = hb or store.session(sb_).head_event_id
    pa = store.branch_view(sa_, ha) if ha else []
    pb = store.branch_view(sb_, hb) if hb else []
    i, j = split_point(pa, pb)
    point = pa[i] if i >= 0 else None
    since = point.ts if point is not None else 0.0
    side_a = _side(store, sa_, ha or "", pa[i + 1:], since)
    side_b = _side(store, sb_, hb or "", pb[j + 1:], since)
    facts = store.diff(ha, hb) if ha and hb else FactDiff({}, {}, {})
    return Comparison(point, i + 1, side_a, side_b, facts)
