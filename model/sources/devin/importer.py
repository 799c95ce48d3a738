"""Devin CLI's sessions, read only: `~/.local/share/devin/cli/sessions.db` (`~/Library/Application Support/devin/cli/`
on macOS), tables `sessions(id, title, working_directory, model, created_at, last_activity_at, hidden, …)` and
`message_nodes(row_id, session_id, node_id, parent_node_id, chat_message, created_at)`. A session's messages are a
tree (a message edited or retried is a sibling under the same parent): each node's `chat_message` is an OpenAI-
shaped chat message (`role` user, assistant, tool or system; `content` text or blocks; `thinking`; `tool_calls`
with their ids; a tool message's `tool_call_id`). Each node's events hang under its parent node's, so the tree is the
session's branches. Times are Unix seconds. A session Devin hides is not shown."""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, read_whole
from sessionscope.sources.scan import importer

KIND = "devin"
NS = uuid.UUID("8e4b1f60-2d7a-4c95-b3e8-5a0f6c9d1e27")


def default_roots() -> list[Path]:
    home = Path.home()
    bases = [Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "devin",
             home / "Library" / "Application Support" / "devin"]
    return [b / "cli" for b in bases if (b / "cli" / "sessions.db").is_file()]


def _is_devin(con: sqlite3.Connection) -> bool:
    names = databases.tables(con)
    return {"sessions", "message_nodes"} <= names and \
        {"session_id", "node_id", "parent_node_id", "chat_message"} <= databases.columns(con, "message_nodes")


def claims(path: Path) -> bool:
    return databases.inspect(path, _is_devin)


def session_files(root: Path) -> list[Path]:
    return databases.claimed(root, claims)


def _time(value: Any) -> float | None:
    return float(value) / (1000 if value > 1e11 else 1) if isinstance(value, (int, float)) and value > 0 else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text") or "") for b in content if isinstance(b, dict) and b.get("text"))
    return ""


def _node(t: Transcript, node: Any, message: dict, ts: float | None, model: str) -> None:
    role, key = message.get("role"), f"n{node}"
    thinking = message.get("thinking")
    if role in ("user", "assistant", "system") and isinstance(thinking, str) and thinking.strip():
        t.thought(thinking, ts, key=f"{key}:thinking")
    if role in ("user", "assistant", "system"):
        text = _text(message.get("content"))
        if text.strip():
            t.said(role, text, ts, key=key, model=model if role == "assistant" else "")
        for i, call in enumerate(message.get("tool_calls") or []):
            if isinstance(call, dict):
                t.function_call(call, ts, key=f"{key}:call{i}")
    elif role == "tool":
        t.result(message.get("tool_call_id"), _text(message.get("content")), ts, key=key)
    else:
        t.add("meta", None, f"[a {role} message]", message, ts, head=False, key=key)


def build(path: Path, _data: bytes = b"") -> list[Transcript]:
    con = databases.open_readonly(path)
    try:
        cols = databases.columns(con, "sessions")
        pick = ", ".join(c if c in cols else "NULL" for c in (
            "id", "title", "working_directory", "model", "created_at", "last_activity_at", "hidden"))
        sessions = con.execute(f"SELECT {pick} FROM sessions ORDER BY created_at, id").fetchall()
        nodes = con.execute("SELECT session_id, node_id, parent_node_id, chat_message, created_at FROM message_nodes "
                            "ORDER BY session_id, created_at, row_id").fetchall()
    finally:
        con.close()
    by_session: dict[str, list] = {}
    for n in nodes:
        by_session.setdefault(str(n[0]), []).append(n)
    out = []
    for sid, title, folder, model, created, _last, hidden in sessions:
        if hidden == 1 or not by_session.get(str(sid)):
            continue
        t = Transcript(NS, str(uuid.uuid5(NS, f"{path.absolute()}:{sid}")), tool_id=str(sid),
                       ts=_time(created) or path.stat().st_mtime)
        if folder:
            t.fields.update(cwd=str(folder), project=str(folder))
        if model:
            t.fields["model"] = str(model)[:100]
        if isinstance(title, str) and title.strip():
            t.fields["title"] = " ".join(title.split())[:200]
            t.meta.update(title_source="devin", title_rank=2)
        t.meta["database"] = str(path)
        ends: dict[Any, str | None] = {}  # node → the last event of its own (what its children hang under)
        for _s, node, parent, raw, at in by_session[str(sid)]:
            try:
                message = orjson.loads(raw) if raw else None
            except orjson.JSONDecodeError as exc:
                t.problems.append(f"message node {node}: not JSON ({exc})")
                continue
            if not isinstance(message, dict):
                continue
            t.last = ends.get(parent) if parent is not None else None
            _node(t, node, message, _time(at), str(model or ""))
            ends[node] = t.last
        out.append(t)
    return out


import_paths = importer(KIND, session_files, read_whole(build, database=True), "Devin CLI's sessions")
