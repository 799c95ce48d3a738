"""What a source says about one of its sessions beyond the store's own fields: sections of labelled lines
for the Session tab and a few lines for the list's tooltip (`Source.describe`, `Source.summary`). Plain
text, styled by the front end: the model says what, the window says how."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    label: str
    text: str
    style: str = ""  # "", "strong", "code" (an id, a path), "warning" (something the user should know)


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[Line, ...]
    items: tuple[Line, ...] = ()  # a list under the lines (a managed agent's resources)
    items_title: str = ""
    empty: str = ""  # said when there are no items


def moment(ts: float | None) -> str:
    """A time, as short as it can be said: today's hour, this year's day, else the date."""
    if not ts:
        return ""
    d = dt.datetime.fromtimestamp(ts)
    today = dt.date.today()
    if d.date() == today:
        return d.strftime("%H:%M")
    return d.strftime("%b %d %H:%M") if d.year == today.year else d.strftime("%Y-%m-%d")


def seconds(v) -> str:
    if not isinstance(v, (int, float)):
        return ""
    return f"{v / 60:.1f} min" if v >= 90 else f"{v:.1f} s"
