"""The line over the timeline: the session's title, how many of its events the branch shows, which branch, its tool,
model, git branch and cost; and the tooltip that says why the branch shows fewer events than the session holds."""

from __future__ import annotations

import html

from sessionscope.gui.sessions.session_model import badge, money
from sessionscope.safety.untrusted import printable


def branch_header(s, shown: int, head_branch: bool, cost: float | None) -> tuple[str, str]:
    """(the header's HTML, its tooltip) for session `s` (a SessionView) whose branch shows `shown` events."""
    title = printable(s.title or s.id[:8])  # a bidi override shown, not obeyed
    title = title if len(title) <= 60 else title[:59] + "…"
    total = s.event_count
    count = f"{shown:,} of {total:,} events" if total > shown else f"{shown:,} events"
    label = f"<b>{html.escape(title)}</b> · {count} · {'head branch' if head_branch else 'another branch'}"
    about = [x for x in (badge(s.source_kind)[0], s.model, f"⎇ {s.git_branch}" if s.git_branch else "",
                         money(cost) if cost is not None else "") if x]
    label += " · " + html.escape(" · ".join(about))  # short: the pane is narrow
    tip = (f"The timeline shows one branch: {shown:,} events. The session holds {total:,}: the others are on other "
           "branches (rewinds, edits), or are facts and bookkeeping lines (progress, snapshots, the tool's own "
           "context) kept but not shown."
           if total > shown else "")
    return label, tip
