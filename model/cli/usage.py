"""`sessionscope usage [total|daily|weekly|monthly|session|project|model|tool|blocks|statusline]`: what the agents
spent, from the store (every tool that writes its tokens), as ccusage and agentsview say it at the shell.

- the reports (sessionscope.insight.spend.table): the usage report's rows, summed; `--breakdown` adds each row's
  models; the costliest first, or oldest first by time;
- `blocks`: Claude's five-hour billing blocks, the active one's burn rate and where it will end (`--live` redraws);
- `statusline`: one line for Claude Code's `statusLine` setting, from the JSON it gives on stdin, answered through the
  quick reader (sqlite3 alone) in well under a tenth of a second.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
import time

from sessionscope.cli.output import out, terminal
from sessionscope.errors import InvalidInput

REPORTS = {"total": "total", "daily": "day", "weekly": "week", "monthly": "month", "session": "session",
           "project": "project", "model": "model", "tool": "tool"}
RECENT_DAYS = 3  # blocks --recent: as ccusage's
STDIN_LIMIT = 1 << 20  # what Claude Code hands a status line is a few hundred bytes; more is not read


def _day(text: str | None, where: str) -> str:
    """A day as the reports key them ('YYYY-MM-DD'), from a date, ccusage's YYYYMMDD, or an age (7d)."""
    from sessionscope.recall.query import moment
    if not text:
        return ""
    if re.fullmatch(r"\d{8}", text):
        text = f"{text[:4]}-{text[4:6]}-{text[6:]}"
    return dt.date.fromtimestamp(moment(text, where)).isoformat()


def usage(store, args):
    check_tool(args.tool)
    if args.what == "statusline":
        return statusline(store, args)
    if args.what == "blocks":
        return blocks(store, args)
    by = REPORTS[args.what]
    since, until = _day(args.since, "--since "), _day(args.until, "--until ")
    query = {"by": by, "since": since, "until": until, "tool": args.tool, "project": args.project}
    t = store.usage_table(**query)
    if t is None:  # the quick reader: a session changed since its usage was cached; the Store folds and keeps it
        from sessionscope import open_store
        with open_store(args.store) as full:
            t = full.usage_table(**query)
    titles = _titles(store, [line.key for line in t.lines]) if by == "session" else {}
    breakdown = args.breakdown or by == "total"

    def data():
        rows = []
        for line in t.lines:
            row = line.as_json(breakdown)
            if by == "session":
                row.update(titles.get(line.key, {}))
            rows.append(row)
        return {"by": by, "since": since or None, "until": until or None, "rows": rows,
                "totals": t.total.as_json(True), "unpriced": t.unpriced}

    out(args, data, lambda: _table_text(t, by, breakdown and by != "total", titles))
    return 0


def _titles(store, ids: list[str]) -> dict[str, dict]:
    """Each session's title, project, tool and last activity: one listing of the store, not a read a session (a
    report over 20,000 sessions asked 20,000 times); a session gone since the report was read is left out."""
    wanted, found = set(ids), {}
    for s in store.sessions(include_archived=True):
        if s.id not in wanted:
            continue
        sid = s.id
        found[sid] = {"title": s.title or "", "project": s.project or "", "tool": s.source_kind or "native",
                      "updated": dt.datetime.fromtimestamp(s.updated_at).isoformat(timespec="seconds")}
    return found


def _n(n: int) -> str:
    return f"{n:,}"


def _money(c: float) -> str:
    return f"${c:,.2f}"


def _table_text(t, by: str, breakdown: bool, titles: dict) -> str:
    if not t.lines:
        return "no usage in this range"
    head = {"total": "", "day": "DAY", "week": "WEEK OF", "month": "MONTH", "session": "SESSION",
            "project": "PROJECT", "model": "MODEL", "tool": "TOOL"}[by]

    def label(line) -> str:
        if by == "session":
            title = titles.get(line.key, {}).get("title") or line.key[:12]
            return terminal(title, mark=False)
        return terminal(line.key, mark=False)

    rows = [(label(line), line) for line in t.lines]
    named = [name for name, _ in rows if by != "total"]
    if breakdown or by == "total":
        named += [f"  └ {model}" for line in [*t.lines, t.total] for model in line.models]
    width = min(48, max(len(head), 5, *(len(name) for name in named)))
    cols = f"{'INPUT':>13} {'OUTPUT':>11} {'CACHE READ':>14} {'CACHE WRITE':>13} {'TOTAL':>14} {'COST':>11}"
    lines = [f"{head:<{width}}  {cols}"] if by != "total" else [f"{'':<{width}}  {cols}"]

    def fmt(name: str, line) -> str:
        i, o, r, w = line.tokens
        return (f"{name[:width]:<{width}}  {_n(i):>13} {_n(o):>11} {_n(r):>14} {_n(w):>13} {_n(i + o + r + w):>14} "
                f"{_money(line.cost):>11}")

    for name, line in rows if by != "total" else []:
        lines.append(fmt(name, line))
        if breakdown:
            for model, sub in sorted(line.models.items(), key=lambda kv: -kv[1].cost):
                lines.append(fmt(f"  └ {model}", sub))
    lines.append(fmt("TOTAL", t.total))
    if by == "total":
        for model, sub in sorted(t.total.models.items(), key=lambda kv: -kv[1].cost):
            lines.append(fmt(f"  └ {model}", sub))
        lines.append(f"{len(t.total.sessions):,} sessions")
    if t.unpriced:
        lines.append("no price known for: " + ", ".join(f"{terminal(m, mark=False)} ({_n(n)} tokens)"
                                                          for m, n in sorted(t.unpriced.items())))
    return "\n".join(lines)


# -- blocks ---------------------------------------------------------------------------------------------------

def _blocks(store, tool: str | None, since_ts: float, now: float):
    from sessionscope.insight import spend
    return spend.blocks(store.usage_entries(since_ts, now + 60, tool), now)


def blocks(store, args):
    from sessionscope.insight import spend
    from sessionscope.recall.query import moment
    tool = args.tool or "claude_code"
    now = time.time()
    since_ts = moment(args.since, "--since ") if args.since else 0.0
    if args.recent:
        since_ts = max(since_ts, now - RECENT_DAYS * 86400 - spend.BLOCK)
    if args.active:
        since_ts = max(since_ts, _chain_start(store, tool, now))
    while True:
        found = _blocks(store, tool, since_ts, now)
        if args.recent:
            found = [b for b in found if b.start >= now - RECENT_DAYS * 86400 or b.active]
        if args.active:
            found = [b for b in found if b.active]
        if args.live and not args.json:
            sys.stdout.write("\x1b[H\x1b[2J" + _blocks_text(found, now) + "\n")
            sys.stdout.flush()
            time.sleep(max(1.0, float(args.interval)))
            now = time.time()
            continue
        out(args, lambda: {"tool": tool, "blocks": [b.as_json(now) for b in found]}, lambda: _blocks_text(found, now))
        return 0


def _chain_start(store, tool: str | None, now: float) -> float:
    from sessionscope.insight import spend
    return spend.chain_since(lambda since, until: store.usage_entries(since, until, tool), now)


def _clock(t: float) -> str:
    return dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M")


def _blocks_text(found, now: float) -> str:
    if not found:
        return "no usage in this range"
    lines = [f"{'BLOCK STARTED':<17} {'':<13} {'REPLIES':>7} {'TOKENS':>14} {'COST':>10}  MODELS"]
    for b in found:
        if b.gap:
            lines.append(f"{_clock(b.start):<17} {'(quiet)':<13} {'':>7} {'':>14} {'':>10}  "
                         f"{(b.end - b.start) / 3600:.0f} h without a reply")
            continue
        state = "ACTIVE" if b.active else f"→ {_clock(b.last)[11:]}"
        lines.append(f"{_clock(b.start):<17} {state:<13} {b.replies:>7,} {_n(sum(b.tokens)):>14} "
                     f"{_money(b.cost):>10}  {terminal(', '.join(b.models), mark=False)}")
        if b.active:
            rate, proj = b.burn(), b.projection(now)
            left = max(0, int(b.end - now) // 60)
            words = f"  {left // 60} h {left % 60:02d} m left (ends {_clock(b.end)[11:]})"
            if rate is not None:
                words += f"; burning {rate[0]:,.0f} tokens/min, {_money(rate[1])}/h"
            if proj is not None:
                words += f"; at this rate {_n(proj[0])} tokens, {_money(proj[1])} by its end"
            lines.append(words)
    return "\n".join(lines)


# -- the status line ------------------------------------------------------------------------------------------

def _given() -> dict:
    """What Claude Code gave on stdin (its session, model, cost so far): untrusted, bounded, maybe nothing."""
    import json
    if sys.stdin is None or sys.stdin.isatty():
        return {}
    try:
        data = json.loads(sys.stdin.read(STDIN_LIMIT) or "{}")
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def statusline(store, args):
    """One short line: the model, this session's cost, today's, the active block's cost, time left and burn."""
    given = _given()
    now = time.time()
    parts = []
    model = given.get("model")
    name = model.get("display_name") or model.get("id") if isinstance(model, dict) else None
    if isinstance(name, str) and name:
        parts.append(terminal(name[:40], mark=False).replace("\n", " "))
    session_cost = None
    cost = given.get("cost")
    if isinstance(cost, dict) and isinstance(cost.get("total_cost_usd"), (int, float)):
        session_cost = float(cost["total_cost_usd"])  # Claude Code's own figure for its session
    tool = args.tool or "claude_code"
    if store is not None:
        sid = given.get("session_id")
        if session_cost is None and isinstance(sid, str) and 0 < len(sid) <= 200:
            ids = store.sessions_of_tool_id(sid)
            if ids:
                session_cost = sum(e.cost or 0.0 for e in store.usage_entries(0.0, now + 60, None, ids))
        midnight = dt.datetime.combine(dt.date.today(), dt.time()).timestamp()
        since = min(midnight, _chain_start(store, tool, now))
        replies = store.usage_entries(since, now + 60, tool)
        today = sum(e.cost or 0.0 for e in replies if e.ts >= midnight)
    else:
        replies, today = [], 0.0
    if session_cost is not None:
        parts.append(f"{_money(session_cost)} session")
    parts.append(f"{_money(today)} today")
    from sessionscope.insight import spend
    active = [b for b in spend.blocks(replies, now) if b.active]
    if active:
        b = active[-1]
        left = max(0, int(b.end - now) // 60)
        words = f"{_money(b.cost)} block, {left // 60}h {left % 60:02d}m left"
        rate = b.burn()
        if rate is not None:
            words += f", {_money(rate[1])}/h"
        parts.append(words)
    else:
        parts.append("no block running")
    print(" · ".join(parts))
    return 0


def check_tool(tool: str | None) -> None:
    if tool is not None and not re.fullmatch(r"[a-z0-9_]{1,40}", tool):
        raise InvalidInput(f"--tool {tool!r}: a tool's kind, as `list --json` names it (claude_code, codex, …)")
