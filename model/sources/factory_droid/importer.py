"""Factory Droid sessions, read only (FORMATS.md §15): one JSONL file a session, appended.

The session store's first line is `{type: session_start, id, title, cwd, owner, version}`; then
`{type: message, id, parentId, timestamp, message{role, content[text | tool_use{id, name, input} |
tool_result{tool_use_id, content, is_error?}]}}` lines, a tree by `parentId` (the first names the session).
A saved `droid exec --output-format stream-json` run is flat: `{type: system | message | tool_call | tool_result |
completion | error, session_id, timestamp, …}`, each under the one before; its calls and results pair by
`toolCallId`. A line of a type this reader does not know is kept whole (opaque, listed as drift).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources import jsonl
from sessionscope.sources.appended import Log, read_appended
from sessionscope.sources.documents import blocks_text
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "factory_droid"
NS = uuid.UUID("8a1d4e7f-2b3c-4d5e-9f60-7a8b9c0d1e2f")
STREAM_TYPES = ("system", "message", "tool_call", "tool_result", "completion", "error")


def default_roots() -> list[Path]:
    """Where Droid keeps sessions, on every system: `~/.factory/sessions` (FACTORY_HOME moves `~/.factory`)."""
    home = Path(os.environ["FACTORY_HOME"]) if os.environ.get("FACTORY_HOME") else Path.home() / ".factory"
    return [home / "sessions"] if (home / "sessions").is_dir() else []


def sniff(obj: Any) -> bool:
    """Droid's session-store header, or a line of `droid exec`'s stream-json (every one names its session_id)."""
    if not isinstance(obj, dict):
        return False
    if obj.get("type") == "session_start":
        return isinstance(obj.get("id"), str) and "cwd" in obj and ("owner" in obj or "sessionTitle" in obj)
    return obj.get("type") in STREAM_TYPES and isinstance(obj.get("session_id"), str) and "timestamp" in obj \
        and "uuid" not in obj and "payload" not in obj


def session_files(root: Path) -> list[Path]:
    found = [Path(d) / n for d, _dirs, names in os.walk(root) for n in names
             if n.endswith(".jsonl") and jsonl.first_lines_sniff(Path(d) / n, sniff)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def session_key(path: Path) -> str:
    return str(uuid.uuid5(NS, str(path)))


def _entry(log: Log, name: str) -> str:
    return str(uuid.uuid5(NS, f"{log.key}:{name}"))


def _stored(log: Log, obj: dict, ts: float) -> None:
    """A session-store line."""
    t = obj.get("type")
    if t == "session_start":
        log.tool_id = obj["id"] if isinstance(obj.get("id"), str) else log.tool_id
        log.meta.update(droid_kind="store", droid_session=obj.get("id"))
        if isinstance(obj.get("cwd"), str) and obj["cwd"]:
            log.fields.update(cwd=obj["cwd"], project=obj["cwd"])
        if isinstance(obj.get("version"), str):
            log.meta["cli_version"] = obj["version"]
        title = obj.get("sessionTitle") or obj.get("title")
        if isinstance(title, str) and title.strip():
            log.fields["title"] = " ".join(title.split())[:200]
            log.meta.update(title_source="droid", title_rank=2)
        log.meta["_session_line"] = obj.get("id")
        return
    entry = obj.get("id")
    if not isinstance(entry, str) or not entry:
        raise ValueError("a line with no id")
    parent = obj.get("parentId")
    seen: set[str] = log.meta.setdefault("_seen", set())  # this run's entries
    first = parent == log.meta.get("_session_line") or parent == log.tool_id  # under the session line: a root
    log.last = _entry(log, parent) if isinstance(parent, str) and parent and not first else None
    n = 0

    def key() -> str:
        nonlocal n
        n += 1
        return f"{entry}:{n}"
    made = []
    m = obj.get("message") if isinstance(obj.get("message"), dict) else None
    if t == "message" and m is not None:
        role = "assistant" if m.get("role") == "assistant" else "user"
        model = m.get("model") if isinstance(m.get("model"), str) else ""
        content = m.get("content")
        for b in content if isinstance(content, list) else []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                made.append(log.call(b.get("id"), str(b.get("name", "")), b.get("input"), ts, raw=b, key=key()))
            elif b.get("type") == "tool_result":
                made.append(log.result(b.get("tool_use_id"), blocks_text(b.get("content")), ts,
                                       error=b.get("is_error") is True, raw=b, key=key()))
            elif b.get("type") == "thinking" and isinstance(b.get("thinking"), str):
                made.append(log.thought(b["thinking"], ts, raw=b, key=key()))
            elif isinstance(b.get("text"), str) and b["text"].strip():
                made.append(log.said(role, b["text"], ts, raw=b, key=key(), model=model))
        if not made:
            made.append(log.said(role, blocks_text(content), ts, raw=obj, key=key(), model=model))
    else:  # a line type this reader does not know: kept whole, said as drift
        made.append(log.add("opaque", None, str(t), obj, ts, head=False, key=key()))
        made[-1].activity = False
    if isinstance(parent, str) and parent and parent not in seen and log.last is not None:
        made[0].logical_parent = True  # an entry of an earlier run (stored), else under the session's head
    made[-1].id = log.last = _entry(log, entry)
    seen.add(entry)


def _output(value: Any) -> tuple[str, bool]:
    if isinstance(value, dict):
        out = "\n".join(str(value[k]) for k in ("stdout", "stderr", "output") if value.get(k))
        code = value.get("exitCode")
        failed = isinstance(code, int) and code != 0 or bool(value.get("error"))
        return (f"{out}\n(exit code {code})".strip() if failed and code is not None else out or str(value)), failed
    return ("" if value is None else str(value)), False


def _streamed(log: Log, obj: dict, ts: float) -> None:
    """A line of `droid exec`'s stream-json: flat, each under the one before."""
    log.meta.setdefault("droid_kind", "exec")
    log.tool_id = obj["session_id"]
    t = obj.get("type")
    if isinstance(obj.get("cwd"), str) and obj["cwd"]:
        log.fields.update(cwd=obj["cwd"], project=obj["cwd"])
    if isinstance(obj.get("model"), str) and obj["model"]:
        log.fields["model"] = obj["model"]
    key = f"{obj['id']}" if isinstance(obj.get("id"), str) and obj["id"] else log.line_key()
    if t == "system":
        log.add("meta", None, f"droid exec: {obj.get('model') or ''}", obj, ts, head=False, key=key).activity = False
    elif t == "message":
        log.said("assistant" if obj.get("role") == "assistant" else "user", str(obj.get("text") or ""), ts, raw=obj,
                 key=key, model=str(obj.get("model") or ""))
    elif t == "tool_call":
        log.call(obj.get("toolCallId"), str(obj.get("toolName", "")), obj.get("parameters"), ts, raw=obj, key=key)
    elif t == "tool_result":
        text, failed = _output(obj.get("value"))
        log.result(obj.get("toolCallId"), text, ts, error=failed or obj.get("isError") is True, raw=obj, key=key)
    elif t == "completion":
        log.said("assistant", str(obj.get("finalText") or ""), ts, raw=obj, key=key)
    elif t == "error":
        log.add("system", "error", f"error: {obj.get('message') or obj.get('error') or ''}", obj, ts, key=key)
    else:
        log.add("opaque", None, str(t), obj, ts, head=False, key=key).activity = False


def convert(log: Log, line: jsonl.Line) -> None:
    obj = line.obj
    ts = parse_ts(obj.get("timestamp")) or log.ts
    if obj.get("type") == "session_start" or "parentId" in obj or log.meta.get("droid_kind") == "store":
        _stored(log, obj, ts)
    else:
        _streamed(log, obj, ts)


import_paths = importer(KIND, session_files, read_appended(NS, convert, session_key, tool_id=lambda p: p.stem),
                        "Factory Droid sessions")
