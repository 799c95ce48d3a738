"""The reading half of a Claude Code import: a file's new lines, read, parsed and converted, a batch at a time.

`batches(job)` reads a file from where its last scan stopped and yields each time a batch of lines has
been converted into `job.ctx` (the importer stores it before asking for the next). A big import runs
the same generator in a process of its own (`Reader`): reading, parsing, converting and compressing
the next files then happen on a second core while the importing process stores the last ones, and
each half takes about half of an import's time. The reader only reads files; the store, and all it
decides (what is new, where a line hangs, its hash), stay in the importing process, so a reader that
dies loses nothing but its lead: the importer reads the rest itself.

This module and what it imports stay light (no SQLAlchemy, no store): the process starts in ~0.1 s.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import pickle
import queue
import re
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sessionscope.sources import jsonl
from sessionscope.sources.claude_code import backups
from sessionscope.sources.claude_code.lines import FileContext, convert
from sessionscope.store import payloads

# Below this many bytes to read, starting a process costs more than it saves (the watcher's rescans
# read a few KB): measured on 2 cores, alternating, the process pays from ~10 MB on (5 MB: 0.22 s against
# 0.18 s alone; 12 MB: 0.31 against 0.37; 46 MB: 0.54 against 0.72). The tests lower it to run the reader
# process on small homes.
PROCESS_BYTES = 8 << 20
PARSE_BYTES = 1 << 20
# What the importer reads itself, from the start, while its reader process starts: waiting for the process (~0.05 s)
# and then for the newest small files it reads first, one at a time, the importer was idle a fifth of a 50 MB
# import (0.11 of 0.55 s); reading these, 0.04 s, and the import took 0.54-0.59 s against 0.62 (2, 6 and 8 MB: no
# better than 4).
HERE_FIRST_BYTES = 4 << 20
FROZEN_FLAG = "--sessionscope-reader"  # the bundle's executable runs main() when given this first
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_AGENT_RE = re.compile(r"^agent-(.+)$")
_prepared: set[tuple[str, str]] = set()  # the backups this process prepared (each is stored once)


# Set inside `in_this_process()`: what is imported there reads in the importing process, whatever its size.
_HERE: contextvars.ContextVar[bool] = contextvars.ContextVar("sessionscope_read_here", default=False)


@contextlib.contextmanager
def in_this_process() -> Iterator[None]:
    """Imports inside read their files in the importing process, never in a reader process. The window's imports
    run so: there the second core is the window's, which lists and shows what comes in, and the reader process
    (~55 MB, and ~10 MB more the importer holds for it) was the first run's peak over 300 MB. Measured on the
    benchmark's first run (the real app on an empty store, 2 cores), alternating: 46 MB of transcripts stored in
    the same time (1.98-2.03 s against 1.89-2.01 s), the peak 261-270 MB against 313-319; 150 MB in 3.4-3.5 s
    against 3.0-3.1 s, the peak 269 MB against 337."""
    token = _HERE.set(True)
    try:
        yield
    finally:
        _HERE.reset(token)


def worth_a_process(to_read: int) -> bool:
    """Whether reading `to_read` bytes ahead in a process of its own saves time: enough bytes, and a second core
    for it (on one, the two halves take turns and the process's start and pickling are lost); never inside
    `in_this_process()`."""
    if _HERE.get():
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # (macOS, Windows)
        cores = os.cpu_count() or 1
    return to_read >= PROCESS_BYTES and cores > 1


def file_context(path: Path, root: Path, source_id: int) -> FileContext:
    """A file's parsing context: its key under the source root and the session its lines belong to."""
    stem = path.stem
    agent = _AGENT_RE.match(stem)
    file_session = stem if _UUID_RE.match(stem) else None
    if agent and path.parent.name == "subagents":
        # <session>/subagents/agent-<id>.jsonl (2.1.x); workflows nest one level deeper
        owner = next((p.name for p in path.parents if _UUID_RE.match(p.name)), None)
        file_session = owner
    try:
        key = str(path.relative_to(root))
    except ValueError:
        key = str(path)
    return FileContext(file_key=key, file_session=file_session, source_id=source_id,
                       agent_id=agent.group(1) if agent else None)


@dataclass(slots=True)
class FileJob:
    """One file to read: where from (its scan state), into what context; the importer plans it."""

    path: Path
    st: os.stat_result  # as planned: the offset saved with the last batch goes with this size and mtime
    state: jsonl.ReadState
    ctx: FileContext
    source_id: int
    # Work the reader process takes off the importing one: compress the payloads as SQLite keeps them
    # (sessionscope.store.payloads), read and compress the checkpoint backups the lines name
    compress: bool = False
    prepare_backups: bool = False
    number: int = 0  # its place in the reader's queue


def batches(job: FileJob) -> Iterator[None]:
    """Read `job.path` from `job.state`; after each batch, `job.ctx` holds its events (and the checkpoint
    backups its lines name) and `job.state` where the file was read to. Resuming clears them."""
    ctx, state = job.ctx, job.state
    start, converted = state.offset, False
    # parsed a MB at a time (a parsed line weighs several times its bytes), stored ~4 MB at a time (jsonl.CHUNK_BYTES)
    for lines in jsonl.read_lines(job.path, state, chunk_bytes=PARSE_BYTES):
        for line in lines:
            jsonl.converted(convert, line, state, ctx)
        converted = True
        if state.offset - start >= jsonl.CHUNK_BYTES:
            yield from _ready(job)
            start, converted = state.offset, False
    if converted:
        yield from _ready(job)


def _ready(job: FileJob) -> Iterator[None]:
    """Hand over what `job.ctx` holds (prepared as the job asks), then clear it."""
    ctx = job.ctx
    if job.compress:
        for sess in ctx.sessions.values():
            for e in sess.events:
                e.packed = payloads.pack_big(e.payload, e.kind)
    if job.prepare_backups and ctx.backups:
        ctx.prepared = backups.prepare_all(ctx.backups, backups.history_dirs(job.path), _prepared)
    yield
    ctx.backups.clear()
    ctx.prepared = {}
    for sess in ctx.sessions.values():  # stored: what the next batch needs of them stays
        sess.events = []
        sess.copies = {}
        sess.info.meta = {k: v for k, v in sess.info.meta.items() if k in ("title_rank", "title_source")}


class ReaderGone(Exception):
    """The reader process ended before it said it had finished (killed, out of memory)."""


class Reader:
    """`batches` in a process of its own, reading ahead of the file being stored.

    The importer submits a source's jobs, then asks for each job's batches in the same order. Each
    message is pickled in the reader as its batch is ready (before its generator clears it) and sent
    length first over the process's stdout; the pipe holds the reader back once it is a batch or two
    ahead, so memory stays that of a few batches. The process runs this module (`python -m`, or the
    bundle's `--sessionscope-reader`): not multiprocessing, whose spawn runs the caller's main script
    again in the child (a script without a `__main__` guard would import twice)."""

    AHEAD_BYTES = 12 << 20  # what may wait here, received and not yet stored (about 4 MB of small files
    # are stored in one go: the reader must be able to read the next ones meanwhile). 48 MB was no faster
    # at 500 MB and cost the importer 25 MB more at its peak; 24 MB (with 8 MB batches) no faster at 250 MB
    # than 12 (with 4 MB batches: 2.47-2.54 s against 2.48-2.49) and 22-25 MB more at the importer's peak

    def __init__(self) -> None:
        self._proc = subprocess.Popen(_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._numbered = 0
        self._inbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._room = threading.Condition()
        self._waiting = 0  # bytes in the inbox
        self._closed = False
        threading.Thread(target=self._receive_all, name="sessionscope-reader-pipe", daemon=True).start()

    def _receive_all(self) -> None:
        """Move the reader's messages into the inbox as they come (reading the pipe holds no GIL), as
        long as there is room; None when the reader has gone."""
        stream = self._proc.stdout
        try:
            while (data := _receive_bytes(stream)) is not None:
                with self._room:
                    self._room.wait_for(lambda: self._closed or self._waiting < self.AHEAD_BYTES)
                    self._waiting += len(data)
                self._inbox.put(data)
        except (OSError, ValueError):
            pass  # closed: close() was called
        self._inbox.put(None)

    def _next(self):
        data = self._inbox.get()
        if data is None:
            self._inbox.put(None)  # every later call says so too
            return None
        with self._room:
            self._waiting -= len(data)
            self._room.notify()
        return pickle.loads(data)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def submit(self, jobs: list[FileJob]) -> None:
        for job in jobs:
            self._numbered += 1
            job.number = self._numbered
        try:
            _send(self._proc.stdin, jobs)
        except OSError as exc:
            raise ReaderGone(f"the reader process ended ({exc})") from exc

    def no_more(self) -> None:
        """Nothing will be submitted after what was: the process ends once it has read and sent it, and its memory
        goes then, not when the writer has stored the last of it (~50 MB held while the first run's window grew
        beside them: #61's peak)."""
        stdin = self._proc.stdin
        try:
            if stdin is not None:
                stdin.close()
        except OSError:
            pass  # gone already: said when its next batch is asked for

    def batches(self, job: FileJob) -> Iterator[None]:
        """As `batches(job)`, read in the reader process: `job.ctx` and `job.state` are replaced by what
        the reader sent (an earlier job's messages that its importer did not wait for are passed over)."""
        while True:
            message = self._next()
            if message is None:
                raise ReaderGone(f"the reader process ended (exit code {self._proc.poll()})")
            kind, number, ctx, state, error = message
            if number < job.number:
                continue
            job.ctx, job.state = ctx, state
            if kind == "batch":
                yield
            elif kind == "end":
                return
            else:
                raise error

    def close(self) -> None:
        """Stop the reader, whatever it was doing: it holds nothing the store needs, so it is killed
        (when cancelled it may be reading hundreds of MB ahead)."""
        with self._room:
            self._closed = True  # the receiving thread must not wait for room any more
            self._room.notify()
        self._proc.kill()
        self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout):
            try:
                stream.close()
            except OSError:
                pass  # a broken pipe: it is gone already


def _command() -> list[str]:
    if getattr(sys, "frozen", False):  # the bundle: its entry point (packaging/launch.py) runs main()
        return [sys.executable, FROZEN_FLAG]
    # -I: isolated, so the caller's folder is not on sys.path (a `sessionscope/` folder where an import was
    # started would run as this module) and no PYTHON* variable changes what loads; the installed package runs
    return [sys.executable, "-I", "-m", __name__]


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)))
    stream.write(data)
    stream.flush()


def _receive_bytes(stream) -> bytes | None:
    """The next message as sent, or None when the other side has gone (no message, or half of one)."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    (size,) = struct.unpack("<Q", head)
    data = stream.read(size)
    return data if len(data) == size else None


def _receive(stream):
    data = _receive_bytes(stream)
    return None if data is None else pickle.loads(data)


def main() -> int:
    """The reader process: read each job submitted and send its batches, until the importer hangs up."""
    source = sys.stdin.buffer
    sink = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print must not land in the messages
    try:
        while (jobs := _receive(source)) is not None:
            for job in jobs:
                try:
                    for _ in batches(job):
                        _send(sink, ("batch", job.number, job.ctx, job.state, None))
                    message = ("end", job.number, job.ctx, job.state, None)
                except Exception as exc:  # noqa: BLE001 — the file's: raised again where it is stored
                    message = ("error", job.number, job.ctx, job.state, _portable(exc))
                _send(sink, message)
    except (OSError, KeyboardInterrupt):
        pass  # the importer is done (or gone)
    return 0


def _portable(exc: Exception) -> Exception:
    """`exc`, or a RuntimeError saying it when it cannot be pickled (an error type of a library's own)."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 — any pickling failure: its type and text still reach the user
        return RuntimeError(f"{type(exc).__name__}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
