"""Mistral Vibe sessions, read only (FORMATS.md §15): a folder a session, `messages.jsonl` (`{role, content,
message_id, tool_calls?, tool_call_id?}`, OpenAI-shaped, no times) and `meta.json` (`{session_id,
parent_session_id, start_time, end_time, git_branch, model, environment{working_directory}, title, stats{
session_prompt_tokens, session_completion_tokens, …}}`, rewritten). Both are read whole when either changes
(a new title or token count alone too); ids are message ids, so what was read before is not stored twice. Messages
take the session's start time (Vibe keeps no time per message); the tokens are the session's totals (stored as what they grew by).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources import jsonl
from sessionscope.sources.documents import Transcript, blocks_text, load_json, oldest_first, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "mistral_vibe"
NS = uuid.UUID("f2a8c4e6-1d3b-4a7f-8e95-2b6d0c9a7e13")
KEYS = frozenset({"role", "content", "message_id", "tool_calls", "tool_call_id", "name", "reasoning_content"})
MAX_META_BYTES = 1 << 20


def default_roots() -> list[Path]:
    """`~/.vibe/logs/session` on every system (VIBE_HOME moves `~/.vibe`)."""
    home = Path(os.environ["VIBE_HOME"]) if os.environ.get("VIBE_HOME") else Path.home() / ".vibe"
    return [home / "logs" / "session"] if (home / "logs" / "session").is_dir() else []


def sniff(obj: Any) -> bool:
    """A Vibe message line: an OpenAI-shaped message with Vibe's `message_id`, and no other keys."""
    return isinstance(obj, dict) and obj.get("role") in ("system", "user", "assistant", "tool") \
        and isinstance(obj.get("message_id"), str) and set(obj) <= KEYS


def session_files(root: Path) -> list[Path]:
    return oldest_first([Path(d) / n for d, _dirs, names in os.walk(root) for n in names
                         if n == "messages.jsonl" and jsonl.first_lines_sniff(Path(d) / n, sniff)])


def _meta(path: Path) -> dict:
    try:
        side = path.parent / "meta.json"
        if side.is_file() and side.stat().st_size <= MAX_META_BYTES:
            doc = load_json(side.read_bytes())
            return doc if isinstance(doc, dict) else {}
    except (OSError, ValueError, RecursionError):
        pass
    return {}


def build(path: Path, data: bytes) -> list[Transcript]:
    meta = _meta(path)
    sid = meta.get("session_id") if isinstance(meta.get("session_id"), str) else path.parent.name
    ts = parse_ts(meta.get("start_time")) or path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"session:{sid}")), tool_id=sid, ts=ts)
    env = meta.get("environment") if isinstance(meta.get("environment"), dict) else {}
    if isinstance(env.get("working_directory"), str) and env["working_directory"]:
        t.fields.update(cwd=env["working_directory"], project=env["working_directory"])
    model = meta.get("model") if isinstance(meta.get("model"), str) else ""
    if model:
        t.fields["model"] = model
    if isinstance(meta.get("git_branch"), str):
        t.fields["git_branch"] = meta["git_branch"]
    if isinstance(meta.get("title"), str) and meta["title"].strip():
        t.fields["title"] = " ".join(meta["title"].split())[:200]
        t.meta.update(title_source=f"vibe:{meta.get('title_source') or ''}", title_rank=2)
    if isinstance(meta.get("parent_session_id"), str):
        t.meta["vibe_parent_session_id"] = meta["parent_session_id"]
    stats = meta.get("stats") if isinstance(meta.get("stats"), dict) else {}
    tokens = [stats.get(k) for k in ("session_prompt_tokens", "session_completion_tokens")]
    if all(isinstance(v, int) and v >= 0 for v in tokens):
        t.totals, t.totals_model = (tokens[0], tokens[1]), model
    for n, m in t.json_lines(data.splitlines()):
        if not isinstance(m, dict):
            t.problems.append(f"line {n}: not a message")
            continue
        role, key = m.get("role"), str(m.get("message_id") or f"line{n}")
        if role == "user":
            t.said("user", blocks_text(m.get("content")), ts, raw=m, key=key)
        elif role == "assistant":
            if blocks_text(m.get("content")).strip() or not m.get("tool_calls"):
                t.said("assistant", blocks_text(m.get("content")), ts, raw=m, key=f"{key}:text", model=model)
            for i, c in enumerate(m.get("tool_calls") or []):
                t.function_call(c, ts, key=f"{key}:call:{i}")
        elif role == "tool":
            t.result(m.get("tool_call_id"), blocks_text(m.get("content")), ts, raw=m, key=key)
        elif role == "system":
            t.add("system", "system", blocks_text(m.get("content")), m, ts, head=False, key=key).activity = False
        else:
            t.problems.append(f"line {n}: a message of role {role!r}, which the reader does not know")
    return [t]


import_paths = importer(KIND, session_files, read_whole(build, beside=lambda p: [p.parent / "meta.json"]),
                        "Mistral Vibe sessions")
