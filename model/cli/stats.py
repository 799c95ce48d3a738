"""`sessionscope stats tools [--by tool|model|project|source] [--since] [--until] [--json]`: how the agents' tool
calls went (sessionscope.outcomes): calls, failures by kind, failure rate, time per call, output, retries, and
the calls right before a user's correction."""

from __future__ import annotations

import datetime as dt

from ..query import moment
from .output import out, terminal


def _day(text: str | None, end: bool = False) -> str:
    if not text:
        return ""
    return dt.date.fromtimestamp(moment(text, "--until " if end else "--since ", end_of_day=end)
                                 - (1 if end else 0)).isoformat()


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value * 1000:.0f}ms" if value < 1 else f"{value:.1f}s" if value < 60 else f"{value / 60:.1f}m"


def stats(store, args):
    rows = store.tool_outcomes(by=args.by, since=_day(args.since), until=_day(args.until, end=True))
    if not rows:
        out(args, [], "no tool calls in this range")
        return 0
    width = min(40, max(len(args.by), *(len(terminal(o.name, mark=False)) for o in rows)))
    lines = [f"{args.by.upper():<{width}}  {'CALLS':>7} {'FAILED':>7} {'RATE':>6} {'ERROR':>6} {'REFUSED':>7} "
             f"{'STOPPED':>7} {'P50':>7} {'P90':>7} {'RETRY':>6} {'→FIX':>5} {'OUTPUT':>8}"]
    for o in rows:
        lines.append(f"{terminal(o.name, mark=False)[:width]:<{width}}  {o.calls:>7,} {o.failures:>7,} "
                     f"{o.failure_rate:>6.1%} {o.errors:>6,} {o.refused:>7,} {o.interrupted:>7,} "
                     f"{_seconds(o.percentile(0.5)):>7} {_seconds(o.percentile(0.9)):>7} {o.retries:>6,} "
                     f"{o.corrections:>5,} {o.mean_output:>8,.0f}")
    lines.append("FAILED = ERROR (the tool said so) + REFUSED (permission) + STOPPED (interrupted, or no result); "
                 "RETRY: the same call again after it failed; →FIX: the last call before the user corrected or "
                 "stopped the agent; OUTPUT: characters per call.")
    out(args, [o.as_json() for o in rows], "\n".join(lines))
    return 0
