"""`sessionscope hooks [install|uninstall|status] [--tool T] [--dry-run]` and `sessionscope hook` (#35): the agents'
own hooks telling Sessionscope exactly when a session needs approval, waits for you or ended
(sessionscope.live.hook_install puts them in the tools' settings; sessionscope.live.hook is what they run)."""

from __future__ import annotations

import time

from sessionscope.cli.output import ACTOR, EXIT_USAGE, out


def hook(_store, args):
    """Reached only when an option comes before `hook` (`sessionscope --store S hook`); the usual command line
    goes straight to sessionscope.live.hook from sessionscope.cli.main."""
    from sessionscope.live.hook import run
    return run([*(["--tool", args.tool] if args.tool else []), *(["--store", args.store] if args.store else []),
                *args.payload])


def _last_signals(location: str | None) -> dict[str, tuple[float, str, int]]:
    """{source kind: (newest signal's time, its event, how many sessions have one)} of the store at `location`
    (none made where there is none)."""
    import sqlalchemy as sa

    from sessionscope import open_store
    from sessionscope.store.locations import sqlite_path
    from sessionscope.store.schema import LIVE_SIGNAL
    path = sqlite_path(location)
    if path is not None and not path.exists():
        return {}
    with open_store(location) as store, store.reader() as conn:
        rows = conn.execute(sa.select(LIVE_SIGNAL.c.tool, LIVE_SIGNAL.c.ts, LIVE_SIGNAL.c.event)
                            .order_by(LIVE_SIGNAL.c.ts)).all()
    found: dict[str, tuple[float, str, int]] = {}
    for tool, ts, event in rows:
        found[tool] = (ts, event, found.get(tool, (0, "", 0))[2] + 1)
    return found


def _ago(ts: float) -> str:
    from sessionscope.live.states import ago
    return ago(time.time() - ts) + " ago"


def hooks(_store, args):
    """Opens the store only to make it for a real install (a --dry-run makes and writes nothing); `status` reads the
    signals of a store that is there."""
    from sessionscope.errors import InvalidInput
    from sessionscope.live import hook_install as hi
    if args.action == "status":
        last = _last_signals(args.store)
        rows = []
        for t in hi.tools_named(args.tool):
            row = hi.installed(t)
            ts, event, count = last.get(t.kind, (None, None, 0))
            rows.append({**row, "label": t.label, "last_signal": ts, "last_event": event, "sessions": count})
        out(args, rows, "\n".join(_status_line(r) for r in rows))
        return 0
    tools = hi.tools_named(args.tool)
    if args.action == "install" and args.tool is None:
        tools = [t for t in tools if t.settings().parent.exists()]
        if not tools:
            raise InvalidInput("no Claude Code, Codex or Gemini CLI settings folder here (~/.claude, ~/.codex, "
                               "~/.gemini); name the tool with --tool")
    from sessionscope import ops
    from sessionscope.store.locations import sqlite_path
    store = None
    path = sqlite_path(args.store)
    if not args.dry_run and (args.action == "install" or path is None or path.exists()):
        from sessionscope import open_store  # the store the hooks name: there for their first signal, and the
        store = open_store(args.store)        # change recorded in its audit log
    try:
        changes = ops.hooks(store, args.action, tools, args.store, dry_run=args.dry_run, actor=ACTOR,
                            status_line=args.statusline)
    finally:
        if store is not None:
            store.close()
    out(args, [c.as_dict() for c in changes], "\n".join(_change_text(c, args) for c in changes))
    return EXIT_USAGE if any(c.problem for c in changes) else 0  # (as a refusal of the whole command was)


def _status_line(r: dict) -> str:
    state = f"installed ({len(r['events'])} events)" if r["events"] else "not installed"
    line = f"{r['label']:<12} {state:<24} {r['settings']}"
    if r["problem"]:
        line += f"\n  ! {r['problem']}"
    if r["last_signal"]:
        line += f"\n  last signal {_ago(r['last_signal'])} ({r['last_event']}); {r['sessions']} session(s) signalled"
    elif r["events"]:
        line += "\n  no signal yet (a session started after the install sends its first)"
    return line


def _change_text(c, args) -> str:
    from sessionscope.live.hook_install import TOOLS
    label = TOOLS[c.tool].label
    would = "would " if args.dry_run else ""
    if c.problem:
        return f"{label}: nothing changed in {c.settings}: {c.problem}"
    if c.command:  # an install
        text = (f"{label}: {would}add {len(c.events)} hooks to {c.settings} ({', '.join(c.events)}), each running\n"
                f"  {c.command}")
        if c.removed:
            text += f"\n  (in place of the {c.removed} Sessionscope put there before)"
        if c.status_line == "set":
            text += f"\n  and {would}show what your agents spent in its status line (sessionscope usage statusline)"
        elif c.status_line == "kept":
            text += "\n  its status line is someone else's: kept (sessionscope usage statusline is there to use instead)"
        elif c.tool == "claude":
            text += "\n  (--statusline also shows what your agents spent in Claude Code's status line)"
        text += "\n  everything else in the file is kept" + (f"; the old file is saved as {c.backup}" if c.backup else "")
        return text + (f"\n  {c.note}" if c.note else "")
    if not c.removed and c.status_line == "removed":
        return f"{label}: {would}take Sessionscope's status line out of {c.settings}"
    if not c.removed:
        return f"{label}: no Sessionscope hooks in {c.settings}"
    return (f"{label}: {would}take {c.removed} Sessionscope hooks out of {c.settings} ({', '.join(c.events)})"
            + ("; the file, which the install had made, is gone" if c.removed_file else
               f"; the old file is saved as {c.backup}" if c.backup else
               "; the file is as it was before the install" if c.written else ""))
