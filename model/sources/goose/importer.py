"""Goose's sessions, read only (FORMATS.md §14): `~/.local/share/goose/sessions/sessions.db`, tables
`sessions(id 'YYYYMMDD_N', name, working_dir, created_at, …, input_tokens, output_tokens,
accumulated_*)` and `messages(session_id, role, content_json, created_timestamp, tokens)`. A message's
content is Goose's list of items: text, thinking, `toolRequest` (its call: `toolCall.value{name,
arguments}`) and `toolResponse` (its result, named by the request's id). Tokens are the session's
own totals (the accumulated ones where Goose keeps them). A session with no message yet is shown
with its start, as Goose lists it.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "goose"
NS = uuid.UUID("d1c07a5e-3f92-4b8d-a6e1-0b5c9f2e8d47")


def default_roots() -> list[Path]:
    """`~/.local/share/goose/sessions` (XDG_DATA_HOME; the same on macOS), `%APPDATA%\\Block\\goose\\data\\sessions`."""
    places = [Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "goose" / "sessions"]
    if os.environ.get("APPDATA"):
        places.append(Path(os.environ["APPDATA"]) / "Block" / "goose" / "data" / "sessions")
    return [p for p in places if p.is_dir()]


def _is_goose(con: sqlite3.Connection) -> bool:
    names = databases.tables(con)
    return {"sessions", "messages"} <= names and \
        {"session_id", "role", "content_json"} <= databases.columns(con, "messages") and \
        "working_dir" in databases.columns(con, "sessions")


def claims(path: Path) -> bool:
    return databases.inspect(path, _is_goose)


def session_files(root: Path) -> list[Path]:
    return databases.claimed(root, claims)


def _time(value: Any) -> float | None:
    if isinstance(value, (int, float)) and value > 0:
        return value / 1000 if value > 1e11 else float(value)
    if isinstance(value, str) and value:
        return parse_ts(value.replace(" ", "T") + ("" if "+" in value or value.endswith("Z") else "Z"))
    return None


def _items(t: Transcript, mid: Any, role: str, content: list, ts: float, model: str) -> None:
    for n, c in enumerate(content):
        if not isinstance(c, dict):
            continue
        kind, key = c.get("type"), f"{mid}:{n}"
        if kind == "text":
            if str(c.get("text") or "").strip():
                t.said("assistant" if role == "assistant" else "user", str(c["text"]), ts, key=key, model=model)
        elif kind in ("thinking", "redactedThinking"):
            if kind == "thinking":
                t.thought(str(c.get("thinking") or ""), ts, key=key)
        elif kind == "toolRequest":
            call = c.get("toolCall") if isinstance(c.get("toolCall"), dict) else {}
            value = call.get("value") if isinstance(call.get("value"), dict) else {}
            t.call(c.get("id"), str(value.get("name", "")), value.get("arguments"), ts, raw=c, key=key)
        elif kind == "toolResponse":
            result = c.get("toolResult") if isinstance(c.get("toolResult"), dict) else {}
            value = result.get("value")
            out = "\n".join(str(v.get("text")) for v in value if isinstance(v, dict) and v.get("text")) \
                if isinstance(value, list) else str(result.get("error") or value or "")
            t.result(c.get("id"), out, ts, error=result.get("status") == "error", key=key)
        elif kind in ("image", "toolConfirmationRequest", "contextLengthExceeded", "summarizationRequested",
                      "frontendToolRequest", "systemNotification"):
            t.add("meta", role, f"[{kind}]", c, ts, head=False, key=key)
        else:
            t.problems.append(f"message {mid}: an item of type {kind!r}, which the reader does not know")


def build(path: Path, _data: bytes = b"") -> list[Transcript]:
    con = databases.open_readonly(path)
    try:
        scols = databases.columns(con, "sessions")
        pick = ", ".join(c if c in scols else "NULL" for c in (
            "id", "name", "working_dir", "created_at", "updated_at", "input_tokens", "output_tokens",
            "accumulated_input_tokens", "accumulated_output_tokens", "user_set_name", "session_type"))
        sessions = con.execute(f"SELECT {pick} FROM sessions ORDER BY created_at, id").fetchall()
        messages = con.execute("SELECT id, session_id, role, content_json, created_timestamp FROM messages "
                               "ORDER BY session_id, created_timestamp, id").fetchall()
    finally:
        con.close()
    by_session: dict[str, list] = {}
    for m in messages:
        by_session.setdefault(m[1], []).append(m)
    out = []
    for sid, name, folder, created, updated, tin, tout, acc_in, acc_out, named, stype in sessions:
        ts = _time(created) or path.stat().st_mtime
        t = Transcript(NS, str(uuid.uuid5(NS, f"{path.absolute()}:{sid}")), tool_id=str(sid), ts=ts)
        if folder:
            t.fields.update(cwd=str(folder), project=str(folder))
        t.meta.update(database=str(path), goose_session_type=stype)
        if name and (named or name not in ("CLI Session", "New session")):
            t.fields["title"] = str(name)[:200]
            t.meta.update(title_source="goose", title_rank=2 if named else 1.5)
        t.add("system", "system", f"Goose session {sid} started in {folder or 'no folder'}", {"id": sid, "name": name},
              ts, head=True, key="start")
        for mid, _s, role, content, mts in by_session.get(sid, []):
            try:
                items = orjson.loads(content) if content else []
            except orjson.JSONDecodeError as exc:
                t.problems.append(f"message {mid}: not JSON ({exc})")
                continue
            _items(t, mid, str(role), items if isinstance(items, list) else [], _time(mts) or ts, "")
        if not t.fields.get("title"):
            t.fields["title"] = str(name or sid)[:200]
        total_in, total_out = acc_in if acc_in is not None else tin, acc_out if acc_out is not None else tout
        if total_in or total_out:
            t.totals = (int(total_in or 0), int(total_out or 0))
        out.append(t)
    return out


import_paths = importer(KIND, session_files, read_whole(build, database=True), "Goose session databases")
