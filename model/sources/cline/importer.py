"""Cline task folders (`saoudrizwan.claude-dev/tasks/<taskId>/`), read only (FORMATS.md §6). Roo Code and Kilo
Code, Cline's forks, keep the same files in their own extension's folder: they are read here too and named as
themselves (`kind_for`; sessionscope.sources.roo_code, kilo_code). The JSON files are rewritten whole: read again
when they change.

A task folder is one session; a Roo Code subtask's is a run inside its orchestration's session
(`_as_subtask_run`). Its conversation is `api_conversation_history.json`
(what the model saw: tool calls with ids, their results coming back as user text
`[read_file for 'X'] Result:`, paired with the calls in order); `ui_messages.json`
gives the times and the tokens of each request; `task_metadata.json` the files in
context (a fact). A `ui_messages.json` with no conversation beside it is the
session itself, as the user saw it.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.documents import Transcript, load_json, read_whole
from sessionscope.sources.scan import importer

KIND = "cline"
NS = uuid.UUID("6d1f3a8e-2c5b-4f7e-9a0d-b3c4e5f6a7b8")
API, UI, META = "api_conversation_history.json", "ui_messages.json", "task_metadata.json"
HISTORY = "history_item.json"  # Roo Code's: the task as its history lists it (workspace, mode, cost, parent task)
EXTENSION = "saoudrizwan.claude-dev"
# Cline's forks, by their extension's folder (VS Code writes it in lower case): their files are Cline's, so
# nothing in a file tells them apart, only where the extension keeps it
FORKS = {"rooveterinaryinc.roo-cline": "roo_code", "kilocode.kilo-code": "kilo_code"}
EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")  # VS Code and the forks these extensions run in
_RESULT = re.compile(r"^\[(?P<tool>[\w-]+)(?: for '(?P<what>.*?)')?\] Result:\s*", re.S)
_TASK = re.compile(r"<task>\s*(.*?)\s*</task>", re.S)
# the folder Cline (and its forks) names in the environment details it sends, in the file's own bytes
_WORKSPACE = re.compile(rb"Current (?:Working|Workspace) Directory \(([^)\n\"]{1,1024})\)")
_USER = re.compile(r"<(?:feedback|answer|user_message)>\s*(.*?)\s*</(?:feedback|answer|user_message)>", re.S)


def task_roots(extension: str) -> list[Path]:
    """An extension's task folders in the global storage of VS Code and its forks (Linux, macOS, Windows)."""
    from sessionscope.sources.vscode import user_dirs
    return [t for app in EDITORS for u in user_dirs(app)
            if (t := u / "globalStorage" / extension / "tasks").is_dir()]


def default_roots() -> list[Path]:
    return task_roots(EXTENSION)


def kind_for(path: Path) -> str:
    """Which tool a task file in Cline's format is: a fork's by the extension folder it lies in, Roo Code's where
    its history item lies beside it (a task folder copied elsewhere), else Cline's."""
    parts = {p.lower() for p in path.parts}
    fork = next((kind for folder, kind in FORKS.items() if folder in parts), None)
    if fork is None and (path.parent / HISTORY).is_file():
        fork = "roo_code"
    return fork or KIND


def _is_api(doc: Any) -> bool:
    """Cline's API conversation: role/content messages whose user text carries Cline's own markers."""
    if not isinstance(doc, list) or not doc or not all(isinstance(m, dict) and "role" in m and "content" in m
                                                       for m in doc[:50]):
        return False
    for m in doc[:10]:
        if isinstance(m.get("modelInfo"), dict) or isinstance(m.get("metrics"), dict):
            return True
        for b in m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]:
            text = b.get("text") if isinstance(b, dict) else None
            if isinstance(text, str) and ("<task>" in text or "<environment_details>" in text or _RESULT.match(text)):
                return True
    return False


def _is_ui(doc: Any) -> bool:
    """Cline's UI log: `{ts, type: say|ask, say|ask: …}` entries."""
    return isinstance(doc, list) and bool(doc) and all(
        isinstance(m, dict) and isinstance(m.get("ts"), (int, float)) and m.get("type") in ("say", "ask")
        for m in doc[:50])


def sniff(doc: Any) -> bool:
    """Whether a whole `.json` document is a Cline conversation or UI log (sessionscope.sources.importing)."""
    return _is_api(doc) or _is_ui(doc)


def session_files(root: Path) -> list[Path]:
    found = []
    for d, _dirs, names in os.walk(root):
        for n in names:
            if n.endswith(".json") and n != META and jsonl.is_regular(Path(d) / n):
                p = Path(d) / n
                try:
                    if sniff(load_json(p.read_bytes())):
                        found.append(p)
                except (OSError, ValueError, RecursionError):
                    continue
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))



def session_key(folder: Path) -> str:
    return str(uuid.uuid5(NS, str(folder.absolute())))


def _sibling(path: Path, name: str) -> Any:
    try:
        return load_json((path.parent / name).read_bytes())
    except (OSError, ValueError, RecursionError):
        return None


def build(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    folder = path.parent
    t = Transcript(NS, session_key(folder), tool_id=folder.name, ts=path.stat().st_mtime)
    t.fields["project"] = folder.name
    t.meta["task_folder"] = str(folder)
    if _is_api(doc):
        ui = _sibling(path, UI)
        _conversation(t, doc, ui if _is_ui(ui) else [])
    elif _is_ui(doc):
        if _is_api(_sibling(path, API)):
            return []  # the conversation beside it is the session; this file only lends it times and tokens
        _ui_session(t, doc)
    else:
        raise ValueError("neither a Cline conversation nor a UI log")
    if folder_said := _WORKSPACE.search(data):  # what Cline tells the model of its folder, each turn
        where = folder_said.group(1).decode("utf-8", "replace").replace("\\\\", "\\")
        t.fields["cwd"] = t.fields["project"] = "".join(c for c in where if c.isprintable())
    item = _sibling(path, HISTORY)
    if isinstance(item, dict):
        _history_item(t, item)
        if (owner := _orchestration(folder, item)) is not None:
            _as_subtask_run(t, folder, owner, item)
            return [t]
    meta = _sibling(path, META)
    if isinstance(meta, dict):
        files = [f.get("path") for f in meta.get("files_in_context") or [] if isinstance(f, dict) and f.get("path")]
        if files:
            t.fact("files", sorted(set(files)), whole=True)
    return [t]


def _text(value: Any, most: int = 300) -> str | None:
    """A string of the tool's, bounded and on one line (what an untrusted file says is shown as data)."""
    if not isinstance(value, str) or not value.strip():
        return None
    return "".join(c if c.isprintable() else " " for c in value.strip()[:most])


def _history_item(t: Transcript, item: dict) -> None:
    """What Roo Code's `history_item.json` adds: the workspace the task ran in, its mode and provider profile,
    its cost, and the task it is a subtask of (Roo's orchestrator hands work to subtasks, each a task folder)."""
    if workspace := _text(item.get("workspace"), 4096):
        t.fields["cwd"], t.fields["project"] = workspace, Path(workspace).name or workspace
    if task := _text(item.get("task"), 4096):
        t.title(task)
    for key, name in (("mode", "mode"), ("apiConfigName", "provider_profile"), ("status", "status"),
                      ("parentTaskId", "parent_task"), ("rootTaskId", "root_task")):
        if value := _text(item.get(key)):
            t.meta[name] = value
    ids = item.get("childIds")
    children = [c for c in map(_text, ids[:200]) if c] if isinstance(ids, list) else []
    if children:
        t.meta["subtasks"] = children
    cost = item.get("totalCost")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool) and 0 <= cost < 1e9:
        t.meta["cost"] = float(cost)


def _orchestration(folder: Path, item: dict) -> Path | None:
    """The folder of the task whose session a Roo Code subtask is a run in: the first task of its orchestration
    (`rootTaskId`), else the one that started it (`parentTaskId`), lying beside it in the same tasks folder. None for
    a task the user started, or when neither is there (a task folder copied alone, its parent deleted): it stays a
    session of its own. The names are the file's: only a plain folder name is looked up."""
    for key in ("rootTaskId", "parentTaskId"):
        name = item.get(key)
        if (isinstance(name, str) and 0 < len(name) <= 200 and name.isprintable() and name not in (".", "..", folder.name)
                and "/" not in name and "\\" not in name and (folder.parent / name).is_dir()):
            return folder.parent / name
    return None


def _as_subtask_run(t: Transcript, folder: Path, owner: Path, item: dict) -> None:
    """A Roo Code subtask as a run in its orchestration's session, as Codex's and Claude Code's subagents are runs in
    their parent's: its events sidechain under its task id, placed where it began (`spawned_at`: after the `newTask`
    call that started it; sessionscope.history.branch). Its events keep the ids they had as a session of their own
    (`Transcript.ids`): a subtask stored before as a session of its own is not stored a second time when its files are
    read again. The session's title, folder and model stay the orchestration's; the run carries its task, mode and
    cost."""
    agent = folder.name
    started = item.get("ts")  # (ms)
    if not isinstance(started, (int, float)) or isinstance(started, bool) or not 0 < started < 1e15:
        started = 1000 * min((e.ts for e in t.events), default=t.ts)
    run: dict[str, Any] = {"kind": "subtask", "spawned_at": started / 1000}
    run |= {k: t.meta[k] for k in ("mode", "status", "parent_task", "cost") if k in t.meta}
    if task := _text(item.get("task"), 500):
        run["task"] = task
    t.ids, t.key, t.tool_id = t.key, session_key(owner), owner.name
    t.fields, t.meta = {}, {"subagents": {agent: run}}
    for e in t.events:
        e.sidechain, e.agent_id, e.head = True, agent, False


def _requests(ui: list) -> list[tuple[float, int, int]]:
    """(time, tokens in, tokens out) of each API request, in order (`api_req_started`)."""
    out = []
    for m in ui:
        if m.get("say") == "api_req_started":
            try:
                info = orjson.loads(m.get("text") or "{}")
            except orjson.JSONDecodeError:
                info = {}
            tin = int(info.get("tokensIn") or 0) + int(info.get("cacheReads") or 0) + int(info.get("cacheWrites") or 0)
            out.append((m["ts"] / 1000, tin, int(info.get("tokensOut") or 0)))
    return out


def _said(text: str, first: bool) -> str | None:
    """What the user typed: Cline wraps it (`<task>`, `<feedback>`, `<answer>`, `<user_message>`); the
    other user text it sends is its own (environment details, reminders). A first message with no
    wrapper at all is taken as the task (older versions)."""
    if m := _TASK.search(text) or _USER.search(text):
        return m.group(1)
    if first and not text.lstrip().startswith(("<environment_details>", "#")):
        return text
    return None


def _conversation(t: Transcript, doc: list, ui: list) -> None:
    requests = iter(_requests(ui))
    first_ts = ui[0]["ts"] / 1000 if ui else None
    pending: list[str] = []  # ids of the last reply's tool calls, answered in order
    ts = first_ts
    for i, m in enumerate(doc):
        if not isinstance(m, dict):
            t.problems.append(f"message {i}: not an object")
            continue
        role = m.get("role")
        content = m.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
        if isinstance(m.get("ts"), (int, float)):
            ts = m["ts"] / 1000
        if role == "assistant":
            req = next(requests, None)
            if req is not None:
                ts = req[0]
            tokens = m.get("metrics", {}).get("tokens") if isinstance(m.get("metrics"), dict) else None
            if isinstance(tokens, dict):
                tin = int(tokens.get("prompt") or 0) + int(tokens.get("cached") or 0)
                tout = int(tokens.get("completion") or 0)
            else:
                tin, tout = (req[1], req[2]) if req else (0, 0)
            if isinstance(m.get("modelInfo"), dict) and m["modelInfo"].get("modelId"):
                t.fields["model"] = m["modelInfo"]["modelId"]
            pending = []
            first = True
            for b in blocks:
                if not isinstance(b, dict):
                    continue
                kind = b.get("type")
                if kind == "thinking":
                    e = t.add("thinking", "assistant", str(b.get("thinking") or ""), {"role": role, "block": b}, ts)
                elif kind == "tool_use":
                    inp = b.get("input")
                    e = t.add("tool_call", "assistant", f"{b.get('name', '')} {orjson.dumps(inp).decode()}",
                              {"name": b.get("name"), "input": inp, "id": b.get("id")}, ts)
                    pending.append(str(b.get("id") or e.id))
                elif kind == "text":
                    e = t.add("message", "assistant", str(b.get("text") or ""), {"role": role, "block": b}, ts)
                else:
                    continue
                if first:
                    e.tokens_in, e.tokens_out, first = tin, tout, False
        elif role == "user":
            for b in blocks:
                if not isinstance(b, dict):
                    continue
                text = b.get("text") if isinstance(b.get("text"), str) else ""
                if b.get("type") == "tool_result":
                    out = b.get("content")
                    out = out if isinstance(out, str) else "\n".join(
                        x.get("text", "") for x in out or [] if isinstance(x, dict))
                    t.add("tool_result", "tool", out, {"tool_use_id": b.get("tool_use_id"), "output": out,
                                                       "is_error": bool(b.get("is_error"))}, ts)
                    continue
                if b.get("type") != "text" or not text.strip():
                    continue
                if r := _RESULT.match(text):
                    call = pending.pop(0) if pending else None
                    out = text[r.end():]
                    t.add("tool_result", "tool", out, {"tool_use_id": call, "tool": r["tool"], "output": out,
                                                       "is_error": out.lstrip().startswith("The tool execution failed")},
                          ts)
                elif (said := _said(text, first=not t.fields.get("title"))) is not None:
                    t.add("message", "user", said, {"role": role, "block": b}, ts)
                    t.title(said)
                else:  # what Cline adds on the user's behalf: environment details, reminders, progress
                    t.add("meta", "user", text, {"role": role, "block": b}, ts, head=False)
        else:
            t.problems.append(f"message {i}: unknown role {role!r}")


_UI_KINDS = {
    "reasoning": ("thinking", "assistant"), "completion_result": ("message", "assistant"),
    "user_feedback": ("message", "user"), "command": ("tool_call", "assistant"), "tool": ("tool_call", "assistant"),
    "command_output": ("tool_result", "tool"), "mcp_server_response": ("tool_result", "tool"),
    "use_mcp_server": ("tool_call", "assistant"), "followup": ("message", "assistant"),
    "plan_mode_respond": ("message", "assistant"), "error": ("system", "system"),
    "subtask_result": ("tool_result", "tool"),  # Roo Code: what a subtask (`newTask`) handed back
}


def _ui_session(t: Transcript, ui: list) -> None:
    """A UI log alone: what the user saw, in order (the first `say text` is the task)."""
    pending_tokens = (0, 0)
    calls: list[str] = []
    for i, m in enumerate(ui):
        what = m.get("say") if m.get("type") == "say" else m.get("ask")
        ts = m["ts"] / 1000
        text = m.get("text") if isinstance(m.get("text"), str) else ""
        if what == "api_req_started":
            req = _requests([m])
            pending_tokens = (req[0][1], req[0][2]) if req else (0, 0)
            continue
        if what == "text":
            kind, role = ("message", "user") if not t.fields.get("title") else ("message", "assistant")
        elif what in _UI_KINDS:
            kind, role = _UI_KINDS[what]
        else:
            continue  # checkpoints, progress, retries, resume prompts: the UI's own bookkeeping
        if not text.strip() and kind != "tool_result":
            continue
        payload: dict[str, Any] = {"ui": m}
        if kind == "tool_call":
            payload |= {"name": what, "id": f"ui-{i}"}
            try:
                payload["input"] = orjson.loads(text) if text.lstrip().startswith("{") else {"command": text}
            except orjson.JSONDecodeError:
                payload["input"] = {"text": text}
            calls.append(f"ui-{i}")
        elif kind == "tool_result":
            payload |= {"tool_use_id": calls.pop(0) if calls else None, "output": text}
        e = t.add(kind, role, text, payload, ts)
        if role == "assistant" and pending_tokens != (0, 0):
            e.tokens_in, e.tokens_out = pending_tokens
            pending_tokens = (0, 0)
        if kind == "message" and role == "user":
            t.title(text)


import_paths = importer(KIND, session_files, read_whole(build), "Cline task files")
