"""DeepSeek TUI's sessions, read only: `~/.deepseek/sessions/<id>.json` (`~/.codewhale/sessions/` before its rename),
one JSON document a session, rewritten whole as it grows: `{schema_version, metadata{id, title, created_at,
updated_at, model, workspace, total_tokens}, messages[{role, content, timestamp, model}]}`. A message's content is
text, or Anthropic-shaped blocks: text, thinking, tool_use (and server_tool_use) with its id, tool_result naming
it (its content text, blocks or an object). `latest.json` and `offline_queue.json` beside them are not sessions."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources.documents import Transcript, is_document, load_json, oldest_first, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "deepseek_tui"
NS = uuid.UUID("0d5e7c3a-4b19-4f2e-9a86-7c1d3e5f9b20")
NOT_SESSIONS = frozenset({"latest.json", "offline_queue.json"})


def default_roots() -> list[Path]:
    home = Path.home()
    return [d for d in (home / ".deepseek" / "sessions", home / ".codewhale" / "sessions") if d.is_dir()]


def sniff(doc: Any) -> bool:
    """A DeepSeek TUI session: its metadata (an id, and a workspace, model or time of its own) and its messages."""
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        return False
    meta = doc.get("metadata")
    return isinstance(meta, dict) and isinstance(meta.get("id"), str) and \
        any(k in meta for k in ("workspace", "created_at", "total_tokens")) and \
        all(isinstance(m, dict) and "role" in m for m in doc["messages"][:20])


def session_files(root: Path) -> list[Path]:
    """The session files of a sessions folder (not its `checkpoints/`, nor the files that are no session)."""
    if root.is_file():
        return [root]
    found = [p for p in root.glob("*.json") if p.name not in NOT_SESSIONS and is_document(p, sniff)]
    return oldest_first(found)


def _text(value: Any) -> str:
    """A tool result's content as text: a string, text blocks, or an object's output."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(b.get("text") or "") for b in value if isinstance(b, dict))
    if isinstance(value, dict):
        out = value.get("output", value.get("text"))
        return out if isinstance(out, str) else ""
    return ""


def _message(t: Transcript, i: int, m: dict, model: str) -> None:
    role, ts = m.get("role"), parse_ts(m.get("timestamp"))
    own = m.get("model")
    model = own if isinstance(own, str) and own else model
    content = m.get("content")
    if role not in ("user", "assistant"):
        if role is not None:
            t.add("meta", None, f"[a {role} message]", m, ts, head=False, key=f"m{i}")
        return
    if isinstance(content, str):
        if content.strip():
            t.said(role, content, ts, key=f"m{i}", model=model)
        return
    for n, b in enumerate(content if isinstance(content, list) else []):
        if not isinstance(b, dict):
            continue
        kind, key = b.get("type"), f"m{i}:{n}"
        if kind == "text" and str(b.get("text") or "").strip():
            t.said(role, str(b["text"]), ts, key=key, model=model)
        elif kind == "thinking":
            t.thought(str(b.get("thinking") or b.get("text") or ""), ts, key=key)
        elif kind in ("tool_use", "server_tool_use"):
            t.call(b.get("id"), str(b.get("name") or b.get("tool_name") or ""), b.get("input", b.get("parameters")),
                   ts, raw=b, key=key)
        elif kind in ("tool_result", "tool_search_tool_result", "code_execution_tool_result"):
            t.result(b.get("tool_use_id"), _text(b.get("content")), ts, error=bool(b.get("is_error")), key=key)


def build(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    if not sniff(doc):
        raise ValueError("not a DeepSeek TUI session")
    meta = doc["metadata"]
    sid = str(meta["id"])[:200]
    t = Transcript(NS, str(uuid.uuid5(NS, sid)), tool_id=sid,
                   ts=parse_ts(meta.get("created_at")) or path.stat().st_mtime)
    if isinstance(meta.get("workspace"), str) and meta["workspace"]:
        t.fields.update(cwd=meta["workspace"], project=meta["workspace"])
    model = meta.get("model") if isinstance(meta.get("model"), str) else ""
    if model:
        t.fields["model"] = model[:100]
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        t.fields["title"] = " ".join(meta["title"].split())[:200]
        t.meta.update(title_source="deepseek_tui", title_rank=2)
    for i, m in enumerate(doc["messages"]):
        if isinstance(m, dict):
            _message(t, i, m, model)
    total = meta.get("total_tokens")
    if isinstance(total, int) and not isinstance(total, bool) and total > 0:
        t.totals = (total, 0)  # (the session's one figure: it counts no input and output apart)
    return [t]


import_paths = importer(KIND, session_files, read_whole(build), "DeepSeek TUI sessions")
