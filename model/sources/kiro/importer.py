"""Kiro CLI conversations (and Amazon Q Developer CLI's, which it grew from), read only (FORMATS.md §15).

The CLI keeps every conversation in one SQLite database, `data.sqlite3` in its data folder: `conversations_v2(key
(the folder it ran in), conversation_id, value, created_at, updated_at)` (Amazon Q's older `conversations(key,
value)`), the value the conversation's state as JSON: `{conversation_id, history[{user{content{Prompt{prompt} |
ToolUseResults{tool_use_results[{tool_use_id, content[{Text | Json}], status}]} | CancelledToolUses{…}},
env_context{env_state{current_working_directory}}, timestamp}, assistant{Response{message_id, content} |
ToolUse{message_id, content, tool_uses[{id, name, args}]}}, request_metadata{stream_end_timestamp_ms, …}}],
transcript[]}` (Amazon Q wrote each history entry as a `[user, assistant]` pair). The database is opened read only
and read again when it (or its write-ahead log) changed; a conversation's events are named by their content from
the one before, so an unchanged history adds nothing and one the CLI rewrote (compacted) goes on as a branch.
A conversation's JSON value saved as a file (`{conversation_id, history}`) is read the same way.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import sys
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, load_json, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "kiro"
NS = uuid.UUID("e1f3a5c7-9b2d-4f6e-8a0c-2d4f6a8c0e13")
APPS = ("kiro-cli", "amazon-q")


def default_roots() -> list[Path]:
    """The CLI's data folder: `~/.local/share/kiro-cli` (XDG_DATA_HOME) · `~/Library/Application Support/kiro-cli` ·
    `%LOCALAPPDATA%\\kiro-cli`, and Amazon Q's `amazon-q` beside it."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    elif os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return [base / app for app in APPS if (base / app / "data.sqlite3").is_file()]


def sniff(doc: Any) -> bool:
    """A conversation's saved state: its id and a history of user/assistant turns."""
    return isinstance(doc, dict) and isinstance(doc.get("conversation_id"), str) \
        and isinstance(doc.get("history"), list) \
        and all(isinstance(h, (dict, list)) for h in doc["history"][:20]) \
        and any("user" in h if isinstance(h, dict) else len(h) == 2 for h in doc["history"][:20] or [{"user": 1}])


def _table(con: sqlite3.Connection) -> str | None:
    names = databases.tables(con)
    for table, needed in (("conversations_v2", {"key", "conversation_id", "value"}), ("conversations", {"key", "value"})):
        if table in names and needed <= databases.columns(con, table):
            return table
    return None


def claims(path: Path) -> bool:
    """Kiro's `conversations_v2`; Amazon Q's plainer `conversations(key, value)` only in a file of the CLI's name."""
    return databases.inspect(path, lambda con: _table(con) == "conversations_v2" or
                             (path.name == "data.sqlite3" and _table(con) == "conversations"))


def _folder(key: Any) -> str | None:
    """A row's key when it is the folder the conversation ran in (an absolute path on any system)."""
    if isinstance(key, str) and (key.startswith(("/", "\\")) or key[1:3] in (":\\", ":/")):
        return key
    return None


def session_files(root: Path) -> list[Path]:
    return databases.claimed(root, claims)


def _ms(value: Any) -> float | None:
    return value / 1000 if isinstance(value, (int, float)) and value > 0 else None


def _result_text(blocks: Any) -> str:
    out = []
    for b in blocks if isinstance(blocks, list) else []:
        if isinstance(b, dict) and isinstance(b.get("Text"), str):
            out.append(b["Text"])
        elif isinstance(b, dict) and "Json" in b:
            out.append(orjson.dumps(b["Json"], default=str).decode())
    return "\n".join(out)


def conversation(value: dict, t: Transcript, cwd: str | None = None) -> Transcript:
    """The events of one conversation's state into `t`."""
    model = value.get("model") if isinstance(value.get("model"), str) else \
        (value.get("model_info") or {}).get("model_id") if isinstance(value.get("model_info"), dict) else None
    if isinstance(model, str) and model:
        t.fields["model"] = model
    ts = t.ts
    for n, entry in enumerate(value.get("history") or []):
        if isinstance(entry, list) and len(entry) == 2:  # Amazon Q: [user, assistant]
            entry = {"user": entry[0], "assistant": entry[1]}
        if not isinstance(entry, dict):
            t.problems.append(f"history entry {n}: not a turn")
            continue
        user = entry.get("user") if isinstance(entry.get("user"), dict) else {}
        ts = parse_ts(user.get("timestamp")) or ts
        env = ((user.get("env_context") or {}).get("env_state") or {}) if isinstance(user.get("env_context"), dict) \
            else {}
        if isinstance(env, dict) and isinstance(env.get("current_working_directory"), str) and not cwd:
            cwd = env["current_working_directory"]
        content = user.get("content") if isinstance(user.get("content"), dict) else {}
        for kind, body in content.items():
            body = body if isinstance(body, dict) else {}
            for r in body.get("tool_use_results") or []:
                if isinstance(r, dict):
                    t.result(r.get("tool_use_id"), _result_text(r.get("content")), ts,
                             error=str(r.get("status", "")).lower() == "error" or kind == "CancelledToolUses", raw=r)
            if isinstance(body.get("prompt"), str) and body["prompt"].strip():
                t.said("user", body["prompt"], ts, raw={"kind": kind})
            elif kind not in ("Prompt", "ToolUseResults", "CancelledToolUses"):
                t.problems.append(f"history entry {n}: a user {kind!r}, which the reader does not know")
        meta = entry.get("request_metadata") if isinstance(entry.get("request_metadata"), dict) else {}
        when = _ms(meta.get("stream_end_timestamp_ms")) or ts
        assistant = entry.get("assistant") if isinstance(entry.get("assistant"), dict) else {}
        for kind, body in assistant.items():
            body = body if isinstance(body, dict) else {}
            text = body.get("content") if isinstance(body.get("content"), str) else ""
            if text.strip():
                t.said("assistant", text, when, raw={"kind": kind, "message_id": body.get("message_id")},
                       model=t.fields.get("model", ""))
            for c in body.get("tool_uses") or []:
                if isinstance(c, dict):
                    t.call(c.get("id"), str(c.get("name") or "tool"), c.get("args") if c.get("args") is not None else {},
                           when, raw=c)
            if kind not in ("Response", "ToolUse"):
                t.problems.append(f"history entry {n}: an assistant {kind!r}, which the reader does not know")
        ts = max(ts, when)
    if cwd:
        t.fields.update(cwd=cwd, project=cwd)
    return t


def _transcript(cid: str, ts: float) -> Transcript:
    return Transcript(NS, str(uuid.uuid5(NS, f"conversation:{cid}")), tool_id=cid, ts=ts)


def build_document(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    if not sniff(doc):
        raise ValueError("not a Kiro conversation")
    return [conversation(doc, _transcript(doc["conversation_id"], path.stat().st_mtime))]


def build_database(path: Path, _data: bytes) -> list[Transcript]:
    con = databases.open_readonly(path)
    try:
        table = _table(con)
        if table == "conversations_v2":
            rows = con.execute("SELECT key, conversation_id, value, created_at, updated_at FROM conversations_v2 "
                               "ORDER BY updated_at, created_at, key").fetchall()
        else:
            rows = [(key, None, value, None, None) for key, value in con.execute(f"SELECT key, value FROM {table}")]
    finally:
        con.close()
    newest: dict[str, tuple] = {}  # a conversation may sit under several folders: its newest row is the one
    out: list[Transcript] = []
    for key, cid, value, created, updated in rows:
        try:
            doc = load_json(value.encode() if isinstance(value, str) else value)
        except (ValueError, AttributeError, TypeError):
            t = _transcript(str(cid or key), path.stat().st_mtime)
            t.problems.append(f"conversation {cid or key}: its value is not JSON")
            out.append(t)
            continue
        cid = cid or (doc.get("conversation_id") if isinstance(doc, dict) else None)
        if not isinstance(doc, dict) or not isinstance(cid, str):
            continue
        newest[cid] = (key, doc, created, updated)
    for cid, (key, doc, created, updated) in newest.items():
        t = _transcript(cid, _ms(created) or path.stat().st_mtime)
        t.meta["kiro_updated_at"] = dt.datetime.fromtimestamp(_ms(updated), dt.timezone.utc).isoformat() \
            if _ms(updated) else None
        out.append(conversation(doc, t, _folder(key)))
    return out


_read_document, _read_database = read_whole(build_document), read_whole(build_database, database=True)


def read_file(store, root: Path, path: Path, source_id: int, known, report, cancel) -> None:
    reader = _read_database if path.suffix in databases.SUFFIXES else _read_document
    reader(store, root, path, source_id, known, report, cancel)


import_paths = importer(KIND, session_files, read_file, "Kiro CLI conversations")
