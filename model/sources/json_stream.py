"""The items of a big JSON array one at a time, never the whole document in memory, nesting bounded.

A chat service's data export is one `conversations.json` of every conversation (hundreds of MB for a heavy user):
parsed whole, 100,000 small conversations took 784 MB. ijson's C parser (yajl) reads it as a stream of events
in constant memory; its own item builder keeps a prefix string a level, quadratic in the nesting (a 1 KB file of
50,000 `[` took gigabytes), so items are built here, from its plain events, with the nesting bounded: an item
nested deeper than DEPTH_MAX is skipped whole and said (`Unreadable`), and the next one is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

DEPTH_MAX = 256  # the JSON a tool writes stays far below; orjson refuses past 1024


@dataclass(frozen=True)
class Unreadable:
    """An item that could not be read (its place in the array, and why); the items after it are read on."""

    index: int
    why: str


class _TooDeep(Exception):
    pass


def _put(container: Any, key: Any, value: Any) -> None:
    if isinstance(container, list):
        container.append(value)
    else:
        container[key] = value


def _build(events: Iterator, event: str, value: Any) -> Any:
    """The value that starts with (event, value), its events read from `events` (no recursion)."""
    if event not in ("start_map", "start_array"):
        return value
    stack: list[Any] = [{} if event == "start_map" else []]
    keys: list[Any] = [None]
    for event, value in events:
        if event == "map_key":
            keys[-1] = value
        elif event in ("start_map", "start_array"):
            if len(stack) >= DEPTH_MAX:
                _skip(events, len(stack) + 1)  # to the end of the whole item
                raise _TooDeep(f"nested deeper than {DEPTH_MAX} levels")
            child: Any = {} if event == "start_map" else []
            _put(stack[-1], keys[-1], child)
            stack.append(child)
            keys.append(None)
        elif event in ("end_map", "end_array"):
            done = stack.pop()
            keys.pop()
            if not stack:
                return done
        else:
            _put(stack[-1], keys[-1], value)
    raise ValueError("the document ends inside an item")


def _skip(events: Iterator, depth: int) -> None:
    """Read on to the end of the container `depth` levels up from here."""
    for event, _value in events:
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
            if depth == 0:
                return


def items(fh: IO[bytes]) -> Iterator[Any]:
    """Each item of the top-level array in `fh` (a lone top-level object: that object), one at a time; an item
    that cannot be built is an `Unreadable` in its place. A document that is not JSON raises ValueError at the
    point where it stops being JSON (the items before it were given)."""
    import ijson

    events = ijson.basic_parse(fh, use_float=True)
    try:
        first = next(events, None)
        if first is None:
            return
        if first[0] != "start_array":
            try:
                yield _build(events, *first)
            except _TooDeep as exc:
                yield Unreadable(0, str(exc))
            return
        index = 0
        for event, value in events:
            if event == "end_array":
                return
            try:
                yield _build(events, event, value)
            except _TooDeep as exc:
                yield Unreadable(index, str(exc))
            index += 1
    except ijson.JSONError as exc:
        raise ValueError(f"not JSON from there on ({exc})") from None
