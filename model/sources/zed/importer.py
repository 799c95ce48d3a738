"""Zed's agent threads, read only (FORMATS.md §14): `threads.db`, table `threads(id, summary, updated_at,
data_type 'zstd'|'json', data, parent_id, folder_paths, created_at)`. A thread's `data` is its JSON
(zstd-compressed): `messages[]` tagged `{"User": …}` or `{"Agent": …}` (text, thinking, tool uses,
and the tool results keyed by the call's id), the tokens of each request keyed by the user message
that started it, the model, and the project's worktrees when the thread began.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, load_json, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "zed"
NS = uuid.UUID("2b6e4a19-8d73-4c05-9f2e-71a3c8d5b604")
MAX_THREAD_BYTES = 32 << 20  # a thread's JSON, decompressed (the importer's whole budget is 300 MB)


def default_roots() -> list[Path]:
    """Zed's data folder's `threads/`: `~/.local/share/zed` (XDG_DATA_HOME), `~/Library/Application Support/Zed`,
    `%LOCALAPPDATA%\\Zed`."""
    bases = [Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "zed",
             Path.home() / "Library" / "Application Support" / "Zed"]
    if os.environ.get("LOCALAPPDATA"):
        bases.append(Path(os.environ["LOCALAPPDATA"]) / "Zed")
    return [b / "threads" for b in bases if (b / "threads").is_dir()]


def _is_zed(con: sqlite3.Connection) -> bool:
    return "threads" in databases.tables(con) and \
        {"id", "summary", "data_type", "data"} <= databases.columns(con, "threads")


def claims(path: Path) -> bool:
    return databases.inspect(path, _is_zed)


def session_files(root: Path) -> list[Path]:
    return databases.claimed(root, claims)


def _thread(data_type: str, data: Any) -> Any:
    raw = data if isinstance(data, bytes) else str(data or "").encode()
    if data_type == "zstd":
        import io

        import zstandard
        # streamed and cut: a frame that declares its size is decompressed whole by `decompress` (a 32 KB row
        # that declared 1 GiB took the import to 2.2 GB), whatever max_output_size says
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)) as reader:
            raw = reader.read(MAX_THREAD_BYTES + 1)
        if len(raw) > MAX_THREAD_BYTES:
            raise ValueError(f"a thread over {MAX_THREAD_BYTES >> 20} MB decompressed: not read")
    elif len(raw) > MAX_THREAD_BYTES:
        raise ValueError(f"a thread over {MAX_THREAD_BYTES >> 20} MB: not read")
    return load_json(raw)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("Text") or content.get("text") or orjson.dumps(content).decode())
    if isinstance(content, list):
        return "\n".join(_text(c) for c in content)
    return ""


def _folder(thread: dict, folder_paths: Any) -> str | None:
    if isinstance(folder_paths, str) and folder_paths.strip():
        return folder_paths.splitlines()[0].strip()
    snap = thread.get("initial_project_snapshot") if isinstance(thread.get("initial_project_snapshot"), dict) else {}
    trees = snap.get("worktree_snapshots") or []
    return trees[0].get("worktree_path") if trees and isinstance(trees[0], dict) else None


def _one(path: Path, row: tuple) -> Transcript:
    tid, summary, updated, data_type, data, parent, folder_paths, created = row
    ts = parse_ts(created) or parse_ts(updated) or path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"thread:{tid}")), tool_id=str(tid), ts=ts)
    try:
        thread = _thread(str(data_type), data)
    except Exception as exc:  # noqa: BLE001 — a damaged frame, not JSON: this thread's, said; the others read
        t.problems.append(f"thread {tid}: cannot be read ({type(exc).__name__}: {exc})")
        return t
    if not isinstance(thread, dict):
        t.problems.append(f"thread {tid}: not a thread")
        return t
    t.meta.update(zed_version=thread.get("version"), parent_thread=parent, database=str(path))
    title = thread.get("title") or summary
    if isinstance(title, str) and title.strip():
        t.fields["title"] = title.strip()[:200]
        t.meta.update(title_source="zed", title_rank=2)
    if folder := _folder(thread, folder_paths):
        t.fields.update(cwd=folder, project=folder)
    model = thread.get("model") if isinstance(thread.get("model"), dict) else {}
    model_name = str(model.get("model") or "")
    if model_name:
        t.fields["model"] = model_name
    usage = thread.get("request_token_usage") if isinstance(thread.get("request_token_usage"), dict) else {}
    pending = None  # the tokens of the request the last user message started
    for i, m in enumerate(thread.get("messages") or []):
        if not isinstance(m, dict) or len(m) != 1:
            if m not in ("Resume",):
                t.problems.append(f"thread {tid}: message {i} is not a User or Agent message")
            continue
        (role, body), = m.items()
        body = body if isinstance(body, dict) else {}
        if role == "User":
            uid = str(body.get("id") or i)
            text = "\n".join(_text(c.get("Text")) if isinstance(c, dict) and "Text" in c else
                             f"@{_text(c.get('Mention', {}).get('uri', ''))}" if isinstance(c, dict) and "Mention" in c
                             else "" for c in body.get("content") or [])
            t.said("user", text, ts, raw={"id": uid}, key=f"{i}:user")
            pending = usage.get(uid)
        elif role == "Agent":
            results = body.get("tool_results") if isinstance(body.get("tool_results"), dict) else {}
            made = []
            for n, c in enumerate(body.get("content") or []):
                if not isinstance(c, dict) or len(c) != 1:
                    continue
                (kind, value), = c.items()
                key = f"{i}:{n}"
                if kind == "Text":
                    if _text(value).strip():
                        made.append(t.said("assistant", _text(value), ts, key=key, model=model_name))
                elif kind == "Thinking":
                    made.append(t.thought(_text(value.get("text") if isinstance(value, dict) else value), ts, key=key))
                elif kind == "ToolUse" and isinstance(value, dict):
                    cid = str(value.get("id") or key)
                    made.append(t.call(cid, str(value.get("name", "")), value.get("input", value.get("raw_input")), ts,
                                       raw={k: v for k, v in value.items() if k != "thought_signature"}, key=key))
                    r = results.get(cid)
                    if isinstance(r, dict):
                        out = r.get("output") if isinstance(r.get("output"), str) else _text(r.get("content"))
                        made.append(t.result(cid, out, ts, error=bool(r.get("is_error")), key=f"{key}:result"))
                elif kind == "RedactedThinking":
                    continue
                else:
                    t.problems.append(f"thread {tid}: an agent block {kind!r}, which the reader does not know")
            if made and isinstance(pending, dict):
                t.usage(made[0], model_name, (int(pending.get("input_tokens") or 0),
                                              int(pending.get("output_tokens") or 0),
                                              int(pending.get("cache_read_input_tokens") or 0),
                                              int(pending.get("cache_creation_input_tokens") or 0)))
                pending = None
        else:
            t.problems.append(f"thread {tid}: a message of kind {role!r}, which the reader does not know")
    return t


def build(path: Path, _data: bytes = b"") -> list[Transcript]:
    con = databases.open_readonly(path)
    try:
        cols = databases.columns(con, "threads")
        pick = ", ".join(c if c in cols else "NULL" for c in ("id", "summary", "updated_at", "data_type", "data",
                                                               "parent_id", "folder_paths", "created_at"))
        rows = con.execute(f"SELECT {pick} FROM threads ORDER BY updated_at").fetchall()
    finally:
        con.close()
    return [_one(path, row) for row in rows]


import_paths = importer(KIND, session_files, read_whole(build, database=True), "Zed agent threads")
