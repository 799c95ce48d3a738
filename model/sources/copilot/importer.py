"""GitHub Copilot, read only (FORMATS.md §8 and §6): where each of its surfaces keeps sessions, how each
file is recognised, and which reader takes it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.appended import read_appended
from sessionscope.sources.copilot import chat, cli, traces
from sessionscope.sources.documents import read_whole
from sessionscope.sources.scan import importer
from sessionscope.sources.vscode import user_dirs

KIND = "copilot"


def default_roots() -> list[Path]:
    """VS Code's (and Insiders') workspace chats and empty-window chats, the Copilot CLI's session state,
    and Visual Studio's traces (under the temp folder, on Windows)."""
    places = [d / sub for app in ("Code", "Code - Insiders") for d in user_dirs(app)
              for sub in ("workspaceStorage", "globalStorage/emptyWindowChatSessions")]
    home = Path(os.environ["COPILOT_HOME"]) if os.environ.get("COPILOT_HOME") else Path.home() / ".copilot"
    places += [home / "session-state", Path(tempfile.gettempdir()) / "VSGitHubCopilotLogs" / "traces"]
    return [p for p in places if p.is_dir()]


def sniff(obj: Any) -> bool:
    """A chat session document, a patch log's first line, a CLI event or a Visual Studio trace export."""
    return chat.is_chat(obj) or chat.is_patch_log_line(obj) or cli.sniff(obj) or traces.sniff(obj)


def _which(path: Path, *, look_inside: bool = True) -> str | None:
    """Which of Copilot's files `path` is: "chat", "cli", "traces" (None: none). A `.json` is a chat without
    `look_inside` (when it was recognised already: its reader says so if it is not, once it changed)."""
    try:
        if not jsonl.is_regular(path):
            return None
        if path.suffix == ".json" and not look_inside:
            return "chat"
        if path.suffix == ".json":
            if path.stat().st_size > 256 << 20:
                return None
            return "chat" if chat.is_chat(orjson.loads(path.read_bytes())) else None
        with open(path, "rb") as fh:
            first = orjson.loads(fh.readline(jsonl.MAX_LINE_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return None
    if chat.is_patch_log_line(first):
        return "chat"
    if cli.sniff(first):
        return "cli"
    return "traces" if traces.sniff(first) else None


def session_files(root: Path) -> list[Path]:
    found = []
    for d, dirs, names in os.walk(root):
        if Path(d).parent.name == "workspaceStorage":  # a workspace's storage: only its chats are Copilot's
            dirs[:] = [x for x in dirs if x == "chatSessions"]
        for n in names:
            if n.endswith((".json", ".jsonl")) and _which(Path(d) / n):
                found.append(Path(d) / n)
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


_readers = {"chat": read_whole(chat.build), "traces": read_whole(traces.build),
            "cli": read_appended(cli.NS, cli.convert, cli.session_key, cli.tool_id)}


def _read(store, root, path, source_id, known, report, cancel) -> None:
    kind = _which(path, look_inside=False)  # a rescan of an unchanged chat parses nothing
    if kind is None:
        report.problems.append({"path": str(path), "line": None, "offset": None,
                                "problem": "no longer a Copilot session file; left alone"})
        return
    _readers[kind](store, root, path, source_id, known, report, cancel)


import_paths = importer(KIND, session_files, _read, "GitHub Copilot's chats, CLI sessions and traces")
