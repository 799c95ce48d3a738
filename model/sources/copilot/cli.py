"""The Copilot CLI's session logs (`~/.copilot/session-state/<id>/events.jsonl`, or `<id>.jsonl` from older
versions), read as they are appended: `{type, data, id, timestamp, parentId}` events.

`user.message`, `assistant.message` (its reasoning, text and `toolRequests`), `tool.execution_complete`
(the result, named by `toolCallId`), the session's model and mode changes, errors and its end with
the tokens each model used (`session.shutdown.modelMetrics`). A subagent's messages name the call that
started it (`parentToolCallId`): they are its run, nested under that call. Bookkeeping events
(hooks, usage checkpoints, routing) are kept as quiet metadata.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.appended import Log
from sessionscope.sources.records import parse_ts

NS = uuid.UUID("c2d85f1a-64e7-4b9a-a3f0-5e81d7c94b26")
CLI = "cli"  # meta copilot_kind: a Copilot CLI session (it resumes from a terminal)
_SAID = {"session.error": "error", "session.info": "info", "session.task_complete": "task complete",
         "abort": "aborted", "session.truncation": "context truncated", "system.notification": "notification",
         "subagent.started": "subagent started", "subagent.completed": "subagent finished"}


def sniff(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("type"), str) and "." in obj["type"] and \
        isinstance(obj.get("data"), dict) and "id" in obj and "parentId" in obj and \
        obj["type"].split(".")[0] in ("session", "user", "assistant", "tool", "system", "hook", "subagent")


def tool_id(path: Path) -> str:
    return path.parent.name if path.stem == "events" else path.stem


def session_key(path: Path) -> str:
    return str(uuid.uuid5(NS, tool_id(path)))


def _call_key(call_id: str) -> str:
    return f"call:{call_id}"


def convert(log: Log, line: jsonl.Line) -> None:
    obj = line.obj
    kind, data = obj.get("type"), obj.get("data") if isinstance(obj.get("data"), dict) else {}
    ts = parse_ts(obj.get("timestamp")) or log.ts
    key = str(obj.get("id") or log.line_key())
    log.meta["copilot_kind"] = CLI
    spawner = data.get("parentToolCallId")
    main = log.last
    if isinstance(spawner, str) and spawner and spawner != "None":  # a subagent's: under its last event, or its call
        runs = log.meta.setdefault("subagents", {})
        run = runs.setdefault(spawner, {"spawned_by_call": spawner})
        log.last = run.get("last") or str(uuid.uuid5(log.ns, f"{log.key}:item:{_call_key(spawner)}"))
    made = _events(log, kind, data, ts, key)
    if isinstance(spawner, str) and spawner and spawner != "None":
        for e in made:
            e.sidechain, e.agent_id, e.head = True, spawner, False
        if made:
            log.meta["subagents"][spawner]["last"] = made[-1].id
        log.last = main


def _events(log: Log, kind: str, data: dict, ts: float, key: str) -> list:
    if kind == "session.start":
        log.tool_id = str(data.get("sessionId") or log.tool_id)
        ctx = data.get("context") if isinstance(data.get("context"), dict) else {}
        if isinstance(ctx.get("cwd"), str) and ctx["cwd"]:
            log.fields.update(cwd=ctx["cwd"], project=ctx.get("gitRoot") or ctx["cwd"])
        if isinstance(ctx.get("branch"), str) and ctx["branch"]:
            log.fields["git_branch"] = ctx["branch"]
        for k in ("copilotVersion", "producer"):
            if isinstance(data.get(k), str):
                log.meta[f"copilot_{k}"] = data[k]
        if isinstance(data.get("selectedModel"), str):
            log.fields["model"] = data["selectedModel"]
        return [log.add("system", "system", f"session started in {ctx.get('cwd', '')}", data, ts, head=True, key=key)]
    if kind == "session.model_change":
        if isinstance(data.get("newModel"), str):
            log.fields["model"] = data["newModel"]
        e = log.add("meta", "system", f"model: {data.get('newModel', '')}", data, ts, head=False, key=key)
        return [e]
    if kind == "user.message":
        text = data.get("content") if isinstance(data.get("content"), str) else ""
        if not text.strip():  # a message the CLI sent on the user's behalf (a reminder): what it said
            return [log.add("meta", "user", str(data.get("transformedContent") or ""), data, ts, head=False, key=key)]
        return [log.said("user", text, ts, raw=data, key=key)]
    if kind == "assistant.message":
        model = str(data.get("model") or log.fields.get("model") or "")
        made = []
        reasoning = data.get("reasoningText")
        if isinstance(reasoning, str) and reasoning.strip() and reasoning != "None":
            made.append(log.thought(reasoning, ts, key=f"{key}:thinking"))
        if isinstance(data.get("content"), str) and data["content"].strip():
            made.append(log.said("assistant", data["content"], ts, raw={k: v for k, v in data.items()
                                                                        if k not in ("reasoningOpaque", "encryptedContent")},
                                 key=f"{key}:text", model=model))
        for r in data.get("toolRequests") or []:
            if isinstance(r, dict) and r.get("toolCallId"):
                log.meta.setdefault("_calls", set()).add(str(r["toolCallId"]))
                args = r.get("arguments")
                if isinstance(args, str) and args[:1] in "{[":
                    try:
                        args = orjson.loads(args)
                    except orjson.JSONDecodeError:
                        pass
                made.append(log.call(str(r["toolCallId"]), str(r.get("name", "")), args, ts, raw=r,
                                     key=_call_key(str(r["toolCallId"]))))
        if not made:
            made.append(log.add("meta", "assistant", "", data, ts, head=False, key=key))
        if str(data.get("outputTokens") or "").isdigit():
            made[0].tokens_out = int(data["outputTokens"])
        return made
    if kind == "tool.execution_start":  # the call, where the reply that made it did not list it
        cid = str(data.get("toolCallId") or "")
        calls = log.meta.setdefault("_calls", set())
        if not cid or cid in calls:
            return []
        calls.add(cid)
        return [log.call(cid, str(data.get("toolName", "")), data.get("arguments"), ts, raw=data, key=_call_key(cid))]
    if kind == "tool.execution_complete":
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        out = result.get("content", result.get("detailedContent", ""))
        error = data.get("success") is False
        if error and isinstance(data.get("error"), dict):
            out = data["error"].get("message") or out
        return [log.result(str(data.get("toolCallId") or ""), out if isinstance(out, str) else orjson.dumps(out).decode(),
                           ts, error=error, raw={k: v for k, v in data.items() if k != "result"}, key=key)]
    if kind == "session.shutdown":
        made = [log.add("system", "system", f"session ended ({data.get('shutdownType', '')})",
                        {k: v for k, v in data.items() if k != "modelMetrics"}, ts, head=False, key=key)]
        for model, m in (data.get("modelMetrics") or {}).items():
            u = m.get("usage") if isinstance(m, dict) and isinstance(m.get("usage"), dict) else {}
            read, write = int(u.get("cacheReadTokens") or 0), int(u.get("cacheWriteTokens") or 0)
            e = log.add("meta", "usage", f"{model}: {u.get('inputTokens', 0):,} tokens in, "
                                         f"{u.get('outputTokens', 0):,} out", {"model": model, "metrics": m}, ts,
                        head=False, key=f"{key}:{model}")
            e.activity = False
            # the replies counted their output already; the session's input is counted once, here
            log.usage(e, model, (max(0, int(u.get("inputTokens") or 0) - read - write), 0, read, write))
            made.append(e)
        return made
    if kind in _SAID:
        text = data.get("message") or data.get("summary") or data.get("content") or data.get("reason") or ""
        return [log.add("system", "system", f"{_SAID[kind]}: {text}", data, ts, head=False, key=key)]
    if kind.startswith(("session.", "hook.", "assistant.turn", "system.message", "assistant.reasoning")):
        e = log.add("meta", "system", kind, data, ts, head=False, key=key)
        e.activity = False
        return [e]
    raise ValueError(f"an event of type {kind!r}, which the Copilot CLI's reader does not know")
