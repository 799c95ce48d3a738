"""A session's address: the `sessionscope://session/ID[/event/EID]` link that opens it in the window (exports and
notes carry it; the desktop hands it to `sessionscope`, sessionscope.cli.opening), and reading one back."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

SCHEME = "sessionscope"
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}")  # our ids (uuids, a tool's) and their prefixes
_HEXISH = re.compile(r"[0-9a-f]{4,}(-[0-9a-f]*)*")  # what `sessionscope ID` takes as an id: the prefixes `list` shows


@dataclass(frozen=True)
class Target:
    session: str
    event: str | None = None


def link(session_id: str, event_id: str | None = None) -> str:
    """The link that opens a session (at an event) in the window."""
    tail = f"/event/{quote(event_id, safe='')}" if event_id else ""
    return f"{SCHEME}://session/{quote(session_id, safe='')}{tail}"


def target(text: str) -> Target | None:
    """A session (and event) from what the user gave: an id or id prefix, or a `sessionscope://` link (also as
    `sessionscope:session/ID`); None when it is neither."""
    text = text.strip()
    if text.lower().startswith(f"{SCHEME}:"):
        parts = urlsplit(text)
        words = [unquote(w) for w in (parts.netloc + "/" + parts.path).split("/") if w]
        if len(words) in (2, 4) and words[0] == "session" and (len(words) == 2 or words[2] == "event"):
            found = Target(words[1], words[3] if len(words) == 4 else None)
            return found if all(ID.fullmatch(x) for x in (found.session, found.event or "x")) else None
        return None
    return Target(text) if ID.fullmatch(text) else None


def looks_like_an_id(word: str) -> bool:
    """Whether `sessionscope WORD` means the window on a session: a link, or an id prefix as `list` shows them."""
    return word.lower().startswith(f"{SCHEME}:") or bool(_HEXISH.fullmatch(word))
