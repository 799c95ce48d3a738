"""The live states' names, as the list, the Needs You view and the notifications say them (sessionscope.live.states
tells which state a session is in). No SQLAlchemy here: the window's first paint uses these."""

from __future__ import annotations

STATES = ("needs_approval", "waiting", "working", "interrupted", "idle", "ended")  # most urgent first
LABELS = {"needs_approval": "needs approval", "waiting": "waiting for you", "working": "working",
          "interrupted": "interrupted", "idle": "idle", "ended": "ended"}
MARKS = {"needs_approval": "⚠", "waiting": "◆", "working": "●", "interrupted": "✕", "idle": "○", "ended": "·"}
NEEDS_YOU = ("needs_approval", "waiting")  # the states that call the user


def ago(seconds: float) -> str:
    """How long, in the words a list shows: "40 s", "12 min", "3 h", "5 days"."""
    if seconds < 90:
        return f"{max(0, int(seconds))} s"
    if seconds < 5400:
        return f"{int(seconds // 60)} min"
    if seconds < 2 * 86400:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} days"
