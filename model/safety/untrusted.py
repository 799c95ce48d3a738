"""Text read from a transcript or an API is untrusted: the checks it passes before it names a file, starts
a program or reaches a terminal.

- An id becomes part of a path or of a command line only when it has an id's shape (`is_safe_id`): letters,
  digits and `._:@+-`, starting with a letter or digit, so it is never `..`, never holds a separator and is
  never read as an option.
- A path built under a folder must stay inside it once resolved (`child`).
- Text printed for a person shows control characters and bidi overrides visibly (`printable`), as git shows
  them, so a transcript cannot write the clipboard (OSC 52), set the window title or clear the screen.
- A lone surrogate ("\\ud800": Python and JSON hold it, UTF-8 cannot) is kept where an SDK keeps it, as JSON's
  own escape (`dumps`/`loads`: orjson refuses it both ways), and shown as U+FFFD wherever the store keeps
  text to show and search (`scrubbed`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson

from sessionscope.errors import Refused

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
# the same less line breaks, and less tabs: one pass over a whole listing (`show` of 10,000 lines) in C
_UNSAFE_KEEP_LINES_RE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_UNSAFE_KEEP_LAYOUT_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _escape(match: re.Match) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, keep_newlines: bool = False, keep_tabs: bool = False) -> str:
    """`text` with every control and bidi character shown as an escape (ESC as `\\e`, U+202E as `\\u202e`).
    `keep_newlines` leaves line breaks (a multi-line message printed as such), `keep_tabs` tabs too (a diff,
    a Makefile)."""
    if not isinstance(text, str):
        text = str(text)
    probe = text.replace("\n", "") if keep_newlines else text
    if probe.isprintable() if not (keep_newlines and keep_tabs) else probe.replace("\t", "").isprintable():
        return text  # nothing to escape (checked in C: every unsafe character is one isprintable refuses)
    if keep_newlines:
        return (_UNSAFE_KEEP_LAYOUT_RE if keep_tabs else _UNSAFE_KEEP_LINES_RE).sub(_escape, text)
    return _UNSAFE_RE.sub(_escape, text)


def shown(value: object, limit: int = 80) -> str:
    """A value quoted for a message: printable and at most `limit` characters."""
    text = printable(value if isinstance(value, str) else repr(value))
    return "'" + (text if len(text) <= limit else text[: limit - 1] + "…") + "'"


def dumps(value: Any) -> str:
    """JSON text of `value`, as an SDK's own store writes it: a lone surrogate, which orjson refuses, is
    written as its `\\uXXXX` escape (by the json module, whose output is then plain ASCII)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError as exc:
        if "surrogates" not in str(exc):
            raise
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    """What `dumps` wrote, read back as it was given (a lone surrogate included)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if "surrogate" not in str(exc):
            raise
        return json.loads(text)


def _fixed(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:  # a lone surrogate: U+FFFD instead (pairs written as two halves joined first)
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def scrubbed(value: Any) -> Any:
    """`value` with every string UTF-8 can hold: a lone surrogate becomes U+FFFD (what the store keeps as
    text to show and search; the item itself keeps it, through `dumps`)."""
    if isinstance(value, str):
        return _fixed(value)
    if isinstance(value, dict):
        return {scrubbed(k): scrubbed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrubbed(v) for v in value]
    return value


def dumped(value: Any) -> tuple[str, Any]:
    """(JSON text of `value` as `dumps` writes it, `value` as text to show may hold it): `value` itself in
    the usual case, where orjson took it (so it holds no lone surrogate), else `scrubbed(value)`."""
    try:
        return orjson.dumps(value).decode(), value
    except TypeError:
        return dumps(value), scrubbed(value)


def loaded(text: str | bytes) -> tuple[Any, Any]:
    """(the value `text` holds, as `loads` reads it; that value as text to show may hold it)."""
    try:
        value = orjson.loads(text)
        return value, value
    except orjson.JSONDecodeError:
        value = loads(text)
        return value, scrubbed(value)
