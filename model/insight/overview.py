"""What happened lately, at a glance: the home page's figures.

A range's key numbers (sessions, messages, tokens, spend, active days), the year's activity by day (messages,
tokens and cost: the heatmap), the sessions active each day (a day clicked lists them), and the range's costliest
sessions. Tokens and cost are the usage report's (sessionscope.insight.usage: one price table, the usage cache);
messages are counted in the store, grouped by session and hour there so a year of a big store comes back as a few
thousand rows, and put on their local day here.

The range widens when it holds nothing (30 days, then 90, then 365, then everything), saying so: a home that
opens on zeros because the newest session is 31 days old answers nothing.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.insight import usage
from sessionscope.store.schema import EVENT

RANGES = (7, 30, 90, 365, 0)  # days; 0: all time
HEATMAP_WEEKS = 53
TOP = 8


@dataclass
class Overview:
    days: int  # the range shown (0: all time), after widening
    since: str  # its first day, 'YYYY-MM-DD' ('' for all time)
    until: str
    sessions: int = 0  # sessions with a message in the range
    messages: int = 0
    tokens: int = 0
    spend: float = 0.0
    active_days: int = 0
    unpriced: int = 0  # tokens of models with no price
    # the heatmap's year, by day: [messages, tokens, cost]
    activity: dict[str, list[float]] = field(default_factory=dict)
    day_sessions: dict[str, list[str]] = field(default_factory=dict)  # day → the sessions active that day
    top: list[tuple[str, float, int]] = field(default_factory=list)  # (session id, cost, tokens), costliest first
    note: str = ""  # what was chosen for the user ("Last 30 days had no activity: showing the last 90 days")

    @property
    def first_day(self) -> str:
        """The heatmap's first day: a Monday, HEATMAP_WEEKS weeks before `until`'s week ends."""
        end = dt.date.fromisoformat(self.until)
        return (end - dt.timedelta(days=end.weekday() + 7 * (HEATMAP_WEEKS - 1))).isoformat()


def _day(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d")


def messages_by_day(conn: Connection, since_ts: float) -> dict[tuple[str, str], int]:
    """{(day, session id): messages} from `since_ts` on (both sides', a subagent's too)."""
    hour = (sa.func.floor(EVENT.c.ts / 3600) if conn.dialect.name == "postgresql"
            else sa.cast(EVENT.c.ts / 3600, sa.Integer))  # (ts is positive: SQLite's cast truncates to the floor)
    q = (sa.select(EVENT.c.session_id, hour.label("h"), sa.func.count())
         .where(EVENT.c.kind == "message", EVENT.c.ts >= since_ts)
         .group_by(EVENT.c.session_id, "h"))
    out: dict[tuple[str, str], int] = defaultdict(int)
    for sid, h, n in conn.execute(q):
        out[(_day(float(h) * 3600), sid)] += int(n)
    return out


def overview(conn: Connection, *, days: int = 30, today: dt.date | None = None, widen: bool = True,
             folded: dict | None = None, pause: Callable[[], None] | None = None) -> Overview:
    """The home page's figures over the last `days` days up to `today` (0: all time), widened while the range holds
    no activity when `widen`. `pause` is called between steps (the window's: what the user waits for goes first)."""
    pause = pause or (lambda: None)
    today = today or dt.date.today()
    year_start = today - dt.timedelta(days=today.weekday() + 7 * (HEATMAP_WEEKS - 1))
    pause()
    year = usage.report(conn, since=year_start.isoformat(), until=today.isoformat(), by="day", group="source",
                        folded=folded, pause=pause)
    pause()
    counts = messages_by_day(conn, dt.datetime.combine(year_start, dt.time()).timestamp())
    asked = days
    while True:
        pause()
        ov = _range(conn, days, today, counts, folded)
        later = [d for d in RANGES if days and (d == 0 or d > days)]  # (all time is the last: an empty store stops)
        if not widen or ov.sessions or ov.tokens or not later:
            break
        days = later[0]
    if days != asked:
        ov.note = f"{_range_words(asked)} had no activity: showing {_range_words(days).lower()}"
    for (day, sid), n in counts.items():
        ov.activity.setdefault(day, [0, 0, 0.0])[0] += n
        ov.day_sessions.setdefault(day, []).append(sid)
    for (day, _group), parts in year.tokens.items():
        ov.activity.setdefault(day, [0, 0, 0.0])[1] += sum(parts)
        ov.activity[day][2] += year.costs.get((day, _group), 0.0)
        for sid in year.sessions_in.get((day, _group), ()):
            if sid not in ov.day_sessions.setdefault(day, []):
                ov.day_sessions[day].append(sid)
    return ov


def _range(conn: Connection, days: int, today: dt.date, counts: dict, folded: dict | None) -> Overview:
    since = (today - dt.timedelta(days=days - 1)).isoformat() if days else ""
    ov = Overview(days=days, since=since, until=today.isoformat())
    if days and days <= 7 * HEATMAP_WEEKS:  # the year's counts hold the range
        inside = {k: n for k, n in counts.items() if k[0] >= since}
    else:
        inside = messages_by_day(conn, 0.0)
    r = usage.report(conn, since=since, until=ov.until, by="day", group="source", folded=folded)
    spent_days = {b for (b, _g), parts in r.tokens.items() if sum(parts)}
    active = {sid for _d, sid in inside} | {sid for _c, t, sid in r.session_costs if t}
    ov.sessions = len(active)
    ov.messages = sum(inside.values())
    ov.tokens = sum(r.totals)
    ov.spend = r.total_cost
    ov.unpriced = sum(r.unpriced.values())
    ov.active_days = len({d for d, _sid in inside} | spent_days)
    ov.top = [(sid, cost, tokens) for cost, tokens, sid in r.session_costs[:TOP]]
    return ov


def _range_words(days: int) -> str:
    return f"Last {days} days" if days else "All time"
