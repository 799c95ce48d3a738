"""Qwen Code chats, read only (FORMATS.md §11): one JSONL file a session, appended.

Each record has Claude Code's envelope (`uuid`, `parentUuid`, `sessionId`, `type`, `cwd`)
around Gemini's payload (`message.parts[]`: text, thoughts, `functionCall`,
`functionResponse`). A record's events chain among themselves; the record's uuid names the
last of them, so a record that names it as its parent hangs under everything it said. A
rewind is a record whose parent is an earlier uuid: the tree keeps the abandoned turns as a
branch. `ui_telemetry` records (one per API call: model, tokens, time) are kept as quiet
metadata, since later records chain through them; the tokens counted are the replies' own
`usageMetadata`.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.appended import Log, read_appended
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "qwen_code"
NS = uuid.UUID("0c9e3b52-7d41-4f8a-9b6e-2a5d8c1f4e73")
_RECORD_TYPES = ("user", "assistant", "tool_result", "system")


def default_roots() -> list[Path]:
    """Where Qwen Code keeps its chats, on every system: `~/.qwen/projects` (QWEN_HOME moves `~/.qwen`)."""
    home = Path(os.environ["QWEN_HOME"]) if os.environ.get("QWEN_HOME") else Path.home() / ".qwen"
    return [home / "projects"] if (home / "projects").is_dir() else []


def sniff(obj: Any) -> bool:
    """A Qwen Code record: Claude Code's envelope with Gemini's parts, or one of Qwen's system payloads."""
    if not (isinstance(obj, dict) and isinstance(obj.get("sessionId"), str) and "uuid" in obj
            and obj.get("type") in _RECORD_TYPES):
        return False
    message = obj.get("message")
    return (isinstance(message, dict) and isinstance(message.get("parts"), list)) or "systemPayload" in obj \
        or "toolCallResult" in obj or "usageMetadata" in obj


def session_files(root: Path) -> list[Path]:
    found = [Path(d) / n for d, _dirs, names in os.walk(root) for n in names
             if n.endswith(".jsonl") and jsonl.first_lines_sniff(Path(d) / n, sniff)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def session_key(path: Path) -> str:
    return str(uuid.uuid5(NS, path.stem))


def _usage(obj: dict) -> tuple[int, int, int, int] | None:
    """(input, output, cache read, cache write) from a reply's `usageMetadata` (Gemini's counts: the prompt
    includes its cached part; thoughts are output)."""
    u = obj.get("usageMetadata")
    if not isinstance(u, dict):
        return None
    cached = int(u.get("cachedContentTokenCount") or 0)
    prompt = int(u.get("promptTokenCount") or 0)
    out = int(u.get("candidatesTokenCount") or 0) + int(u.get("thoughtsTokenCount") or 0)
    return max(0, prompt - cached), out, cached, 0


def _output(response: Any) -> str:
    if isinstance(response, dict):
        out = response.get("output", response.get("error", response))
        return out if isinstance(out, str) else orjson.dumps(out, default=str).decode()
    return "" if response is None else str(response)


def _system_text(sub: str, p: dict) -> str:
    if sub == "slash_command":
        items = p.get("outputHistoryItems") or []
        said = "\n".join(str(i.get("text")) for i in items if isinstance(i, dict) and i.get("text"))
        return f"{p.get('rawCommand', '')}{chr(10) + said if said else ''}"
    if sub == "at_command":
        return f"{p.get('userText', '')} (read {', '.join(map(str, p.get('filesRead') or []))})"
    if sub == "custom_title":
        return f"title: {p.get('customTitle', '')}"
    if sub == "rewind":
        return f"rewound to {p.get('targetUuid', '')}"
    if sub == "ui_telemetry":
        ui = p.get("uiEvent") if isinstance(p.get("uiEvent"), dict) else {}
        return (f"{ui.get('event.name', 'telemetry')}: {ui.get('model', '')} {ui.get('input_token_count', 0)} in, "
                f"{ui.get('output_token_count', 0)} out, {ui.get('duration_ms', 0)} ms")
    return str(p.get("summary") or p.get("displayText") or sub)


def convert(log: Log, line: jsonl.Line) -> None:
    obj = line.obj
    record = obj.get("uuid")
    if not isinstance(record, str) or not record:
        raise ValueError("a record with no uuid")
    ts = parse_ts(obj.get("timestamp")) or log.ts
    parent = obj.get("parentUuid")
    log.last = _event_id(log, parent) if isinstance(parent, str) and parent else None
    if isinstance(obj.get("cwd"), str) and obj["cwd"]:
        log.fields.update(cwd=obj["cwd"], project=obj["cwd"])
    if isinstance(obj.get("gitBranch"), str) and obj["gitBranch"]:
        log.fields["git_branch"] = obj["gitBranch"]
    if isinstance(obj.get("version"), str):
        log.meta["qwen_version"] = obj["version"]
    model = obj.get("model") if isinstance(obj.get("model"), str) else ""
    if model:
        log.fields["model"] = model
    kind, sub = obj.get("type"), obj.get("subtype")
    payload = obj.get("systemPayload") if isinstance(obj.get("systemPayload"), dict) else {}
    parts = (obj.get("message") or {}).get("parts") if isinstance(obj.get("message"), dict) else None
    parts = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
    made: list = []
    n = 0

    def key() -> str:
        nonlocal n
        n += 1
        return f"{record}:{n}"

    if kind == "system":
        if sub == "custom_title" and payload.get("customTitle"):
            log.fields["title"] = str(payload["customTitle"])[:200]
            log.meta.update(title_source="custom", title_rank=3 if payload.get("titleSource") == "manual" else 2)
        quiet = sub in ("ui_telemetry", "session_artifact_snapshot")
        made.append(log.add("meta" if quiet else "system", "system", _system_text(str(sub), payload), obj, ts,
                            head=False, key=key()))
        if quiet:
            made[-1].activity = False
    elif kind == "user":
        texts = [str(p["text"]) for p in parts if isinstance(p.get("text"), str) and not p.get("thought")]
        shown = payload.get("displayText") if isinstance(payload.get("displayText"), str) else "\n".join(texts)
        for p in parts:
            if isinstance(p.get("functionResponse"), dict):
                r = p["functionResponse"]
                made.append(log.result(r.get("id"), _output(r.get("response")), ts, raw=p, key=key()))
        if shown.strip() or not made:
            made.append(log.said("user", shown, ts, raw=obj, key=key()))
    elif kind == "assistant":
        for p in parts:
            if isinstance(p.get("functionCall"), dict):
                c = p["functionCall"]
                made.append(log.call(c.get("id"), str(c.get("name", "")), c.get("args"), ts, raw=p, key=key()))
            elif p.get("thought") and isinstance(p.get("text"), str):
                made.append(log.thought(p["text"], ts, raw=p, key=key()))
            elif isinstance(p.get("text"), str) and p["text"].strip():
                made.append(log.said("assistant", p["text"], ts, raw=p, key=key(), model=model))
        if not made:
            made.append(log.said("assistant", "", ts, raw=obj, key=key(), model=model))
        log.usage(made[0], model, _usage(obj))
    elif kind == "tool_result":
        result = obj.get("toolCallResult") if isinstance(obj.get("toolCallResult"), dict) else {}
        error = result.get("status") == "error" or bool(result.get("error"))
        for p in parts:
            if isinstance(p.get("functionResponse"), dict):
                r = p["functionResponse"]
                made.append(log.result(r.get("id") or result.get("callId"), _output(r.get("response")), ts,
                                       error=error, raw=obj if not made else p, key=key()))
        if not made:
            display = result.get("resultDisplay")
            made.append(log.result(result.get("callId"), display if isinstance(display, str) else _output(display),
                                   ts, error=error, raw=obj, key=key()))
    else:
        raise ValueError(f"a record of type {kind!r}, which Qwen Code's reader does not know")
    made[-1].id = log.last = _event_id(log, record)


def _event_id(log: Log, record: str) -> str:
    """The event a record's uuid names (its last): derived, never the uuid itself, so a chat an older
    Sessionscope read as Claude Code's keeps its events apart from this reading of it."""
    return str(uuid.uuid5(NS, f"{log.key}:{record}"))


import_paths = importer(KIND, session_files, read_appended(NS, convert, session_key), "Qwen Code chats")
