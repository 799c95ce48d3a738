"""Kimi, read only (FORMATS.md §12), as the files are appended:

- Kimi CLI's `wire.jsonl` (what the user saw): `{timestamp, message{type, payload}}` with `TurnBegin`
  (the prompt), `ContentPart` (think or text), `ToolCall`, `ToolResult` (`return_value.is_error`),
  `StatusUpdate` (each step's tokens), `StepInterrupted`, `TurnEnd`. Its `context.jsonl` beside it is
  the same conversation as the model saw it: not read again.
- Kimi Code's event log: `turn.prompt`, `context.append_loop_event` (`content.part`, `tool.call`,
  `tool.result`, `step.end` with the step's usage), `permission.record_approval_result`, plan mode,
  compactions (`context.apply_compaction`: its summary), `config.update` (model, folder).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.appended import Log, read_appended
from sessionscope.sources.documents import Transcript, load_json, parsed, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "kimi"
NS = uuid.UUID("8e3c1b70-4d29-4a6f-b5e8-9f0d2c7a1e34")
_WIRE = {"TurnBegin", "TurnEnd", "StepBegin", "StepInterrupted", "ContentPart", "ToolCall", "ToolResult",
         "StatusUpdate", "CompactionBegin", "CompactionEnd", "ApprovalRequest", "ApprovalResponse", "SubagentEvent"}
_CODE = ("turn.prompt", "context.append_message", "context.append_loop_event", "usage.record", "llm.request")
_SESSION_FILES = ("wire.jsonl", "events.jsonl")


def default_roots() -> list[Path]:
    """`~/.kimi/sessions` (KIMI_SHARE_DIR moves `~/.kimi`) and `~/.kimi-code/sessions`, on every system."""
    kimi = Path(os.environ["KIMI_SHARE_DIR"]) if os.environ.get("KIMI_SHARE_DIR") else Path.home() / ".kimi"
    return [p for p in (kimi / "sessions", Path.home() / ".kimi-code" / "sessions") if p.is_dir()]


def sniff(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    if obj.get("type") == "metadata" and "protocol_version" in obj:
        return True
    message = obj.get("message")
    if isinstance(message, dict) and message.get("type") in _WIRE and "timestamp" in obj:
        return True
    if isinstance(obj.get("agents"), dict) and "workDir" in obj and "lastPrompt" in obj:
        return True  # a Kimi Code session's state.json
    return obj.get("type") in _CODE or (obj.get("type") == "config.update" and
                                        ("modelAlias" in obj or "profileName" in obj or "cwd" in obj))


def _is_log(path: Path) -> bool:
    try:
        with jsonl.open_binary(path) as fh:
            return sniff(orjson.loads(fh.readline(jsonl.MAX_LINE_BYTES)))
    except (OSError, ValueError):
        return False


def session_files(root: Path) -> list[Path]:
    found = []
    for d, _dirs, names in os.walk(root):
        logs = [Path(d) / n for n in names if n.endswith(".jsonl") and not n.startswith("context") and _is_log(Path(d) / n)]
        found += logs
        if not logs and "state.json" in names and Path(d).name.startswith("session_") and _is_state(Path(d) / "state.json"):
            found.append(Path(d) / "state.json")  # a Kimi Code session of which only its state was kept
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def _state(data: bytes) -> dict | None:
    """A Kimi Code session's `state.json` ({createdAt, updatedAt, title, workDir, lastPrompt, agents}), or None."""
    try:
        doc = load_json(data)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("agents"), dict) and \
        ("lastPrompt" in doc or "workDir" in doc or "title" in doc) else None


def _is_state(path: Path) -> bool:
    try:
        return path.stat().st_size < 1 << 20 and _state(path.read_bytes()) is not None
    except OSError:
        return False


def build_state(path: Path, data: bytes) -> list[Transcript]:
    """A session of which Kimi Code kept only its state: its title, its folder and its last prompt."""
    doc = _state(data)
    if doc is None:
        raise ValueError("not a Kimi Code session's state")
    ts = parse_ts(doc.get("updatedAt")) or parse_ts(doc.get("createdAt")) or path.stat().st_mtime
    t = Transcript(NS, session_key(path), tool_id=tool_id(path), ts=ts)
    if isinstance(doc.get("workDir"), str) and doc["workDir"]:
        t.fields.update(cwd=doc["workDir"], project=doc["workDir"])
    if isinstance(doc.get("title"), str) and doc["title"].strip():
        t.fields["title"] = " ".join(doc["title"].split())[:200]
        t.meta.update(title_source="kimi", title_rank=3 if doc.get("isCustomTitle") else 1)
    t.meta["only_state"] = True
    if isinstance(doc.get("lastPrompt"), str) and doc["lastPrompt"].strip():
        t.said("user", doc["lastPrompt"], ts, key="state:lastPrompt")
    else:
        t.add("meta", None, "Kimi Code kept this session's state only", doc, ts, head=False, key="state")
    return [t]


def _read(store, root, path, source_id, known, report, cancel):
    if path.suffix != ".json":
        _read_log(store, root, path, source_id, known, report, cancel)
    elif not any(_is_log(p) for p in path.parent.glob("*.jsonl")):  # with its event log, the log is the session
        _read_state(store, root, path, source_id, known, report, cancel)


def tool_id(path: Path) -> str:
    return path.parent.name.removeprefix("session_") if path.name in _SESSION_FILES or \
        path.parent.name.startswith("session_") else path.stem


def session_key(path: Path) -> str:
    return str(uuid.uuid5(NS, tool_id(path)))


def setup(log: Log, path: Path) -> None:
    """The folder a Kimi CLI session ran in: `~/.kimi/kimi.json` lists the work folders, and a session's folder
    is named by the MD5 of its work folder's path."""
    if len(path.parents) < 4 or log.fields.get("cwd"):
        return
    try:
        doc = orjson.loads((path.parents[3] / "kimi.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return
    import hashlib
    for w in doc.get("work_dirs") or [] if isinstance(doc, dict) else []:
        folder = w.get("path") if isinstance(w, dict) else None
        if isinstance(folder, str) and hashlib.md5(folder.encode()).hexdigest() == path.parent.parent.name:
            log.fields.update(cwd=folder, project=folder)


def _text(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    return "\n".join(str(p.get("text")) for p in parts or [] if isinstance(p, dict) and p.get("type") == "text")




def _tokens(u: Any) -> tuple[int, int, int, int] | None:
    if not isinstance(u, dict):
        return None
    g = lambda *keys: int(next((u[k] for k in keys if isinstance(u.get(k), (int, float))), 0))  # noqa: E731
    return (g("input_other", "inputOther"), g("output"), g("input_cache_read", "inputCacheRead"),
            g("input_cache_creation", "inputCacheCreation"))


def _step_tokens(log: Log, tokens, model: str) -> None:
    """A step's tokens, on the meta event that says them (the reply's parts came before, one by one)."""
    if tokens and any(tokens):
        e = log.add("meta", "usage", f"{sum(tokens[:1] + tokens[2:]):,} tokens in, {tokens[1]:,} out",
                    {"model": model}, log.events[-1].ts if log.events else log.ts, head=False, key=log.line_key())
        e.activity = False
        log.usage(e, model, tokens)


def convert(log: Log, line: jsonl.Line) -> None:
    obj = line.obj
    if isinstance(obj.get("message"), dict):
        _wire(log, obj["message"].get("type"), obj["message"].get("payload") or {}, float(obj.get("timestamp") or 0)
              or log.ts)
    else:
        _code(log, obj, (obj["time"] / 1000) if isinstance(obj.get("time"), (int, float)) else log.ts)


def _wire(log: Log, kind: str, p: dict, ts: float) -> None:
    key = log.line_key()
    model = str(log.fields.get("model") or "")
    if kind == "TurnBegin":
        log.said("user", _text(p.get("user_input")), ts, raw=p, key=key)
    elif kind == "ContentPart":
        if p.get("type") == "think":
            log.thought(str(p.get("think") or ""), ts, key=key)
        elif str(p.get("text") or "").strip():
            log.said("assistant", str(p["text"]), ts, raw=p, key=key, model=model)
    elif kind == "ToolCall":
        fn = p.get("function") if isinstance(p.get("function"), dict) else {}
        log.call(p.get("id"), str(fn.get("name", "")), parsed(fn.get("arguments")), ts, raw=p, key=key)
    elif kind == "ToolResult":
        rv = p.get("return_value") if isinstance(p.get("return_value"), dict) else {}
        out = rv.get("output") if isinstance(rv.get("output"), str) and rv.get("output") else rv.get("message", "")
        log.result(p.get("tool_call_id"), out if isinstance(out, str) else orjson.dumps(out).decode(), ts,
                   error=bool(rv.get("is_error")), key=key)
    elif kind == "StatusUpdate":
        _step_tokens(log, _tokens(p.get("token_usage")), model)
    elif kind in ("StepInterrupted", "TurnEnd", "StepBegin", "CompactionBegin", "CompactionEnd"):
        said = {"StepInterrupted": "interrupted", "TurnEnd": "turn ended"}.get(kind)
        e = log.add("system" if said == "interrupted" else "meta", "system", said or kind, p, ts, head=False, key=key)
        e.activity = kind != "StepBegin"
    else:
        log.add("meta", "system", str(kind), p, ts, head=False, key=key).activity = False


def _code(log: Log, obj: dict, ts: float) -> None:
    kind, key = obj.get("type"), log.line_key()
    if kind == "metadata":
        return
    if kind == "config.update":
        if isinstance(obj.get("cwd"), str) and obj["cwd"]:
            log.fields.update(cwd=obj["cwd"], project=obj["cwd"])
        if isinstance(obj.get("modelAlias"), str):
            log.fields["model"] = obj["modelAlias"]
        return
    model = str(log.fields.get("model") or "")
    if kind in ("turn.prompt", "turn.steer"):  # a prompt, or one sent while the agent worked (steering it)
        log.said("user", _text(obj.get("input")), ts, raw={"origin": obj.get("origin"), "type": kind}, key=key)
    elif kind == "turn.cancel":
        log.add("system", "system", "interrupted", obj, ts, head=False, key=key)
    elif kind == "profile.bind":
        env = obj.get("environmentDisclosure") if isinstance(obj.get("environmentDisclosure"), dict) else {}
        if isinstance(env.get("cwd"), str) and env["cwd"]:
            log.fields.update(cwd=env["cwd"], project=env["cwd"])
        if isinstance(obj.get("modelAlias"), str):
            log.fields["model"] = obj["modelAlias"]
    elif kind in ("turn.ended", "permission.set_mode"):
        log.add("meta", "system", f"{kind}: {obj.get('reason') or obj.get('mode') or ''}", obj, ts, head=False,
                key=key).activity = False
    elif kind == "context.append_loop_event":
        e = obj.get("event") if isinstance(obj.get("event"), dict) else {}
        what = e.get("type")
        if what == "content.part":
            part = e.get("part") if isinstance(e.get("part"), dict) else {}
            if part.get("type") == "think":
                log.thought(str(part.get("think") or ""), ts, key=key)
            elif str(part.get("text") or "").strip():
                log.said("assistant", str(part["text"]), ts, key=key, model=model)
        elif what == "tool.call":
            log.call(e.get("toolCallId"), str(e.get("name", "")), e.get("args"), ts, raw=e, key=key)
        elif what == "tool.result":
            r = e.get("result") if isinstance(e.get("result"), dict) else {}
            out = r.get("output", r.get("error", ""))
            log.result(e.get("toolCallId"), out if isinstance(out, str) else orjson.dumps(out).decode(), ts,
                       error=bool(r.get("isError") or r.get("is_error") or "error" in r), key=key)
        elif what == "step.end":
            _step_tokens(log, _tokens(e.get("usage")), model)
        # step.begin: bookkeeping
    elif kind == "permission.record_approval_result":
        result = obj.get("result") if isinstance(obj.get("result"), dict) else {}
        log.add("system", "system", f"{obj.get('action', '')}: {result.get('decision', '')}", obj, ts, head=False,
                key=key)
    elif kind == "context.apply_compaction":
        log.add("compaction", "system", str(obj.get("summary") or ""), obj, ts, key=key)
    elif kind in ("plan_mode.enter", "plan_mode.exit"):
        log.add("system", "system", kind.replace("_", " ").replace(".", ": "), obj, ts, head=False, key=key)
    elif kind in ("context.append_message", "usage.record", "llm.request", "llm.tools_snapshot",
                  "tools.set_active_tools", "full_compaction.begin", "full_compaction.complete") or \
            kind.startswith(("plugin.", "runtime.", "token_counting.")):
        return  # the same turn said again for the model's context, or bookkeeping (tokens come from step.end)
    else:
        raise ValueError(f"an event of type {kind!r}, which Kimi's reader does not know")


_read_log = read_appended(NS, convert, session_key, tool_id, setup)
_read_state = read_whole(build_state)
import_paths = importer(KIND, session_files, _read, "Kimi sessions")
