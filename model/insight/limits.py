"""Where the user stands against the limits of their plan: the active five-hour window and the week so far, each with
what it has cost, when it resets, and where it will be at this rate; a warning where that crosses a limit.

The limits are the user's own (Settings), in dollars at the API's prices, since the plans do not publish theirs in
tokens or dollars; the window is Claude's five-hour billing block (sessionscope.insight.spend), the week runs from
the weekday and hour the user's plan resets at. Pure: given the replies and the time, the same answer everywhere.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sessionscope.insight.spend import Block, Entry, blocks

WEEK = 7 * 86400


@dataclass(frozen=True)
class Limits:
    block: float | None = None  # dollars a five-hour window may cost
    week: float | None = None  # dollars a week may cost
    reset_weekday: int = 0  # the week resets on this day (0 Monday … 6 Sunday), at this local hour
    reset_hour: int = 0

    @property
    def any(self) -> bool:
        return bool(self.block or self.week)


@dataclass
class Standing:
    block: Block | None  # the active window (None: none runs now)
    block_at_end: float | None  # its cost by its end at this rate
    week_start: float
    week_end: float
    week_cost: float
    week_at_end: float | None  # the week's cost by its end at this rate (None until a day of it has gone)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (what it is about: "block@start" / "week@start", words)


def clock(t: float) -> str:
    """A reset time as the warnings say it: its weekday and local time."""
    return dt.datetime.fromtimestamp(t).strftime("%a %H:%M")


def week_bounds(now: float, weekday: int, hour: int) -> tuple[float, float]:
    """The week (local time) `now` falls in, starting on `weekday` at `hour`."""
    here = dt.datetime.fromtimestamp(now)
    start = (here - dt.timedelta(days=(here.weekday() - weekday) % 7)).replace(hour=hour, minute=0, second=0,
                                                                            microsecond=0)
    if start > here:
        start -= dt.timedelta(days=7)
    return start.timestamp(), (start + dt.timedelta(days=7)).timestamp()


def standing(replies: list[Entry], now: float, limits: Limits) -> Standing:
    """`replies`: oldest first, reaching back to the week's start and to the active block's chain (spend.chain_since)."""
    start, end = week_bounds(now, limits.reset_weekday, limits.reset_hour)
    active = [b for b in blocks(replies, now) if b.active]
    block = active[-1] if active else None
    proj = block.projection(now) if block else None
    block_at_end = proj[1] if proj else (block.cost if block else None)
    week_cost = sum(e.cost or 0.0 for e in replies if start <= e.ts <= now)
    gone = now - start
    week_at_end = week_cost / gone * WEEK if gone >= 86400 else None
    s = Standing(block, block_at_end, start, end, week_cost, week_at_end)
    if block is not None and limits.block:
        if block.cost >= limits.block:
            s.warnings.append((f"block@{block.start:.0f}", f"This five-hour window has cost ${block.cost:,.2f}, past "
                               f"your limit of ${limits.block:,.2f}; it resets {clock(block.end)}"))
        elif block_at_end is not None and block_at_end > limits.block:
            s.warnings.append((f"block@{block.start:.0f}", f"At this rate this five-hour window will cost "
                               f"${block_at_end:,.2f} by {clock(block.end)}, past your limit of ${limits.block:,.2f}"))
    if limits.week:
        if week_cost >= limits.week:
            s.warnings.append((f"week@{start:.0f}", f"This week has cost ${week_cost:,.2f}, past your limit of "
                               f"${limits.week:,.2f}; it resets {clock(end)}"))
        elif week_at_end is not None and week_at_end > limits.week:
            s.warnings.append((f"week@{start:.0f}", f"At this rate this week will cost ${week_at_end:,.2f} by "
                               f"{clock(end)}, past your limit of ${limits.week:,.2f}"))
    return s
