"""Google Antigravity's conversations, read only (FORMATS.md §15).

The IDE (`~/.gemini/antigravity/`) and the CLI (`~/.gemini/antigravity-cli/`) log each conversation's steps, in
plain JSON, to `brain/<id>/.system_generated/logs/transcript.jsonl` (and `transcript_full.jsonl`, the same steps
with no field cut short: read instead when present). A step: `{step_index, source (USER_EXPLICIT | MODEL | SYSTEM),
type (USER_INPUT | PLANNER_RESPONSE | VIEW_FILE | RUN_COMMAND | …), status, created_at, content?, thinking?,
tool_calls[{name, args | arguments, id?}]?}`. A planner response's calls carry no id and the tool's output is the
next step of the tool's own type, so calls and outputs pair by position: each output step takes the oldest call
still open; an output with none open (the step logged the call itself, or the planner's step was not logged) is a
call and its result of its own. A step log is rewritten in place while the conversation runs, so it is read whole
when it changed; events are named by step index, so nothing is stored twice.

The conversation's own stream (`conversations/<id>.pb`) is encrypted and not read. Newer builds keep a SQLite
trajectory (`conversations/<id>.db`, `trajectory_meta` and `steps(idx, step_type, status, step_payload)`); it is
read only where no step log exists for the conversation, and only steps whose payload is a JSON step like the
log's (a binary payload is said, per step, as not decoded: the step log holds the same steps in plain text).
"""

from __future__ import annotations

import os
import re
import sqlite3
import uuid
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases, jsonl
from sessionscope.sources.documents import Transcript, load_json, oldest_first, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "antigravity"
NS = uuid.UUID("5e0b7c3a-2f19-4d8e-a6c1-9b4d2e7f0a58")
STEP_KEYS = frozenset({"step_index", "source", "type", "status", "created_at", "content", "thinking", "tool_calls",
                       "truncated_fields"})
LOGS = ("transcript_full.jsonl", "transcript.jsonl")  # the first one present is read
FAILED = ("ERROR", "FAILED", "CANCELED", "CANCELLED", "INTERRUPTED")
SYSTEM_STEPS = frozenset({"SYSTEM_MESSAGE", "EPHEMERAL_MESSAGE", "CONVERSATION_HISTORY"})
REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>", re.S)
MODEL_CHANGE = re.compile(r"setting `Model Selection` from .+? to (.+?)(?:\.(?:\s|$)|\n|$)")


def default_roots() -> list[Path]:
    """`~/.gemini/antigravity` (the IDE) and `~/.gemini/antigravity-cli` on every system (GEMINI_CLI_HOME moves
    `~/.gemini`, as for Gemini CLI)."""
    base = Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini" if os.environ.get("GEMINI_CLI_HOME") \
        else Path.home() / ".gemini"
    return [base / name for name in ("antigravity", "antigravity-cli") if (base / name).is_dir()]


def sniff(obj: Any) -> bool:
    """A step line: an integer step index, a step type and its producer, and only the step log's keys."""
    return isinstance(obj, dict) and isinstance(obj.get("step_index"), int) and isinstance(obj.get("type"), str) \
        and isinstance(obj.get("source"), str) and "created_at" in obj and set(obj) <= STEP_KEYS


def _is_trajectory(con: sqlite3.Connection) -> bool:
    return {"trajectory_meta", "steps"} <= databases.tables(con) and \
        {"idx", "step_type", "step_payload"} <= databases.columns(con, "steps")


def claims(path: Path) -> bool:
    return databases.inspect(path, _is_trajectory)


def _step_log(conversation_root: Path, cid: str) -> Path | None:
    logs = conversation_root / "brain" / cid / ".system_generated" / "logs"
    return next((logs / n for n in LOGS if (logs / n).is_file()), None)


def session_files(root: Path) -> list[Path]:
    found = []
    for d, _dirs, names in os.walk(root):
        here = Path(d)
        logs = [n for n in LOGS if n in names]
        if logs and here.name == "logs" and here.parent.name == ".system_generated":
            found.append(here / logs[0])  # the full log where there is one; never both
        found += [here / n for n in names if n.endswith(".jsonl") and n not in LOGS
                  and jsonl.first_lines_sniff(here / n, sniff)]
        found += [here / n for n in names if n.endswith(".db") and claims(here / n)]
    return oldest_first(found)


def _conversation_id(path: Path) -> str:
    """`brain/<id>/.system_generated/logs/transcript*.jsonl` → <id>; `conversations/<id>.db` and any other step log
    → its name."""
    if path.name in LOGS and path.parent.name == "logs" and path.parent.parent.name == ".system_generated":
        return path.parent.parent.parent.name
    return path.stem


def _app(path: Path) -> str:
    return "cli" if any(p.name == "antigravity-cli" for p in path.parents) else "ide"


def _decoded_args(call: dict) -> Any:
    """A call's arguments: the planner's `args` keep each value as JSON text (`"\\"/tmp/repo\\""`), read back;
    `arguments` are plain."""
    args = call.get("args") if "args" in call else call.get("arguments")
    if not isinstance(args, dict):
        return args if args is not None else {}
    out = {}
    for k, v in args.items():
        if isinstance(v, str):
            try:
                v = orjson.loads(v)
            except orjson.JSONDecodeError:
                pass
        out[k] = v
    return out


class Steps:
    """One conversation's steps as events, in the order read."""

    def __init__(self, t: Transcript) -> None:
        self.t = t
        self.open: deque[str] = deque()  # calls whose output has not come yet, oldest first
        self.keys: set[str] = set()
        self.ts = t.ts

    def step(self, obj: dict, where: str) -> None:
        t = self.t
        idx = obj.get("step_index")
        key = f"step:{idx}" if isinstance(idx, int) and f"step:{idx}" not in self.keys else where
        self.keys.add(key)
        self.ts = parse_ts(obj.get("created_at")) or self.ts
        kind, source = str(obj.get("type") or ""), str(obj.get("source") or "")
        content = obj.get("content") if isinstance(obj.get("content"), str) else ""
        thinking = obj.get("thinking") if isinstance(obj.get("thinking"), str) else ""
        calls = [c for c in obj.get("tool_calls") or [] if isinstance(c, dict)]
        if kind == "USER_INPUT":
            asked = REQUEST.search(content)
            changed = MODEL_CHANGE.findall(content)
            if changed:
                t.fields["model"] = changed[-1].strip()
            t.said("user", asked.group(1) if asked else content, self.ts, raw=obj, key=key)
        elif kind == "PLANNER_RESPONSE":
            if thinking.strip():
                t.thought(thinking, self.ts, raw=obj, key=f"{key}:thinking")
            if content.strip():
                t.said("assistant", content, self.ts, raw=obj, key=key, model=t.fields.get("model", ""))
            self._calls(calls, key)
        elif kind == "CHECKPOINT":  # the conversation was compacted: what follows resumes from its summary
            t.add("compaction", "system", content or "Conversation compacted", obj, self.ts, head=False, key=key)
        elif kind in SYSTEM_STEPS or source == "SYSTEM":
            if content.strip():
                t.add("system", "system", content, obj, self.ts, head=False, key=key).activity = False
        else:  # a tool's step (VIEW_FILE, RUN_COMMAND, CODE_ACTION, GREP_SEARCH, …): the output of the oldest open call
            self._calls(calls, key)
            call_id = self.open.popleft() if self.open else None
            if call_id is None:
                call_id = f"{key}:call"
                t.call(call_id, kind.lower() or "tool", {}, self.ts, raw={"step": key, "type": kind}, key=call_id)
            failed = any(word in str(obj.get("status") or "").upper() for word in FAILED)
            t.result(call_id, content, self.ts, error=failed, raw=obj, key=f"{key}:output")

    def _calls(self, calls: list[dict], key: str) -> None:
        for i, c in enumerate(calls):
            call_id = str(c.get("id") or f"{key}:call:{i}")
            self.t.call(call_id, str(c.get("name") or "tool"), _decoded_args(c), self.ts, raw=c, key=f"{key}:call:{i}")
            self.open.append(call_id)


def _transcript(path: Path, cid: str) -> Transcript:
    t = Transcript(NS, str(uuid.uuid5(NS, f"conversation:{cid}")), tool_id=cid, ts=path.stat().st_mtime)
    t.meta["antigravity_app"] = _app(path)
    return t


def _read(t: Transcript, steps: Iterable[tuple[str, Any]]) -> list[Transcript]:
    reader = Steps(t)
    for where, obj in steps:
        if isinstance(obj, str):  # what the step could not be read as
            t.problems.append(f"{where}: {obj}")
        elif not isinstance(obj, dict) or not ("type" in obj or "source" in obj):
            t.problems.append(f"{where}: not a step")
        else:
            reader.step(obj, where.replace(" ", ":"))
    return [t]


def build(path: Path, data: bytes) -> list[Transcript]:
    t = _transcript(path, _conversation_id(path))
    return _read(t, ((f"line {n}", obj) for n, obj in t.json_lines(data.splitlines())))


def build_database(path: Path, _data: bytes) -> list[Transcript]:
    cid = path.stem
    if path.parent.name == "conversations" and _step_log(path.parent.parent, cid) is not None:
        return []  # the conversation's step log is read instead: the same steps, in plain text

    def steps():
        con = databases.open_readonly(path)
        try:
            rows = con.execute("SELECT idx, step_payload FROM steps ORDER BY idx").fetchall()
        finally:
            con.close()
        for idx, payload in rows:
            try:
                obj = load_json(payload) if isinstance(payload, (bytes, str)) and payload else None
            except ValueError:
                obj = None
            yield f"step {idx}", obj if isinstance(obj, dict) else \
                "a binary step payload, which the reader does not decode (Antigravity's step log has the same steps)"
    return _read(_transcript(path, cid), steps())


_read_log, _read_database = read_whole(build), read_whole(build_database, database=True)


def read_file(store, root: Path, path: Path, source_id: int, known, report, cancel) -> None:
    if path.name == LOGS[1] and (path.parent / LOGS[0]).is_file():
        return  # the full log beside it is read: the same steps, none cut short
    reader = _read_database if path.suffix == ".db" else _read_log
    reader(store, root, path, source_id, known, report, cancel)


import_paths = importer(KIND, session_files, read_file, "Antigravity conversations")
