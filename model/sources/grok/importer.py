"""Grok Build sessions, read only (FORMATS.md §15): `chat_history.jsonl` appended, one folder a session.

Lines are `{type: system | user | reasoning | assistant | tool_result | backend_tool_call, …}` in order, with no time
and no parent: each hangs under the one before, named by its byte offset. A user line with a `synthetic_reason`
(environment, project instructions, an interjection) is context Grok added, not a prompt typed; `assistant` has
`content` and `tool_calls[{id, name, arguments (a JSON string)}]`, `tool_result` names `tool_call_id`; a
`backend_tool_call` (a web search the server ran) is a call and its result at once. `summary.json` beside the file
(rewritten by Grok) gives the session's id, folder, title, model, times and parent session: read with each scan.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.appended import Log, read_appended
from sessionscope.sources.documents import blocks_text, parsed
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "grok"
NS = uuid.UUID("6e2f9a14-3b7c-4d8e-a1f2-0c5b7d9e3a61")
MAX_SUMMARY_BYTES = 1 << 20


def default_roots() -> list[Path]:
    """Where Grok Build keeps sessions, on every system: `~/.grok/sessions` (GROK_HOME moves `~/.grok`)."""
    home = Path(os.environ["GROK_HOME"]) if os.environ.get("GROK_HOME") else Path.home() / ".grok"
    return [home / "sessions"] if (home / "sessions").is_dir() else []


def sniff(obj: Any) -> bool:
    """A Grok Build chat line (the lines another tool could also write, a bare system line, are left to the next)."""
    if not isinstance(obj, dict) or "uuid" in obj or "payload" in obj or "session_id" in obj or "sessionId" in obj:
        return False
    t = obj.get("type")
    if t == "user":
        return isinstance(obj.get("content"), list) and ("prompt_index" in obj or "synthetic_reason" in obj)
    if t == "assistant":
        return "model_id" in obj or ("tool_calls" in obj and isinstance(obj.get("content"), str))
    if t == "backend_tool_call":
        return isinstance(obj.get("kind"), dict)
    if t == "reasoning":
        return isinstance(obj.get("summary"), list) and isinstance(obj.get("id"), str) and obj["id"].startswith("rs_")
    return False


def session_files(root: Path) -> list[Path]:
    found = [Path(d) / n for d, _dirs, names in os.walk(root) for n in names
             if n == "chat_history.jsonl" and jsonl.first_lines_sniff(Path(d) / n, sniff)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def session_key(path: Path) -> str:
    return str(uuid.uuid5(NS, str(path.parent)))


def _summary(path: Path) -> dict:
    try:
        side = path.parent / "summary.json"
        if side.is_file() and side.stat().st_size <= MAX_SUMMARY_BYTES:
            doc = orjson.loads(side.read_bytes())
            return doc if isinstance(doc, dict) else {}
    except (OSError, orjson.JSONDecodeError):
        pass
    return {}


def tool_id(path: Path) -> str:
    info = _summary(path).get("info")
    sid = info.get("id") if isinstance(info, dict) else None
    return sid if isinstance(sid, str) and sid else path.parent.name


def setup(log: Log, path: Path) -> None:
    """What summary.json says of the session (each scan: Grok rewrites it)."""
    s = _summary(path)
    info = s.get("info") if isinstance(s.get("info"), dict) else {}
    if isinstance(info.get("cwd"), str) and info["cwd"]:
        log.fields.update(cwd=info["cwd"], project=info["cwd"])
    title = s.get("generated_title") or s.get("session_summary")
    if isinstance(title, str) and title.strip():
        log.fields["title"] = " ".join(title.split())[:200]
        log.meta.update(title_source="grok", title_rank=2)
    if isinstance(s.get("current_model_id"), str):
        log.fields["model"] = s["current_model_id"]
    if isinstance(s.get("head_branch"), str):
        log.fields["git_branch"] = s["head_branch"]
    for k in ("parent_session_id", "agent_name", "chat_format_version", "reasoning_effort"):
        if s.get(k) is not None:
            log.meta[f"grok_{k}"] = s[k]
    started = parse_ts(s.get("created_at"))
    log.ts = started or log.ts  # lines have no time: the session's start (Grok's), else the file's


def convert(log: Log, line: jsonl.Line) -> None:
    obj = line.obj
    t = obj.get("type")
    ts = log.ts
    n = 0

    def key() -> str:
        nonlocal n
        n += 1
        return log.line_key(n)

    if t == "user":
        text = blocks_text(obj.get("content"))
        if obj.get("synthetic_reason"):  # context Grok added: on the chain, never a prompt nor the title
            log.add("system", "system", f"[{obj['synthetic_reason']}] {text}", obj, ts, key=key())
        else:
            log.said("user", text, ts, raw=obj, key=key())
    elif t == "system":
        log.add("system", "system", blocks_text(obj.get("content")), obj, ts, head=False, key=key()).activity = False
    elif t == "reasoning":
        log.thought(blocks_text(obj.get("summary")) or "(reasoning kept encrypted by Grok)", ts, raw=obj, key=key())
    elif t == "assistant":
        model = obj.get("model_id") if isinstance(obj.get("model_id"), str) else ""
        if blocks_text(obj.get("content")).strip() or not obj.get("tool_calls"):
            log.said("assistant", blocks_text(obj.get("content")), ts, raw=obj, key=key(), model=model)
        for c in obj.get("tool_calls") or []:
            if isinstance(c, dict):
                log.call(c.get("id"), str(c.get("name", "")), parsed(c.get("arguments")), ts, raw=c, key=key())
    elif t == "tool_result":
        log.result(obj.get("tool_call_id"), blocks_text(obj.get("content")), ts, error=obj.get("is_error") is True,
                   raw=obj, key=key())
    elif t == "backend_tool_call" and isinstance(obj.get("kind"), dict):
        k = obj["kind"]
        action = k.get("action") if isinstance(k.get("action"), dict) else {}
        call_id = k.get("id") if isinstance(k.get("id"), str) else None
        log.call(call_id, str(k.get("tool_type") or "server tool"), action, ts, raw=obj, key=key())
        sources = [s.get("url") for s in action.get("sources") or [] if isinstance(s, dict) and s.get("url")]
        log.result(call_id, "\n".join(sources) or str(k.get("status") or ""), ts, error=k.get("status") == "failed",
                   raw={"call_id": call_id, "status": k.get("status"), "sources": sources}, key=key())
    else:  # a line type this reader does not know: kept whole, listed as drift
        log.add("opaque", None, str(t), obj, ts, head=False, key=key()).activity = False


import_paths = importer(KIND, session_files, read_appended(NS, convert, session_key, tool_id=tool_id, setup=setup),
                        "Grok Build sessions")
