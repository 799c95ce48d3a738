"""OpenCode, read only (FORMATS.md §9). Up to early 1.x, `~/.local/share/opencode/storage/` holds one JSON
file an object: `session/<projectID>/<sessionID>.json`, `message/<sessionID>/<id>.json` (role, model,
tokens, cost, times; no text), `part/<messageID>/<id>.json` (text, reasoning, a tool call with its
state — input, output, status — in one part, files, step boundaries with their tokens, patches,
compactions; older trees keep them as `part/<id>.json`, each naming its message). Newer versions keep the
same objects as JSON in `opencode.db` (tables `session`, `message`, `part`). A session is read again when
its file (or the database) changes; a session whose `parentID` names another is a sub-agent's, nested
under its parent's `task` call.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, is_document, load_json, oldest_first, read_whole
from sessionscope.sources.scan import importer

KIND = "opencode"
NS = uuid.UUID("b5a7e3c1-0f4d-4a92-8c6b-d3e1f9a02b75")
# the storage tree: its `session/`, `message/` and `part/` folders; the last two are read through the sessions'
# files (a message's and a part's file is never a session), so no walk opens their thousands of files one by one
LAYOUT = (frozenset({"session", "message", "part"}), frozenset({"message", "part"}))


def default_roots() -> list[Path]:
    """`$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`, on macOS too; `%LOCALAPPDATA%\\opencode`)."""
    bases = [Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "opencode"]
    if os.environ.get("LOCALAPPDATA"):
        bases.append(Path(os.environ["LOCALAPPDATA"]) / "opencode")
    return [b for b in bases if (b / "storage").is_dir() or (b / "opencode.db").is_file()]


def sniff(doc: Any) -> bool:
    """A session's file of the storage tree."""
    return isinstance(doc, dict) and isinstance(doc.get("id"), str) and isinstance(doc.get("projectID"), str) and \
        isinstance(doc.get("time"), dict) and ("directory" in doc or "title" in doc)


def _is_db(con: sqlite3.Connection) -> bool:
    names = databases.tables(con)
    return {"session", "message", "part"} <= names and "data" in databases.columns(con, "message")


def claims(path: Path) -> bool:
    return databases.inspect(path, _is_db)


def _storage(session_file: Path) -> Path:
    """The storage folder of a session file (`storage/session/<project>/<id>.json`)."""
    return session_file.parent.parent.parent


def session_files(root: Path) -> list[Path]:
    found = []
    for d, dirs, names in os.walk(root):
        if LAYOUT[0] <= set(dirs):
            dirs[:] = [x for x in dirs if x not in LAYOUT[1]]
        for n in names:
            p = Path(d) / n
            if n.endswith(databases.SUFFIXES) and claims(p):
                found.append(p)
            elif n.endswith(".json") and p.parent.parent.name == "session" and is_document(p, sniff):
                found.append(p)
    return oldest_first(found)


def _json_files(folder: Path) -> list[dict]:
    # os.scandir and open, not glob and Path: a storage tree holds a file a part, thousands of them
    try:
        with os.scandir(folder) as entries:
            paths = sorted(e.path for e in entries if e.name.endswith(".json"))
    except OSError:  # no such folder (a message without parts), or not one
        return []
    out = []
    for p in paths:
        try:
            with open(p, "rb") as fh:
                doc = load_json(fh.read())
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


class _Tree:
    """The storage tree's objects, read as asked for. Older trees keep every part directly under `part/` (each
    naming its message), not in a folder a message: those are read once and grouped."""

    def __init__(self, storage: Path):
        self.storage = storage
        self._flat_parts: dict[str, list[dict]] | None = None

    def sessions(self) -> list[dict]:
        return [s for d in sorted((self.storage / "session").glob("*")) for s in _json_files(d)]

    def messages(self, sid: str) -> list[dict]:
        return _json_files(self.storage / "message" / sid)

    def parts(self, mid: str) -> list[dict]:
        found = _json_files(self.storage / "part" / mid)
        if found:
            return found
        if self._flat_parts is None:
            self._flat_parts = {}
            for p in _json_files(self.storage / "part"):
                self._flat_parts.setdefault(str(p.get("messageID")), []).append(p)
        return self._flat_parts.get(mid, [])


class _Db:
    """The same objects from `opencode.db`: each row's `data` JSON, with its columns; decoded once and grouped
    (by session, by message), so a database of many messages is not decoded again for each one."""

    def __init__(self, path: Path):
        con = databases.open_readonly(path)
        try:
            objects = {t: self._objects(con, t) for t in ("session", "message", "part")}
        finally:
            con.close()
        self._sessions = objects["session"]
        self._messages: dict[str, list[dict]] = {}
        self._parts: dict[str, list[dict]] = {}
        for m in objects["message"]:
            self._messages.setdefault(str(m.get("sessionID")), []).append(m)
        for p in objects["part"]:
            self._parts.setdefault(str(p.get("messageID")), []).append(p)

    @staticmethod
    def _objects(con: sqlite3.Connection, table: str) -> list[dict]:
        cur = con.execute(f'SELECT * FROM "{table}"')
        columns = [c[0] for c in cur.description]
        out = []
        for r in cur:
            row = dict(zip(columns, r))
            data = row.pop("data", None)
            try:
                obj = orjson.loads(data) if isinstance(data, (str, bytes)) and data else {}
            except orjson.JSONDecodeError:
                obj = {}
            obj = obj if isinstance(obj, dict) else {}
            obj.setdefault("id", row.get("id"))
            for col, key in (("session_id", "sessionID"), ("message_id", "messageID"), ("parent_id", "parentID"),
                             ("project_id", "projectID"), ("title", "title"), ("directory", "directory")):
                if row.get(col) is not None:
                    obj.setdefault(key, row[col])
            if "time" not in obj and row.get("time_created"):
                obj["time"] = {"created": row["time_created"], "updated": row.get("time_updated")}
            out.append(obj)
        return out

    def sessions(self) -> list[dict]:
        return self._sessions

    def messages(self, sid: str) -> list[dict]:
        return self._messages.get(sid, [])

    def parts(self, mid: str) -> list[dict]:
        return self._parts.get(mid, [])


def _ms(value: Any) -> float | None:
    return value / 1000 if isinstance(value, (int, float)) and value > 0 else None


def _created(obj: dict) -> float:
    t = obj.get("time") if isinstance(obj.get("time"), dict) else {}
    return _ms(t.get("created")) or 0.0


def _model(m: dict) -> str:
    model = m.get("model") if isinstance(m.get("model"), dict) else {}
    return str(model.get("modelID") or m.get("modelID") or "")


def _tokens(m: dict) -> tuple[int, int, int, int] | None:
    tok = m.get("tokens") if isinstance(m.get("tokens"), dict) else None
    if not tok:
        return None
    cache = tok.get("cache") if isinstance(tok.get("cache"), dict) else {}
    return (int(tok.get("input") or 0), int(tok.get("output") or 0) + int(tok.get("reasoning") or 0),
            int(cache.get("read") or 0), int(cache.get("write") or 0))


def _message(t: Transcript, src, m: dict, spawns: dict[str, str]) -> None:
    mid, role = str(m.get("id")), m.get("role")
    ts = _created(m) or t.ts
    model = _model(m)
    if model and role == "assistant":
        t.fields["model"] = model
    made = []
    for p in sorted(src.parts(mid), key=lambda p: (_created(p), str(p.get("id")))):
        kind, key = p.get("type"), f"{mid}:{p.get('id')}"
        if kind == "text":
            if str(p.get("text") or "").strip() and not (role == "user" and p.get("synthetic")):
                made.append(t.said("assistant" if role == "assistant" else "user", str(p["text"]), ts, key=key,
                                   model=model))
        elif kind == "reasoning":
            made.append(t.thought(str(p.get("text") or ""), ts, key=key))
        elif kind == "tool":
            state = p.get("state") if isinstance(p.get("state"), dict) else {}
            cid = str(p.get("callID") or p.get("id"))
            made.append(t.call(cid, str(p.get("tool", "")), state.get("input"), ts,
                               raw={k: v for k, v in p.items() if k != "state"}, key=key))
            meta = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
            if isinstance(meta.get("sessionId"), str):
                spawns[meta["sessionId"]] = made[-1].id  # a `task` call: the sub-agent's session hangs here
            if state.get("status") in ("completed", "error"):
                out = state.get("output") if state.get("status") == "completed" else state.get("error")
                made.append(t.result(cid, out if isinstance(out, str) else orjson.dumps(out).decode(), ts,
                                     error=state.get("status") == "error", key=f"{key}:result"))
        elif kind == "compaction":
            made.append(t.add("compaction", "system", "compacted", p, ts, key=key))
        elif kind in ("file", "patch", "agent", "subtask", "snapshot", "step-start", "step-finish", "retry"):
            if kind in ("file", "patch"):
                what = p.get("filename") or ", ".join(map(str, p.get("files") or []))
                made.append(t.add("meta", role, f"[{kind}] {what}", p, ts, head=False, key=key))
        else:
            t.problems.append(f"message {mid}: a part of type {kind!r}, which the reader does not know")
    error = m.get("error") if isinstance(m.get("error"), dict) else None
    if error:
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        made.append(t.add("system", "system", f"{error.get('name', 'error')}: {data.get('message', '')}", error, ts,
                          head=False, key=f"{mid}:error"))
    if made and role == "assistant":
        t.usage(made[0], model, _tokens(m))


def _session(t: Transcript, src, sid: str, spawns: dict[str, str]) -> None:
    for m in sorted(src.messages(sid), key=lambda m: (_created(m), str(m.get("id")))):
        _message(t, src, m, spawns)


def build(path: Path, data: bytes) -> list[Transcript]:
    if path.suffix != ".json":
        src = _Db(path)
        roots = [s for s in src.sessions() if not s.get("parentID")]
    else:
        doc = load_json(data)
        if not sniff(doc):
            raise ValueError("not an OpenCode session")
        if doc.get("parentID"):
            return []  # a sub-agent's session: read with its parent's
        src = _Tree(_storage(path))
        roots = [doc]
    children: dict[str, list[dict]] = {}
    for s in src.sessions():
        if s.get("parentID"):
            children.setdefault(str(s["parentID"]), []).append(s)
    out = []
    for s in roots:
        sid = str(s["id"])
        t = Transcript(NS, str(uuid.uuid5(NS, f"session:{sid}")), tool_id=sid, ts=_created(s) or path.stat().st_mtime)
        if isinstance(s.get("directory"), str) and s["directory"]:
            t.fields.update(cwd=s["directory"], project=s["directory"])
        if isinstance(s.get("title"), str) and s["title"].strip() and not s["title"].startswith("New session"):
            t.fields["title"] = s["title"].strip()[:200]
            t.meta.update(title_source="opencode", title_rank=2)
        t.meta.update(opencode_version=s.get("version"), project_id=s.get("projectID"))
        spawns: dict[str, str] = {}
        _session(t, src, sid, spawns)
        if not t.events:  # recognised, but nothing of it read: said, not a silent "0 sessions"
            where = "its database" if path.suffix != ".json" else f"{_storage(path)}/message/{sid}/ and part/"
            t.problems.append(f"session {sid}: no message with any content found in {where}")
        head = t.last
        for child in sorted(children.get(sid, []), key=_created):
            cid = str(child["id"])
            t.last = spawns.get(cid, head)
            first = len(t.events)
            _session(t, src, cid, {})
            for e in t.events[first:]:
                e.sidechain, e.agent_id, e.head = True, cid, False
            t.meta.setdefault("subagents", {})[cid] = {"title": child.get("title")}
        t.last = head
        out.append(t)
    return out


def read_file(store, root, path, source_id, known, report, cancel):
    reader = _read_doc if path.suffix == ".json" else _read_db
    reader(store, root, path, source_id, known, report, cancel)


def kind_for(path: Path) -> str:
    """Kilo Code's CLI is OpenCode's fork and keeps OpenCode's tables in `kilo.db` (its older storage tree under a
    `kilo` data folder): those are Kilo Code's sessions (sessionscope.sources.kilo_code)."""
    parts = [p.lower() for p in path.parts]
    if path.name.lower() == "kilo.db" or any(a == "kilo" and b == "storage" for a, b in zip(parts, parts[1:])):
        return "kilo_code"
    return KIND


_read_doc = read_whole(build)
_read_db = read_whole(build, database=True)
import_paths = importer(KIND, session_files, read_file, "OpenCode sessions")
