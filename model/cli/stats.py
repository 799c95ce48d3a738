"""`sessionscope stats tools [--by tool|model|project|source] [--since] [--until] [--json]`: how the agents' tool
calls went (sessionscope.insight.outcomes): calls, failures by kind, failure rate, time per call, output, retries, and
the calls right before a user's correction.

`sessionscope stats sessions [SESSION…] [--since] [--until] [--limit N] [--json]`: how sessions went, each by its
vital signs (sessionscope.insight.vitals); one session named: each sign said with how it is counted."""

from __future__ import annotations

import datetime as dt

from sessionscope.cli.output import out, terminal
from sessionscope.errors import SessionscopeError
from sessionscope.recall.query import moment


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
    if args.what == "sessions":
        return sessions(store, args)
    if args.sessions:
        raise SessionscopeError("stats tools takes no sessions (stats sessions does)")
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


def sessions(store, args):
    from sessionscope.insight import vitals
    if args.sessions:
        ids = [store.resolve_session(key) for key in args.sessions]
    else:
        since = moment(args.since, "--since ") if args.since else None
        until = moment(args.until, "--until ", end_of_day=True) if args.until else None
        listed = store.sessions(include_archived=True, **({} if since or until else {"limit": max(1, args.limit)}))
        ids = [s.id for s in listed if (since is None or s.updated_at >= since) and
               (until is None or s.updated_at < until)][:max(1, args.limit)]
    signs = store.vitals(ids)
    costs = store.session_costs(ids)
    rows = []
    for sid in ids:
        s, v = store.session(sid), signs[sid]
        rows.append({"session": sid, "title": s.title, "tool": s.source_kind, **v.as_json(), "cost": costs.get(sid)})
    if not rows:
        out(args, [], "no sessions in this range")
        return 0
    if len(ids) == 1 and args.sessions:  # one session: each sign, and how it is counted
        s = store.session(ids[0])
        lines = [terminal(s.title or s.id, mark=False), ""]
        for g in vitals.signs(signs[ids[0]], costs.get(ids[0])):
            lines.append(f"{g.label + ':':<15}{'! ' if g.alarm else ''}{g.value}")
            lines += [f"{'':15}{terminal(line, mark=False)}" for line in g.about.splitlines()]
        out(args, rows, "\n".join(lines))
        return 0
    lines = [f"{'SESSION':<10} {'TITLE':<34} {'ACTIVE':>10} {'TURNS':>5} {'CALLS':>6} {'FAILED':>7} {'STOP':>4} "
             f"{'COMP':>4} {'LOOP':>4} {'FILES':>5} {'TESTS':>7}"]
    for r in rows:
        v = signs[r["session"]]
        last = v.last_test
        tests = "" if last is None else f"{'ok' if last.ok else 'FAIL'} {v.test_runs}"
        failed = f"{v.failures} {v.failure_rate:.0%}" if v.failures else "0" if v.calls else ""
        lines.append(f"{r['session'][:10]:<10} {terminal(r['title'] or '', mark=False)[:34]:<34} "
                     f"{vitals.span_text(v.active_s) if v.duration_s else '':>10} {v.turns:>5} {v.calls:>6} "
                     f"{failed:>7} {v.interruptions:>4} {v.compactions:>4} {len(v.loops):>4} {len(v.files):>5} "
                     f"{tests:>7}")
    lines.append("ACTIVE: time between events no more than 5 min apart, and tools running; FAILED: error results, "
                 "refused permissions, interrupted calls; STOP: interruptions; COMP: compactions; LOOP: a call that "
                 "failed 3 times or more; TESTS: the last run's outcome and the runs (pytest, jest, vitest, go, cargo).")
    out(args, rows, "\n".join(lines))
    return 0
