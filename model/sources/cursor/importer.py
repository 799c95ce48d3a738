"""Cursor, read only (FORMATS.md §7): the editor's state databases (state.py), the agent CLI's chat
databases (`~/.cursor/chats/<md5 of cwd>/<agentId>/store.db`) and the agent transcripts
(`~/.cursor/projects/<folder>/agent-transcripts/*.jsonl`, subagents in `subagents/` beside them).

Every file is read whole when it changed (a database counts as changed when its write-ahead log
did); ids come from Cursor's own ids where it has them, else from each item's place and content,
so reading a file again adds only what is new.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases, jsonl
from sessionscope.sources.cursor import state
from sessionscope.sources.documents import Transcript, read_whole
from sessionscope.sources.scan import importer
from sessionscope.sources.vscode import user_dirs

KIND = "cursor"
NS = state.NS
CLI = "agent-cli"  # meta cursor_kind of a session of the agent CLI's (it resumes from a terminal)


def default_roots() -> list[Path]:
    """The editor's workspace and global state, the agent CLI's chats and the agent transcripts."""
    places = [d / sub for d in user_dirs("Cursor") for sub in ("workspaceStorage", "globalStorage")]
    places += [Path.home() / ".cursor" / "chats", Path.home() / ".cursor" / "projects"]
    return [p for p in places if p.is_dir()]


# -- recognising ------------------------------------------------------------------------------------

def _meta(con: sqlite3.Connection) -> Any:
    """The chat's metadata: `meta` key "0", JSON hex-encoded."""
    return _hex_json((con.execute("SELECT value FROM meta WHERE key = '0'").fetchone() or [None])[0])


def _is_cli_store(con: sqlite3.Connection) -> bool:
    if not ({"meta", "blobs"} <= databases.tables(con) and {"key", "value"} <= databases.columns(con, "meta")):
        return False
    meta = _meta(con)
    return isinstance(meta, dict) and "agentId" in meta


def claims(path: Path) -> bool:
    """A state database holding chats, or an agent CLI chat database (`meta` with its hex JSON, `blobs`)."""
    if path.suffix == ".vscdb":
        return databases.inspect(path, state.chat_keys)
    return databases.inspect(path, _is_cli_store)


def sniff(obj: Any) -> bool:
    """An agent transcript's line: `{role, message{content[]}}` and nothing of another tool's envelope."""
    return isinstance(obj, dict) and obj.get("role") in ("user", "assistant") and \
        isinstance(obj.get("message"), dict) and isinstance(obj["message"].get("content"), (list, str)) and \
        not ({"type", "uuid", "sessionId", "timestamp", "parentUuid"} & obj.keys())


def session_files(root: Path) -> list[Path]:
    found = []
    for d, _dirs, names in os.walk(root):
        for n in names:
            p = Path(d) / n
            if not jsonl.is_regular(p):
                continue
            if (n.endswith((".vscdb", ".db")) and claims(p)) or \
                    (n.endswith(".jsonl") and Path(d).name != "subagents" and jsonl.first_lines_sniff(p, sniff, 3)):
                found.append(p)
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


# -- the agent CLI's chat databases -------------------------------------------------------------------

def _hex_json(value: Any) -> Any:
    try:
        raw = bytes.fromhex(value) if isinstance(value, str) else bytes(value)
        return orjson.loads(raw)
    except (ValueError, TypeError, orjson.JSONDecodeError):
        try:
            return orjson.loads(value)
        except (TypeError, orjson.JSONDecodeError):
            return None


def _blob_json(data: bytes) -> Any:
    """A blob's JSON: the blob itself, or the JSON object a protobuf wrapper carries inside it."""
    if not data:
        return None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    text = data.decode("utf-8", "replace")
    start = text.find('{"')
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text, start)[0]
    except (ValueError, RecursionError):
        return None


def _cli_store(path: Path) -> list[Transcript]:
    con = databases.open_readonly(path)
    try:
        meta = _meta(con)
        blobs = con.execute("SELECT id, data FROM blobs ORDER BY rowid").fetchall()
    finally:
        con.close()
    if not isinstance(meta, dict):
        raise ValueError("the chat's metadata (meta key 0) is not hex-encoded JSON")
    agent = str(meta.get("agentId") or path.parent.name)
    created = state._ms(meta.get("createdAt")) or path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"agent:{agent}")), tool_id=agent, ts=created)
    t.meta.update(cursor_kind=CLI, database=str(path), cursor_mode=meta.get("mode"))
    if isinstance(meta.get("name"), str) and meta["name"].strip():
        t.fields["title"] = meta["name"].strip()[:200]
        t.meta.update(title_source="cursor", title_rank=2)
    if isinstance(meta.get("lastUsedModel"), str):
        t.fields["model"] = meta["lastUsedModel"]
    t.fields["project"] = path.parent.parent.name  # the md5 of the folder it ran in: all the file says
    t.add("system", "system", f"Cursor agent session {meta.get('name') or agent}", meta, created, head=True)
    unread = 0
    for blob_id, data in blobs:
        doc = _blob_json(data if isinstance(data, bytes) else str(data or "").encode())
        if isinstance(doc, dict) and doc.get("role") in ("user", "assistant", "tool", "system"):
            _message(t, doc, created)
        elif data:
            unread += 1
    if unread:
        t.problems.append(f"{unread} of its {len(blobs)} stored blobs hold no message Sessionscope can read "
                          "(the CLI's own encoding)")
    return [t]


# -- the agent transcripts --------------------------------------------------------------------------

def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text")) for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _user_query(text: str) -> str:
    start, end = text.find("<user_query>"), text.rfind("</user_query>")
    return text[start + 12:end].strip() if 0 <= start < end else text


def _message(t: Transcript, m: dict, ts: float) -> list:
    """One `{role, content}` message (a transcript line's `message`, or a CLI blob) as events."""
    role = m.get("role")
    content = m["message"].get("content") if isinstance(m.get("message"), dict) else m.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
    made = []
    for i, b in enumerate(blocks):
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind == "text" and isinstance(b.get("text"), str):
            if b["text"].strip():
                made.append(t.said("assistant" if role == "assistant" else "user",
                                   _user_query(b["text"]) if role == "user" else b["text"], ts, raw=b))
        elif kind == "thinking":
            made.append(t.thought(str(b.get("thinking") or b.get("text") or ""), ts, raw=b))
        elif kind in ("tool_use", "tool_call"):
            made.append(t.call(b.get("id"), str(b.get("name", "")), b.get("input"), ts, raw=b))
        elif kind in ("tool_result", "tool-result"):
            out = b.get("content")
            made.append(t.result(b.get("tool_use_id"), _text(out) if not isinstance(out, str) else out, ts,
                                 error=bool(b.get("is_error")), raw=b))
        elif isinstance(b.get("text"), str) and b["text"].strip():  # a block of a kind not known, with text
            made.append(t.add("message", role if role in ("user", "assistant") else "assistant", b["text"],
                              {"role": role, "block": b}, ts))
            t.problems.append(f"a {kind!r} block, which Cursor's reader does not know: its text kept")
        else:
            t.problems.append(f"a {kind!r} block, which Cursor's reader does not know: not read")
    if role == "tool" and not made:  # an OpenAI-shaped tool message
        made.append(t.result(m.get("tool_call_id"), _text(content), ts, raw=m))
    return made


def _lines(path: Path, t: Transcript, ts: float) -> list[dict]:
    out = []
    with jsonl.open_binary(path) as fh:
        for _n, obj in t.json_lines(fh, f"{path.name} "):
            if isinstance(obj, dict):
                out.append(obj)
    return out


def _transcript(path: Path, _data: bytes) -> list[Transcript]:
    ts = path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"agent:{path.stem}")), tool_id=path.stem, ts=ts)
    t.meta.update(cursor_kind="agent-transcript", transcript=str(path))
    folder = next((p.parent for p in path.parents if p.name == "agent-transcripts"), None)
    if folder is not None:
        t.fields["project"] = folder.name  # the folder it ran in, its slashes made dashes: all the path says
    spawns = []
    for obj in _lines(path, t, ts):
        if obj.get("type") == "turn_ended":
            t.add("meta", "system", f"turn ended: {obj.get('status', '')}", obj, ts, head=False)
            continue
        if isinstance(obj.get("model"), str):
            t.fields["model"] = obj["model"]
        for e in _message(t, obj, ts):
            if e.kind == "tool_call" and orjson.loads(e.payload)["name"] in ("Agent", "Task", "subagent"):
                spawns.append(e.id)
    subagents = path.parent / "subagents"
    alone = sum(1 for p in path.parent.glob("*.jsonl")) == 1  # a subagents folder beside one transcript is its
    if alone and subagents.is_dir():
        runs = sorted(subagents.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime, p.name))
        head = t.last
        for i, run in enumerate(runs):
            t.last = spawns[i] if i < len(spawns) else head
            first = len(t.events)
            for obj in _lines(run, t, run.stat().st_mtime):
                _message(t, obj, run.stat().st_mtime)
            for e in t.events[first:]:
                e.sidechain, e.agent_id, e.head = True, run.stem, False
            t.meta.setdefault("subagents", {})[run.stem] = {"file": str(run)}
        t.last = head
    return [t]


def _read_database(path: Path, data: bytes) -> list[Transcript]:
    return state.build(path) if path.suffix == ".vscdb" else _cli_store(path)


_read_db = read_whole(_read_database, database=True)
_read_transcript = read_whole(_transcript)


def _read(store, root, path, source_id, known, report, cancel) -> None:
    if path.parent.name == "subagents" and any(path.parent.parent.glob("*.jsonl")):
        return  # a subagent's transcript: read with its parent's, nested under the call that started it
    reader = _read_transcript if path.suffix == ".jsonl" else _read_db
    reader(store, root, path, source_id, known, report, cancel)


import_paths = importer(KIND, session_files, _read, "Cursor's chats and agent sessions")
