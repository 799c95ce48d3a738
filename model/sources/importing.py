"""Import any folder or file: each file goes to the tool whose format its content is.

A file is recognised by its first JSON line, or a `.json` file by its whole
document (`Source.sniff`), never by where it lies or what it is called, so a
folder of Codex rollouts is never read as Claude Code transcripts. A `.jsonl`
file that is JSON but no tool's format is reported as such and left alone (a
`.json` one only when named directly: chat folders hold other JSON too); one
with no readable line at all (empty, or garbage) goes to the default transcript
reader, which counts its bad lines.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import orjson

from sessionscope.sources import json_stream, jsonl, of, server_databases, tools
from sessionscope.sources.databases import SUFFIXES as SQLITE_SUFFIXES
from sessionscope.sources.scan import ImportReport

DEFAULT = "claude_code"  # reads a file of no recognisable line, counting its bad lines
_SNIFF_LINES = 20
Progress = Callable[[int, int, str], None]


MAX_DOCUMENT_BYTES = 256 << 20  # a `.json` chat (Gemini's legacy format) is read whole to be recognised


DOCUMENTS = (".json", ".traj")  # whole JSON documents (a Gemini legacy chat; SWE-agent's trajectories)
UNREAD_CONVERSATION = "unread-conversation"  # classify: a conversation in a format no source reads yet
_NOT_JSON = object()
_CONVERSATION_KEYS = ("history", "messages", "trajectory", "conversation", "chat", "turns", "items", "events")


SNIFF_WHOLE_BYTES = 2 << 20  # a bigger document is recognised by its first item alone (json_stream)


def _document(path: Path):
    """The file as one JSON document, or _NOT_JSON (too big, unreadable, not JSON). A big array (a chat service's
    export of every conversation) is given as its first item alone: what recognising it needs, in bounded memory."""
    try:
        if not jsonl.is_regular(path):
            return _NOT_JSON
        if path.stat().st_size <= SNIFF_WHOLE_BYTES:
            try:
                return orjson.loads(path.read_bytes())
            except orjson.JSONDecodeError as exc:
                if "recursion" not in str(exc).lower():
                    return _NOT_JSON
                # nested past orjson's depth somewhere: recognised by its first item (one bad item, not the file)
        with open(path, "rb") as fh:  # (of any size: only its first item is held)
            array = fh.read(64).lstrip()[:1] == b"["
            fh.seek(0)
            first = next(json_stream.items(fh), _NOT_JSON)
        return _NOT_JSON if first is _NOT_JSON or isinstance(first, json_stream.Unreadable) else \
            [first] if array else first
    except (OSError, ValueError):
        return _NOT_JSON


def _conversation_like(doc) -> bool:
    """Whether a JSON document no tool claims still looks like a conversation (a list of messages with roles,
    itself or under `history`, `messages`, `trajectory`, …): such a file is said, never skipped in silence."""
    def messages(value) -> bool:
        return isinstance(value, list) and len(value) > 0 and sum(
            1 for m in value[:20] if isinstance(m, dict) and ("role" in m or ("action" in m and "observation" in m))) \
            >= max(1, min(len(value), 20) // 2)
    if messages(doc):
        return True
    return isinstance(doc, dict) and any(messages(doc.get(k)) for k in _CONVERSATION_KEYS)


DATABASES = SQLITE_SUFFIXES  # (Cursor's state.vscdb too)
# files that are not JSON: each tool's `claims` looks inside (Aider's Markdown, a chat service's export zip)
CLAIMED = DATABASES + (".md", ".zip")


def classify(path: Path) -> str | None:
    """The kind of tool a file belongs to; None when it is JSON (or a database) of no known format."""
    if path.suffix in CLAIMED:
        return next((t.kind_for(path) for t in tools() if t.claims(path)), None)
    if path.suffix in DOCUMENTS:
        doc = _document(path)
        if doc is _NOT_JSON:
            return None
        return _first_sniffing(doc, path) or (UNREAD_CONVERSATION if _conversation_like(doc) else None)
    read_any, opens = False, None
    try:
        with jsonl.open_binary(path) as fh:
            for _ in range(_SNIFF_LINES):
                raw = fh.readline(jsonl.MAX_LINE_BYTES)  # never a whole file of no newline
                if not raw:
                    break
                if not raw.strip():
                    continue
                opens = raw.strip() if opens is None else opens
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                read_any = True
                kind = _first_sniffing(obj, path)
                if kind is not None:  # the first line a tool knows decides (a stray line before it does not)
                    return kind
    except (OSError, ValueError):  # ValueError: a damaged zstandard frame
        return DEFAULT  # its importer reports why it cannot be read
    if read_any:
        return None
    # no line is JSON: one pretty-printed document (a .traj, an exported chat: its first line a lone `{` or `[`)
    # is read whole, not as bad lines; a damaged transcript is not read a second time for it
    pretty = opens in (b"{", b"[") and not jsonl.compressed(path)
    doc = _document(path) if pretty else _NOT_JSON
    if doc is not _NOT_JSON:
        return _first_sniffing(doc, path) or (UNREAD_CONVERSATION if _conversation_like(doc) else None)
    return DEFAULT if path.name.endswith((".jsonl", ".jsonl.zst")) else None


def _first_sniffing(obj, path: Path) -> str | None:
    """The kind of the first tool whose sniff takes `obj` (a fork of it where the file lies in the fork's place:
    Source.kind_for). A sniff that fails on a value it did not foresee (`"type": {}`) says no: one odd line must
    never stop a scan of every other file."""
    for t in tools():
        try:
            if t.sniff(obj):
                return t.kind_for(path)
        except Exception:
            continue
    return None


# files a tool's own reader takes with the rest of its folder (Cline's task files: cline/importer.py)
_COMPANIONS = frozenset({"ui_messages.json", "api_conversation_history.json", "task_metadata.json"})
_UNREAD = {None: "not a session format Sessionscope reads; left alone",
           UNREAD_CONVERSATION: "a conversation in a format Sessionscope does not read yet; left alone"}


# files the tools keep beside their sessions that are never sessions: our journal, prompt histories (Claude
# Code's and Amp's `history.jsonl`), Amp's secrets, Junie's index of its session folders
_NOT_SESSIONS = frozenset({"journal.jsonl", "history.jsonl", "secrets.json", "index.jsonl"})


def walk(folder: Path):
    """os.walk of a folder, leaving out the subfolders a tool reads through its sessions' files
    (`Source.companion_folders`: OpenCode's thousands of message and part files are its sessions' own)."""
    layouts = [t.companion_folders for t in tools() if t.companion_folders]
    for d, dirs, names in os.walk(folder):
        if dirs:
            present = frozenset(dirs)
            left = [read for marks, read in layouts if marks <= present]
            if left:
                dirs[:] = [x for x in dirs if not any(x in read for read in left)]
        yield d, dirs, names


def _files(folder: Path) -> list[Path]:
    # only regular files: a FIFO named x.jsonl would block the scan forever, a link to /dev/zero never end
    return [Path(d) / n for d, _dirs, names in walk(folder) for n in names
            if n.endswith((".jsonl", ".jsonl.zst") + DOCUMENTS + CLAIMED) and n not in _NOT_SESSIONS
            and not (n.startswith("context") and "wire.jsonl" in names)  # Kimi's model context beside its log
            and jsonl.is_regular(Path(d) / n)]


def merge(into: ImportReport, part: ImportReport) -> None:
    for name in ("files_seen", "files_read", "bytes_read", "events_added", "bad_lines", "seconds"):
        setattr(into, name, getattr(into, name) + getattr(part, name))
    into.sessions |= part.sessions
    into.problems += part.problems
    into.cancelled = into.cancelled or part.cancelled


def import_paths(store, paths: Iterable[str | os.PathLike], *, progress: Progress | None = None,
                 cancel: threading.Event | None = None, warm: bool = True) -> ImportReport:
    """Import what the folders and files hold, each file by the tool whose format it is. Nothing is written
    into a store whose file is damaged (StoreUnavailable, saying what to do)."""
    if hasattr(store, "refuse_if_damaged"):
        store.refuse_if_damaged()
    if hasattr(store, "url"):
        from sessionscope.live.signals import drain
        drain(store)  # the hooks' signals that waited for the store (sessionscope.live.hook)
    report = ImportReport()
    work: list[tuple[str, Path, set[Path] | None, int]] = []  # (kind, location, files of it, bytes)
    for p in paths:
        if server_databases.is_address(p):  # a LangGraph or Agents SDK database on a PostgreSQL server
            merge(report, server_databases.import_address(store, p))
            continue
        p = Path(p).expanduser().absolute()
        if p.is_dir():
            by_kind: dict[str, set[Path]] = {}
            unread: list[tuple[Path, str | None]] = []
            for f in _files(p):
                kind = classify(f)
                if kind is None and f.suffix in DOCUMENTS + CLAIMED:
                    continue  # a folder holds other JSON, databases and Markdown too (logs, settings): not sessions
                if kind in (None, UNREAD_CONVERSATION):
                    unread.append((f, kind))
                else:
                    by_kind.setdefault(kind, set()).add(f)
            read_in = {f.parent for fs in by_kind.values() for f in fs}
            for f, kind in unread:  # (a conversation-like file beside a session read is its companion: not said)
                if kind is None or (f.parent not in read_in and f.name not in _COMPANIONS):
                    report.problems.append({"path": str(f), "line": None, "offset": None, "problem": _UNREAD[kind]})
            work += [(k, p, fs, sum(f.stat().st_size for f in fs)) for k, fs in sorted(by_kind.items())]
        elif p.is_file() and _our_export(p):
            _import_export(store, p, report)
        elif p.is_file():
            kind = classify(p)
            if kind in (None, UNREAD_CONVERSATION):
                report.problems.append({"path": str(p), "line": None, "offset": None, "problem": _UNREAD[kind]})
            else:
                work.append((kind, p, None, p.stat().st_size))
        else:
            report.problems.append({"path": str(p), "line": None, "offset": None, "problem": "no such file or folder"})
    total, done = sum(w[3] for w in work), 0
    for kind, location, only, size in work:
        if cancel is not None and cancel.is_set():
            report.cancelled = True
            break
        base = done

        def step(d: int, _t: int, path: str, base: int = base) -> None:
            if progress:
                progress(base + d, total, path)
        merge(report, of(kind).import_paths(store, [location], progress=step, cancel=cancel, warm=warm, only=only))
        done += size
    return report


def catch_up(store, settle: float = 0.0) -> ImportReport:
    """What the tools wrote into this store as their agents' backend and no session shows yet (a process
    killed between a save and its showing), shown now: asked by `scan` and by the app's watcher (which
    passes `settle`: see Source.catch_up)."""
    report = ImportReport()
    for tool in tools():
        if (part := tool.catch_up(store, settle)) is not None:
            merge(report, part)
    return report


def _our_export(path: Path) -> bool:
    from sessionscope.export.jsonl import is_export
    return path.suffix == ".jsonl" and is_export(path)


def _import_export(store, path: Path, report: ImportReport) -> None:
    """Our own lossless JSONL export, named directly: verified whole, then its sessions as they were."""
    from sessionscope.errors import SessionscopeError
    from sessionscope.export.jsonl import import_file
    report.files_seen += 1
    try:
        result = import_file(store, path)
    except SessionscopeError as exc:
        report.problems.append({"path": str(path), "line": None, "offset": None, "problem": str(exc)})
        return
    report.files_read += 1
    report.events_added += result.events
    report.sessions |= set(result.imported) | set(result.already_here)


def default_roots() -> list[Path]:
    """Every registered tool's default places."""
    return [root for tool in tools() for root in tool.default_roots()]
