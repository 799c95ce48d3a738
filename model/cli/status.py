"""`sessionscope status [--all] [--watch] [--json]`: which agents are working, which wait for you (#35), like `ps`
for agents. The watched places are read first (what was appended since), then each session's state is decided
(sessionscope.live.states); --watch does it again every two seconds until Ctrl+C."""

from __future__ import annotations

import sys
import time

from sessionscope.cli.output import ACTOR, out, terminal

WATCH_S = 2.0


def _rows(store, everything: bool):
    from pathlib import Path

    from sessionscope import ops
    from sessionscope.live import states as live
    places = [p for p in store.source_locations() if Path(p).exists()]
    if places:
        # incremental: only what was appended (stat-only when idle)
        ops.import_paths(store, places, warm=False, watcher=True, actor=ACTOR)
    else:
        from sessionscope.live.signals import drain
        drain(store)  # (import_paths brings in what the hooks spooled; with nothing to import, this does)
    sessions = store.sessions(limit=100_000)
    states = live.states(store, sessions)
    order = {s: i for i, s in enumerate(live.STATES)}
    rows = [(s, states[s.id]) for s in sessions if everything or states[s.id].state != "ended"]
    rows.sort(key=lambda r: (order[r[1].state], -r[1].written))
    return rows


def _table(store, rows) -> str:
    if not rows:
        return "no session is working, waiting or open (--all lists the ended ones too)"
    short = store.short_ids([s.id for s, _ in rows])
    lines = []
    for s, st in rows:
        title = (s.title or "(untitled)")[:48]
        lines.append(f"{st.mark} {st.label:<15} {short.get(s.id, s.id[:8]):<9} {s.source_kind:<12} {title:<48}  {st.why}")
    return "\n".join(lines)


def status(store, args):
    everything = args.all
    if not args.watch:
        rows = _rows(store, everything)
        out(args, [{"session": s.id, "title": s.title, "tool": s.source_kind, "label": st.label} | st.as_dict()
                   for s, st in rows], _table(store, rows))
        return 0
    try:
        while True:
            text = _table(store, _rows(store, everything))
            if sys.stdout.isatty():
                print("\x1b[H\x1b[2J", end="")  # home and clear: the table redrawn in place
            print(terminal(time.strftime("%H:%M:%S") + "  sessionscope status (Ctrl+C stops)\n" + text, mark=False),
                  flush=True)
            time.sleep(WATCH_S)
    except KeyboardInterrupt:
        return 0
