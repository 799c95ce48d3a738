"""Reading the new lines of an append-only JSONL file, tolerating bad ones.

A reader resumes at the byte offset the previous scan reached. A last line
without its newline is left for the next scan (the tool may be writing it),
unless the file has been quiet for STALE_S and the line parses. Malformed
JSON, invalid UTF-8 and lone surrogates are reported per line and never stop
the read; the good lines around them are kept.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

CHUNK_BYTES = 4 << 20  # a batch stored in one transaction: 8 MB was no faster, and a parsed batch weighs ~5x its bytes
STALE_S = 300.0
MAX_PROBLEMS = 50  # per file; the count is always exact
# Deeper than this a line is refused as bad: orjson writes at most 255 levels and the standard library
# recurses until RecursionError, so a hostile line must stop here, not in whatever handles it next
MAX_DEPTH = 200
# A longer line is a bad line, skipped to its end: a file of no newline at all (a symlink to /dev/zero, a
# damaged file) must not be held in memory whole. A transcript's biggest lines (a pasted image) are a few MB.
MAX_LINE_BYTES = 64 << 20


@dataclass(slots=True)
class Line:
    offset: int  # byte offset of the line's start
    number: int  # 1-based line number in the file
    raw: str  # the line as stored (decoded; invalid bytes replaced)
    obj: dict[str, Any]


@dataclass(slots=True)
class ReadState:
    """How far a file has been read; updated as lines are consumed."""

    offset: int = 0
    line_count: int = 0
    bad_lines: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    bytes_read: int = 0
    last_ts: float = 0.0  # the time of the last line read (its importer keeps it here)

    def problem(self, number: int, offset: int, message: str, bad: bool = True) -> None:
        if bad:
            self.bad_lines += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append({"line": number, "offset": offset, "problem": message})


def _clean(value: Any) -> Any:
    """Replace lone surrogates, which SQLite and UTF-8 cannot store."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    return value


def too_deep(obj: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and objects nest deeper than `limit` (walked without recursion)."""
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _deep(raw: bytes) -> bool:
    """A cheap first look: only a line with that many brackets can nest that deep."""
    return raw.count(b"[") + raw.count(b"{") > MAX_DEPTH


def parse_line(raw: bytes, number: int, offset: int, state: ReadState) -> Line | None:
    """One line → Line, or None (blank, or bad and reported). Never raises: any line of any shape is
    at worst a bad line, and the lines around it are kept."""
    if raw.endswith(b"\n"):
        raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]  # the payload is the line, not its end
    if not raw.strip():
        return None
    try:
        obj = orjson.loads(raw)
        text = raw.decode("utf-8")
    except (orjson.JSONDecodeError, UnicodeDecodeError) as exc:
        if "recursion" in str(exc).lower():
            state.problem(number, offset, "nested too deeply to read (over 1,024 levels)")
            return None
        text = raw.decode("utf-8", "replace")
        try:
            obj = json.loads(text)
            if _deep(raw) and too_deep(obj):
                raise RecursionError
            obj = _clean(obj)
            text = orjson.dumps(obj).decode()
        except (ValueError, RecursionError, orjson.JSONEncodeError):
            state.problem(number, offset, f"not valid JSON ({str(exc).split(':')[0]})")
            return None
        state.problem(number, offset, "invalid UTF-8 or a lone surrogate, replaced", bad=False)
    if _deep(raw) and too_deep(obj):
        state.problem(number, offset, f"nested deeper than {MAX_DEPTH} levels: not read")
        return None
    if not isinstance(obj, dict):
        state.problem(number, offset, f"a JSON {type(obj).__name__}, not an object")
        return None
    return Line(offset, number, text, obj)


def converted(convert, line: Line, state: ReadState, *args) -> None:
    """`convert(line.offset, line.raw, line.obj, *args)`, where a shape the converter did not foresee
    (a wrong type in a field, a cycle) makes this one line a bad line instead of stopping its file."""
    try:
        convert(line.offset, line.raw, line.obj, *args)
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 — any other is this line's: said with its type, the rest read
        state.problem(line.number, line.offset, f"not understood ({type(exc).__name__}: {exc})")


def compressed(path: str | os.PathLike) -> bool:
    """A zstandard-compressed log (Codex compresses old rollouts to `.jsonl.zst`): read whole, never appended."""
    return str(path).endswith(".zst")


def is_regular(path: str | os.PathLike) -> bool:
    """Whether `path` is a regular file (a symlink counts when it leads to one): a FIFO would block the
    read forever and a device (/dev/zero) never ends, so only regular files are ever opened."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def open_binary(path: str | os.PathLike):
    """The file's bytes, decompressed when it is a `.zst` (zstandard's own stream reader). A path that is not
    a regular file is refused (OSError) without being opened."""
    if not is_regular(path):
        if os.path.lexists(path):
            raise OSError(f"not a regular file (a FIFO, a device or a link to one): {path}")
        raise FileNotFoundError(f"no such file: {path}")
    if compressed(path):
        import io

        import zstandard
        # buffered: zstandard's reader has no readline, and line iteration needs one
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True))
    return open(path, "rb")


def decompressed_size(path: str | os.PathLike) -> int | None:
    """What a `.zst` file's frame header says it holds (None when the header does not say)."""
    import zstandard
    try:
        with open(path, "rb") as fh:
            size = zstandard.frame_content_size(fh.read(18))
    except (OSError, zstandard.ZstdError):
        return None
    return size if size >= 0 else None


def read_lines(path: str | os.PathLike, state: ReadState, *, chunk_bytes: int = CHUNK_BYTES,
               now: float | None = None) -> Iterator[list[Line]]:
    """Yield batches of new lines from state.offset (of the decompressed bytes, for a `.zst`); state
    advances after each batch."""
    with open_binary(path) as fh:
        st = os.stat(path)
        quiet = compressed(path) or (time.time() if now is None else now) - st.st_mtime >= STALE_S
        if compressed(path):
            while fh.tell() < state.offset and fh.read(min(chunk_bytes, state.offset - fh.tell())):
                pass  # a compressed stream only reads forward
        else:
            fh.seek(state.offset)
        pending = b""
        skipping = False  # inside a line over MAX_LINE_BYTES: its bytes are passed over up to its newline
        while True:
            block = fh.read(chunk_bytes)
            state.bytes_read += len(block)
            at_eof = len(block) < chunk_bytes
            if skipping:
                nl = block.find(b"\n")
                state.offset += len(block) if nl < 0 else nl + 1
                if nl < 0:
                    if at_eof:
                        return
                    continue
                block, skipping = block[nl + 1:], False
            data = pending + block
            cut = data.rfind(b"\n") + 1
            complete, pending = data[:cut], data[cut:]
            if at_eof and pending and quiet:
                complete, pending = data, b""  # a final line without newline, long finished
            batch = _split(complete, state)
            if batch:
                yield batch
            if len(pending) > MAX_LINE_BYTES:
                state.line_count += 1
                state.problem(state.line_count, state.offset, f"a line longer than {MAX_LINE_BYTES >> 20} MB: not read")
                state.offset += len(pending)
                pending, skipping = b"", True
            if at_eof:
                return


def _split(data: bytes, state: ReadState) -> list[Line]:
    lines: list[Line] = []
    pos = 0
    end = len(data)
    while pos < end:
        nl = data.find(b"\n", pos)
        stop = end if nl < 0 else nl + 1
        state.line_count += 1
        line = parse_line(data[pos:stop], state.line_count, state.offset + pos, state)
        if line is not None:
            lines.append(line)
        pos = stop
    state.offset += end
    return lines


def first_lines_sniff(path: str | os.PathLike, sniff, lines: int = 5) -> bool:
    """Whether one of the first `lines` JSON lines of the file is one `sniff` recognises (a tool's log)."""
    try:
        with open_binary(path) as fh:
            for _ in range(lines):
                raw = fh.readline(MAX_LINE_BYTES)
                if not raw:
                    return False
                try:
                    if sniff(orjson.loads(raw)):
                        return True
                except orjson.JSONDecodeError:
                    continue
    except (OSError, ValueError):
        return False
    return False
