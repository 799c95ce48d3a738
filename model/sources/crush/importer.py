"""Crush and the Go OpenCode (FORMATS.md §13): `<project>/.crush/crush.db` and `<project>/.opencode/opencode.db`,
the same tables (`sessions`, `messages` with their `parts` as JSON), opened read only.

A message's parts become events (text, reasoning, tool calls, tool results: a result is its own
`tool` message naming the call's id). A sub-agent's run is a session of its own whose id is the id of
the call that started it (`parent_session_id` set): it is nested under that call, as a subagent run
of the parent session. Tokens and cost are counted per session only: what they grew by is stored
as one usage event a read. A reply still streaming (no `finished_at`, no finish part, changed in
the last minutes) is left for the next read, so it is stored whole.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, parsed, read_whole
from sessionscope.sources.scan import importer

KIND = "crush"
NS = uuid.UUID("7d2e9a41-5c38-4f1b-8e06-b3a9c4d7e521")
STREAMING_S = 600  # a reply unfinished for longer than this was cut off, not streaming: read as it is
_PROJECT_BASES = ("", "src", "code", "projects", "dev", "work", "repos", "git", "Documents", "workspace")


def default_roots() -> list[Path]:
    """Crush keeps its database inside each project: the projects one or two levels under the home folder
    (and its usual code folders) that have one."""
    home = Path.home()
    found: list[Path] = []
    for base in _PROJECT_BASES:
        folder = home / base if base else home
        if not folder.is_dir():
            continue
        for pattern in ("*/.crush/crush.db", "*/.opencode/opencode.db"):
            found += [p for p in folder.glob(pattern) if p.is_file()]
    return sorted(set(found))


def _is_crush(con: sqlite3.Connection) -> bool:
    names = databases.tables(con)
    return {"sessions", "messages", "goose_db_version"} <= names and \
        {"id", "session_id", "role", "parts"} <= databases.columns(con, "messages") and \
        "parent_session_id" in databases.columns(con, "sessions")


def claims(path: Path) -> bool:
    return databases.inspect(path, _is_crush)


def session_files(root: Path) -> list[Path]:
    return databases.claimed(root, claims)


def _seconds(value: Any) -> float | None:
    """Crush's times: Unix seconds in every file seen (the schema's comment says milliseconds)."""
    if not isinstance(value, (int, float)) or value <= 0:
        return None
    return value / 1000 if value > 1e11 else float(value)


def _project(path: Path) -> str:
    """The project a database belongs to: the folder holding its `.crush` (or `.opencode`) folder."""
    return str(path.parent.parent) if path.parent.name in (".crush", ".opencode") else str(path.parent)




def _parts(t: Transcript, mid: str, role: str, parts: list, ts: float, model: str) -> list:
    made = []
    for i, p in enumerate(parts):
        if not isinstance(p, dict):
            continue
        kind, data = p.get("type"), p.get("data") if isinstance(p.get("data"), dict) else {}
        key = f"{mid}:{i}"
        if kind == "text" and isinstance(data.get("text"), str):
            if data["text"].strip():
                made.append(t.said("assistant" if role == "assistant" else "user", data["text"], ts, raw=p, key=key,
                                   model=model))
        elif kind == "reasoning":
            if str(data.get("thinking") or "").strip():
                made.append(t.thought(str(data["thinking"]), ts, key=key))
        elif kind == "tool_call":
            # keyed by its place (a model can give two calls one id: "call_0"); found by its id for a sub-agent
            made.append(t.call(data.get("id"), str(data.get("name", "")), parsed(data.get("input")), ts, raw=p, key=key))
            t.meta.setdefault("_calls", {}).setdefault(str(data.get("id")), made[-1].id)
        elif kind == "tool_result":
            made.append(t.result(data.get("tool_call_id"), str(data.get("content") or ""), ts,
                                 error=bool(data.get("is_error")), raw=p, key=key))
        elif kind in ("finish", "image_url", "binary"):
            if kind != "finish":
                made.append(t.add("meta", role, f"[{kind}]", p, ts, head=False, key=key))
        else:
            t.problems.append(f"message {mid}: a part of type {kind!r}, which the reader does not know")
    return made


def build(path: Path, _data: bytes = b"") -> list[Transcript]:
    con = databases.open_readonly(path)
    try:
        sessions = con.execute("SELECT id, parent_session_id, title, prompt_tokens, completion_tokens, cost, "
                               "updated_at, created_at FROM sessions ORDER BY created_at, id").fetchall()
        columns = databases.columns(con, "messages")
        has_finished = "finished_at" in columns
        rows = con.execute("SELECT id, session_id, role, parts, model, created_at, updated_at, "
                           f"{'finished_at' if has_finished else 'NULL'} FROM messages "
                           "ORDER BY session_id, created_at, rowid").fetchall()
    finally:
        con.close()
    # the Go OpenCode's messages name no provider (its model string carries it): Crush added the column
    tool = "Crush" if "provider" in columns else "OpenCode (Go)"
    by_id = {s[0]: s for s in sessions}
    messages: dict[str, list] = {}
    for r in rows:
        messages.setdefault(r[1], []).append(r)
    out: dict[str, Transcript] = {}
    # a sub-agent's session is a run inside the session that called it (its root, however deep)
    def root_of(sid: str) -> str:
        seen = set()
        while by_id.get(sid) and by_id[sid][1] and by_id[sid][1] in by_id and sid not in seen:
            seen.add(sid)
            sid = by_id[sid][1]
        return sid

    now = time.time()
    for sid, parent, title, tin, tout, cost, updated, created in sessions:
        if root_of(sid) != sid:
            continue
        t = out[sid] = Transcript(NS, str(uuid.uuid5(NS, f"{path.absolute()}:{sid}")), tool_id=sid,
                                  ts=_seconds(created) or path.stat().st_mtime)
        t.fields["project"] = t.fields["cwd"] = _project(path)
        t.meta.update(database=str(path), crush_tool=tool, cost=cost)
        if title and title not in ("New Session", "New session"):
            t.fields["title"] = str(title)[:200]
            t.meta.update(title_source="crush", title_rank=2)
    for sid, parent, title, tin, tout, cost, updated, created in sessions:
        root = root_of(sid)
        t = out.get(root)
        if t is None:
            continue
        sub = root != sid
        if sub:  # a sub-agent run: under the call whose id is its session's id (or after the caller's last event)
            t.last = t.meta.get("_calls", {}).get(sid, t.last)
            first = len(t.events)
        model = ""
        for mid, _s, role, parts, mmodel, mcreated, mupdated, finished in messages.get(sid, []):
            try:
                items = orjson.loads(parts) if parts else []
            except orjson.JSONDecodeError as exc:
                t.problems.append(f"message {mid}: its parts are not JSON ({exc})")
                continue
            done = finished or any(isinstance(p, dict) and p.get("type") == "finish" for p in items)
            if role == "assistant" and not done and now - (_seconds(mupdated) or 0) < STREAMING_S:
                break  # still being written: read with the rest next time
            model = str(mmodel or model)
            if model and not sub:
                t.fields["model"] = model
            _parts(t, str(mid), str(role), items if isinstance(items, list) else [], _seconds(mcreated) or t.ts, model)
        if sub:
            for e in t.events[first:]:
                e.sidechain, e.agent_id, e.head = True, sid, False
            t.meta.setdefault("subagents", {})[sid] = {"title": title}
            t.last = next((e.id for e in reversed(t.events) if not e.sidechain), None)
        prev = t.totals or (0, 0)
        t.totals = (prev[0] + int(tin or 0), prev[1] + int(tout or 0))  # a sub-agent's tokens are its caller's
        t.totals_model = t.totals_model or model
    for t in out.values():
        t.meta.pop("_calls", None)
    return [t for t in out.values() if t.events]


import_paths = importer(KIND, session_files, read_whole(build, database=True), "Crush and OpenCode (Go) databases")
