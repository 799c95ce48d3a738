"""Text read from a transcript or an API is untrusted: the checks it passes before it names a file, starts
a program or reaches a terminal.

- An id becomes part of a path or of a command line only when it has an id's shape (`is_safe_id`): letters,
  digits and `._:@+-`, starting with a letter or digit, so it is never `..`, never holds a separator and is
  never read as an option.
- A path built under a folder must stay inside it once resolved (`child`).
- Text printed for a person shows control characters and bidi overrides visibly (`printable`), as git shows
  them, so a transcript cannot write the clipboard (OSC 52), set the window title or clear the screen.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import Refused

SAFE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}$")


def is_safe_id(text: object) -> bool:
    """Whether `text` has an id's shape (see the module's docstring); `..` and `-x` have not."""
    return isinstance(text, str) and SAFE_ID_RE.match(text) is not None and ".." not in text


def safe_part(text: object, what: str = "id") -> str:
    """`text` when it may be one component of a path (an id's shape, no `:` a Windows path would read as a
    drive); Refused naming it otherwise."""
    if not is_safe_id(text) or ":" in text:  # type: ignore[operator]
        raise Refused(f"the {what} {shown(text)} is not a name Sessionscope puts in a path")
    return text  # type: ignore[return-value]


def child(base: Path, *parts: str, what: str = "id") -> Path:
    """`base / part / …` with every part checked (safe_part), and the result, resolved, inside `base`."""
    path = Path(base)
    for part in parts:
        path = path / safe_part(part, what)
    inside(Path(base), path)
    return path


def inside(base: Path, path: Path) -> Path:
    """`path` when, resolved (symlinks followed), it lies inside `base`; Refused otherwise."""
    root = Path(base).resolve()
    resolved = Path(path).resolve()
    if resolved != root and root not in resolved.parents:
        raise Refused(f"{shown(str(path))} would lie outside {root}")
    return path


def resumable_id(session, tool: str) -> str:
    """The id a tool's own resume command is given: the session's tool id when it has an id's shape (so it is
    never read as an option); Refused otherwise."""
    value = session.tool_id or session.id
    if not is_safe_id(value):
        raise Refused(f"{tool} cannot resume {shown(value)}: it is not a session id's shape")
    return value


# C0 and C1 control characters (tab and newline too: one record is one line) and the Unicode format
# characters that reorder or hide text: bidi embeddings, overrides and isolates, zero-width marks.
_UNSAFE_RE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def _escape(match: re.Match) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, keep_newlines: bool = False) -> str:
    """`text` with every control and bidi character shown as an escape (ESC as `\\e`, U+202E as `\\u202e`).
    `keep_newlines` leaves line breaks (a multi-line message printed as such)."""
    if not isinstance(text, str):
        text = str(text)
    if keep_newlines:
        return "\n".join(_UNSAFE_RE.sub(_escape, line) for line in text.split("\n"))
    return _UNSAFE_RE.sub(_escape, text)


def shown(value: object, limit: int = 80) -> str:
    """A value quoted for a message: printable and at most `limit` characters."""
    text = printable(value if isinstance(value, str) else repr(value))
    return "'" + (text if len(text) <= limit else text[: limit - 1] + "…") + "'"
