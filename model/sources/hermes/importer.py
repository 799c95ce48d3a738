"""Hermes Agent sessions, read only (FORMATS.md §15): `{session_id, model, platform (cli, telegram, …),
session_start, last_updated, cwd | model_config{cwd}, system_prompt?, tools[]?, messages[]}`, rewritten whole.

`messages` are OpenAI chat messages: `user`, `assistant` (`content`, `reasoning`, `tool_calls[{id, function{name,
arguments}}]`), `tool` (`tool_call_id`), and Hermes's own bookkeeping (`session_meta`: kept quiet). The
document has no per-message time: they take the session's start. Read again whole when it changes; message ids
are positions, so what was read before is not stored twice.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources.documents import Transcript, blocks_text, is_document, load_json, oldest_first, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "hermes"
NS = uuid.UUID("d7e3a9c1-4b2f-4e58-9a6d-1c8f0b3e5a27")


def default_roots() -> list[Path]:
    """`~/.hermes/sessions` on every system (HERMES_HOME moves `~/.hermes`)."""
    home = Path(os.environ["HERMES_HOME"]) if os.environ.get("HERMES_HOME") else Path.home() / ".hermes"
    return [home / "sessions"] if (home / "sessions").is_dir() else []


def sniff(doc: Any) -> bool:
    """A Hermes session: its `session_id`, `session_start`, `platform` and a `messages` list."""
    return isinstance(doc, dict) and isinstance(doc.get("session_id"), str) and "session_start" in doc \
        and "platform" in doc and isinstance(doc.get("messages"), list)


def session_files(root: Path) -> list[Path]:
    return oldest_first([Path(d) / n for d, _dirs, names in os.walk(root) for n in names
                         if n.endswith(".json") and is_document(Path(d) / n, sniff)])


def build(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    if not sniff(doc):
        raise ValueError("not a Hermes session")
    sid = doc["session_id"]
    ts = parse_ts(doc.get("session_start")) or path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"session:{sid}")), tool_id=sid, ts=ts)
    config = doc.get("model_config") if isinstance(doc.get("model_config"), dict) else {}
    cwd = doc.get("cwd") if isinstance(doc.get("cwd"), str) else config.get("cwd")
    if isinstance(cwd, str) and cwd:
        t.fields.update(cwd=cwd, project=cwd)
    model = doc.get("model") if isinstance(doc.get("model"), str) else ""
    if model:
        t.fields["model"] = model
    for k in ("platform", "base_url"):
        if isinstance(doc.get(k), str):
            t.meta[f"hermes_{k}"] = doc[k]
    if isinstance(doc.get("system_prompt"), str) and doc["system_prompt"].strip():
        t.add("system", "system", doc["system_prompt"], {"system_prompt": doc["system_prompt"]}, ts, head=False,
              key="system_prompt").activity = False
    for i, m in enumerate(doc["messages"]):
        if not isinstance(m, dict):
            t.problems.append(f"message {i}: not an object")
            continue
        role, key = m.get("role"), f"m{i}"
        if role == "user":
            t.said("user", blocks_text(m.get("content")), ts, raw=m, key=f"{key}:user")
        elif role == "assistant":
            thinking = m.get("reasoning") or m.get("reasoning_content")
            if isinstance(thinking, str) and thinking.strip():
                t.thought(thinking, ts, raw={"reasoning": thinking}, key=f"{key}:thinking")
            if blocks_text(m.get("content")).strip() or not m.get("tool_calls"):
                t.said("assistant", blocks_text(m.get("content")), ts, raw=m, key=f"{key}:text", model=model)
            for n, c in enumerate(m.get("tool_calls") or []):
                t.function_call(c, ts, key=f"{key}:call:{n}")
        elif role == "tool":
            t.result(m.get("tool_call_id"), blocks_text(m.get("content")), ts, error=m.get("is_error") is True, raw=m,
                     key=f"{key}:result")
        elif role == "system":
            t.said("system", blocks_text(m.get("content")), ts, raw=m, key=f"{key}:system")
        elif role == "session_meta":
            t.add("meta", None, "session_meta", m, ts, head=False, key=f"{key}:meta").activity = False
        else:
            t.problems.append(f"message {i}: a message of role {role!r}, which the reader does not know")
    return [t]


import_paths = importer(KIND, session_files, read_whole(build), "Hermes sessions")
