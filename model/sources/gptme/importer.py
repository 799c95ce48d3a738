"""gptme conversation logs, read only (FORMATS.md §15): one `conversation.jsonl` a conversation, appended.

Each line is a message `{role: system | user | assistant | tool, content, timestamp (naive ISO, local time),
pinned?, hide?, metadata{model, usage{input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens},
cost}?}`, in order: each hangs under the one before, named by its byte offset. gptme's tools are code blocks inside
the assistant's text and their output comes back as a `tool` message, with no id to pair them by: the output is a
result of its own. The folder's name (`<date>-<name>`) is the conversation's name.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources import jsonl
from sessionscope.sources.appended import Log, read_appended
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "gptme"
NS = uuid.UUID("b4c1e7d2-5a93-4f6e-8d20-3e9a7c1b5f84")
KEYS = frozenset({"role", "content", "timestamp", "pinned", "hide", "metadata", "files", "quiet", "call_id"})
NAIVE_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$")  # gptme's own: local time, microseconds


def default_roots() -> list[Path]:
    """gptme's logs: `$XDG_DATA_HOME/gptme/logs` (default ~/.local/share; gptme uses the same path on macOS)."""
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return [data / "gptme" / "logs"] if (data / "gptme" / "logs").is_dir() else []


def sniff(obj: Any) -> bool:
    """A gptme message line: only gptme's keys, and its naive microsecond timestamp."""
    return isinstance(obj, dict) and obj.get("role") in ("system", "user", "assistant", "tool") \
        and isinstance(obj.get("content"), str) and isinstance(obj.get("timestamp"), str) \
        and NAIVE_TS.match(obj["timestamp"]) is not None and set(obj) <= KEYS


def session_files(root: Path) -> list[Path]:
    found = [Path(d) / n for d, _dirs, names in os.walk(root) for n in names
             if n == "conversation.jsonl" and jsonl.first_lines_sniff(Path(d) / n, sniff)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def session_key(path: Path) -> str:
    return str(uuid.uuid5(NS, str(path.parent)))


def _usage(meta: dict) -> tuple[int, int, int, int] | None:
    u = meta.get("usage")
    if not isinstance(u, dict):
        return None
    n = lambda k: int(u[k]) if isinstance(u.get(k), (int, float)) and u[k] > 0 else 0  # noqa: E731
    return n("input_tokens"), n("output_tokens"), n("cache_read_tokens"), n("cache_creation_tokens")


def convert(log: Log, line: jsonl.Line) -> None:
    obj = line.obj
    role = obj.get("role")
    text = obj.get("content") if isinstance(obj.get("content"), str) else ""
    ts = parse_ts(obj.get("timestamp")) or log.ts
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if role == "user":
        log.said("user", text, ts, raw=obj, key=log.line_key())
    elif role == "assistant":
        model = meta.get("model") if isinstance(meta.get("model"), str) else ""
        if model:
            log.fields["model"] = model
        e = log.said("assistant", text, ts, raw=obj, key=log.line_key(), model=model)
        log.usage(e, model, _usage(meta))
    elif role == "tool":
        log.result(None, text, ts, raw=obj, key=log.line_key())
    elif role == "system":
        e = log.add("system", "system", text, obj, ts, head=False, key=log.line_key())
        e.activity = not obj.get("hide")
    else:
        raise ValueError(f"a message of role {role!r}, which gptme's reader does not know")


def setup(log: Log, path: Path) -> None:
    log.meta["gptme_name"] = path.parent.name  # <date>-<name>


import_paths = importer(KIND, session_files, read_appended(NS, convert, session_key, tool_id=lambda p: p.parent.name,
                                                           setup=setup), "gptme conversations")
