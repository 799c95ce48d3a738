"""`sessionscope drift [--json]`: what the readers met and did not understand (sessionscope.insight.drift), by tool,
version and shape, the most met first, each with a session or file to look at."""

from __future__ import annotations

from sessionscope.cli.output import out, terminal


def drift(store, args):
    from sessionscope.insight.drift import drift as found

    rows = found(store)
    if not rows:
        out(args, [], "every line and part read was understood")
        return 0
    width = max(len(r.label) for r in rows)
    lines = [f"{'TOOL':<{width}}  {'VERSION':<12} {'MET':>5} {'IN':>4}  WHAT WAS NOT UNDERSTOOD"]
    for r in rows:
        where = "session" if r.kept == "line" else "file"
        lines.append(f"{r.label:<{width}}  {terminal(r.version or '?', mark=False)[:12]:<12} {r.lines:>5} "
                     f"{r.sessions:>4}  {terminal(r.shape, mark=False)[:90]}  ({where} {terminal(r.example, mark=False)})")
    lines.append("Lines are kept whole (shown folded in the timeline); the rest of each file was read.")
    out(args, [r.as_dict() for r in rows], "\n".join(lines))
    return 0
