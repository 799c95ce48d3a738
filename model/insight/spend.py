"""What the agents spent, as the command line says it (`sessionscope usage`): totals, and rows by day, week, month,
session, project, model or tool, each with its models' breakdown; Claude's five-hour billing blocks; the status line.

The rows are the usage report's own (sessionscope.insight.usage: one count per reply, a fork's copied lines left to
their origin, the usage cache, one price table), summed another way. The blocks need each reply's own time, so
they read the replies themselves (`entries`), over the range asked for alone, through the event table's index on
(session, time). The blocks are ccusage's: a block starts at the hour of its first reply and lasts five hours; the
next reply after that, or after five quiet hours, starts the next block (a quiet stretch longer than a block is
a gap). Pure functions over rows, so the window, the command line and the quick reader all say the same.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from sessionscope.insight.tokens import bucket_of, split, unit_prices

BLOCK = 5 * 3600  # Claude's billing window, in seconds
BY = ("total", "day", "week", "month", "session", "project", "model", "tool")


@dataclass
class Line:
    """One row of `usage`: its key (a day, a week's Monday, a month, a session, a project, a model, a tool), tokens
    by kind (input, output, cache read, cache write), dollars, the sessions that spent them, and per model."""

    key: str
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    cost: float = 0.0
    sessions: set[str] = field(default_factory=set)
    models: dict[str, "Line"] = field(default_factory=dict)

    def add(self, sid: str, model: str, parts: list[int], c: float) -> None:
        for i, n in enumerate(parts):
            self.tokens[i] += n
        self.cost += c
        self.sessions.add(sid)

    def as_json(self, breakdown: bool = False) -> dict[str, Any]:
        i, o, r, w = self.tokens
        out: dict[str, Any] = {"key": self.key, "input_tokens": i, "output_tokens": o, "cache_read_tokens": r,
                               "cache_write_tokens": w, "total_tokens": i + o + r + w, "cost": round(self.cost, 6),
                               "sessions": len(self.sessions), "models": sorted(self.models)}
        if breakdown:
            out["breakdown"] = [{"model": m, **{k: v for k, v in line.as_json().items()
                                                if k not in ("key", "models", "sessions")}}
                                for m, line in sorted(self.models.items(), key=lambda kv: -kv[1].cost)]
        return out


@dataclass
class Table:
    by: str
    lines: list[Line]
    total: Line
    unpriced: dict[str, int]  # model → tokens spent with no price known


def _key(by: str, day: str, sid: str, model: str, project: str, kind: str) -> str:
    if by in ("day", "week", "month"):
        key = bucket_of(day, by)
        return key[:7] if by == "month" else key
    return {"total": "all", "session": sid, "project": project or "(no project)", "model": model or "(unknown model)",
            "tool": kind}[by]


def table(usage: dict[str, list[list]], info: dict[str, tuple], *, by: str = "total", since: str = "", until: str = "",
          tool: str | None = None, project: str | None = None) -> Table:
    """`usage`'s rows ({session: [[day, model, input, output, cache read, cache write], …]}, as the usage cache keeps
    them) summed by `by` between two days (inclusive, 'YYYY-MM-DD'), for one tool or project (its path, or a part of
    it) if asked."""
    lines: dict[str, Line] = {}
    total, unpriced = Line("all"), dict[str, int]()
    for sid, rows in usage.items():
        proj, kind, _person = info.get(sid, ("", "native", ""))
        if tool and kind != tool:
            continue
        if project and project not in (proj or ""):
            continue
        for day, model, *parts in rows:
            if (since and day < since) or (until and day > until):
                continue
            prices = unit_prices(model, day)
            c = sum(n * p for n, p in zip(parts, prices)) if prices else 0.0
            if prices is None and sum(parts):
                name = model or "(unknown model)"
                unpriced[name] = unpriced.get(name, 0) + sum(parts)
            key = _key(by, day, sid, model, proj, kind)
            line = lines.get(key) or lines.setdefault(key, Line(key))
            line.add(sid, model, parts, c)
            name = model or "(unknown model)"
            (line.models.get(name) or line.models.setdefault(name, Line(name))).add(sid, model, parts, c)
            total.add(sid, model, parts, c)
            (total.models.get(name) or total.models.setdefault(name, Line(name))).add(sid, model, parts, c)
    if by in ("day", "week", "month"):
        ordered = sorted(lines.values(), key=lambda line: line.key)
    else:  # the costliest first, as the usage view lists them
        ordered = sorted(lines.values(), key=lambda line: (-line.cost, -sum(line.tokens), line.key))
    return Table(by, ordered, total, unpriced)


# -- replies, one by one: the blocks and the status line ------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """One reply that spent tokens: when, in which session, its model, tokens by kind, dollars (None: no price)."""

    ts: float
    session_id: str
    model: str
    parts: tuple[int, int, int, int]
    cost: float | None


# (qmark parameters: the quick reader's sqlite3 and SQLAlchemy's exec_driver_sql on SQLite take them as they are.
# On SQLite the payload as kept, read by `payloads.unpack_kept`: a reply's model and tokens need none of its ids)
ENTRIES_SQL = ("SELECT e.session_id, e.ts, e.tokens_in, e.tokens_out, e.{payload}, s.model FROM event e "
               "JOIN session s ON s.id = e.session_id LEFT JOIN source src ON src.id = s.source_id "
               "WHERE s.updated_at >= ? AND e.ts >= ? AND e.ts < ? AND (e.tokens_in > 0 OR e.tokens_out > 0)")


def entries_query(since_ts: float, until_ts: float, tool: str | None = None,
                  sessions: list[str] | None = None, *, kept: bool = True) -> tuple[str, list]:
    """The SQL (and its parameters) of the replies between two times: the sessions written since `since_ts` alone
    (session.updated_at's index), then their events in the range (event's index on the time); of one tool,
    or of some sessions, if asked. `kept`: SQLite's, which reads `payload_kept` (`payloads.unpack_kept` unpacks it);
    else the payload."""
    sql = ENTRIES_SQL.format(payload="payload_kept" if kept else "payload")
    params: list[Any] = [since_ts, since_ts, until_ts]
    if tool:
        sql += " AND coalesce(src.kind, 'native') = ?"
        params.append(tool)
    if sessions is not None:
        sql += f" AND e.session_id IN ({', '.join('?' * len(sessions)) or 'NULL'})"
        params.extend(sessions)
    return sql, params


def entries(rows: Iterable[tuple], unpack: Callable[[Any], str]) -> list[Entry]:
    """The replies of `entries_query`'s rows, oldest first, split and priced as the usage report splits them."""
    out = []
    for sid, ts, t_in, t_out, payload, fallback in rows:
        text = unpack(payload)
        if '"forkedFrom"' in text or not ts or ts <= 0:
            continue  # a fork's copy of its origin's line spent nothing here
        model, *parts = split(text, t_in or 0, t_out or 0)
        model = model or fallback or ""
        day = dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d")
        prices = unit_prices(model, day)
        out.append(Entry(ts, sid, model, (parts[0], parts[1], parts[2], parts[3]),
                         None if prices is None else sum(n * p for n, p in zip(parts, prices))))
    out.sort(key=lambda e: (e.ts, e.session_id))
    return out


def iso(t: float) -> str:
    """A time as ccusage and JSON say it: UTC, with a Z."""
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Block:
    """A five-hour billing block (or, `gap`, the quiet stretch between two): its start (on the hour), its end (start
    plus five hours), its last reply, tokens by kind, dollars, models, and whether it is the one running now."""

    start: float
    end: float
    last: float = 0.0
    first: float = 0.0
    replies: int = 0
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    cost: float = 0.0
    models: list[str] = field(default_factory=list)
    active: bool = False
    gap: bool = False

    def burn(self) -> tuple[float, float] | None:
        """(tokens a minute, dollars an hour) from its first reply to its last, as ccusage has them: input and
        output alone count as tokens burnt (cache reads are cheap and many)."""
        minutes = (self.last - self.first) / 60
        if self.gap or minutes <= 0:
            return None
        return (self.tokens[0] + self.tokens[1]) / minutes, self.cost / minutes * 60

    def projection(self, now: float) -> tuple[int, float, int] | None:
        """(tokens, dollars, minutes left) at the block's end if it goes on burning as it has (the active block)."""
        rate = self.burn()
        if not self.active or rate is None:
            return None
        left = max(0.0, (self.end - now) / 60)
        return (round(self.tokens[0] + self.tokens[1] + rate[0] * left), round(self.cost + rate[1] / 60 * left, 2),
                round(left))

    def as_json(self, now: float) -> dict[str, Any]:
        rate, proj = self.burn(), self.projection(now)
        i, o, r, w = self.tokens
        return {"start": iso(self.start), "end": iso(self.end), "last_reply": iso(self.last) if self.replies else None,
                "active": self.active, "gap": self.gap, "replies": self.replies,
                "input_tokens": i, "output_tokens": o, "cache_read_tokens": r, "cache_write_tokens": w,
                "total_tokens": i + o + r + w, "cost": round(self.cost, 6), "models": self.models,
                "burn": None if rate is None else {"tokens_per_minute": round(rate[0], 1),
                                                   "cost_per_hour": round(rate[1], 4)},
                "projection": None if proj is None else {"total_tokens": proj[0], "cost": proj[1],
                                                         "minutes_left": proj[2]}}


def blocks(replies: list[Entry], now: float, length: int = BLOCK) -> list[Block]:
    """The replies (oldest first) in billing blocks, with the gaps between them."""
    out: list[Block] = []
    block: Block | None = None
    for e in replies:
        if block is not None and (e.ts - block.start > length or e.ts - block.last > length):
            out.append(block)
            if e.ts - block.last > length:
                out.append(Block(start=block.last + length, end=e.ts, gap=True))
            block = None
        if block is None:
            start = e.ts - e.ts % 3600  # on the hour (UTC: the hours of every zone but a few)
            block = Block(start=start, end=start + length, first=e.ts)
        block.last = e.ts
        block.replies += 1
        for i, n in enumerate(e.parts):
            block.tokens[i] += n
        block.cost += e.cost or 0.0
        if e.model and e.model not in block.models:
            block.models.append(e.model)
    if block is not None:
        out.append(block)
    for b in out:
        b.active = not b.gap and now - b.last < length and now < b.end
    return out


def chain_since(read: Callable[[float, float], list[Entry]], now: float) -> float:
    """How far back the replies must be read for the active block to be found as ccusage finds it: to the last quiet
    stretch of five hours (the reply after one starts a block on its hour), looking a day back, then a week.
    `read(since, until)`: the replies between two times, oldest first."""
    for days in (1, 7):
        since = now - days * 86400
        replies = read(since, now + 60)
        if not replies or replies[0].ts - since > BLOCK:
            return since
        stamps = [e.ts for e in replies]
        for a, b in zip(reversed(stamps[:-1]), reversed(stamps[1:])):
            if b - a > BLOCK:
                return a  # (the block before the gap is read too: harmless, and its end is known)
    return now - 7 * 86400
