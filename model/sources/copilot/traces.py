"""Visual Studio's Copilot traces (`%TEMP%\\VSGitHubCopilotLogs\\traces\\*_VSGitHubCopilot_traces.jsonl`): one
OpenTelemetry (OTLP/JSON) export a line. An `invoke_agent` span is a turn of the conversation
(`gen_ai.conversation.id`: one session, across files), its `execute_tool` spans the calls the agent
made (arguments and result in the span's attributes). The traces hold no prompt or reply text:
what the session shows is its turns, models, modes and tool calls.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources.documents import Transcript

NS = uuid.UUID("e7a3b915-0c4d-4e28-9f6b-1d8c2a5e7f40")
TRACES = "visual-studio"  # meta copilot_kind


def _value(v: Any) -> Any:
    if not isinstance(v, dict):
        return v
    for k in ("stringValue", "intValue", "doubleValue", "boolValue"):
        if k in v:
            return v[k]
    return None


def _attrs(items: Any) -> dict[str, Any]:
    return {a["key"]: _value(a.get("value")) for a in items or [] if isinstance(a, dict) and "key" in a}


def sniff(obj: Any) -> bool:
    """An OTLP export whose spans are Copilot's (an agent's turns and tool calls)."""
    if not (isinstance(obj, dict) and isinstance(obj.get("resourceSpans"), list)):
        return False
    for rs in obj["resourceSpans"][:5]:
        service = _attrs((rs.get("resource") or {}).get("attributes")).get("service.name") if isinstance(rs, dict) else None
        if isinstance(service, str) and "copilot" in service.lower():
            return True
    return False


def _spans(path: Path, problems: list[str]):
    for n, raw in enumerate(path.read_bytes().splitlines(), 1):
        if not raw.strip():
            continue
        try:
            doc = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            problems.append(f"line {n}: not JSON ({str(exc).split(':')[0]})")
            continue
        for rs in doc.get("resourceSpans") or [] if isinstance(doc, dict) else []:
            resource = _attrs((rs.get("resource") or {}).get("attributes")) if isinstance(rs, dict) else {}
            for ss in rs.get("scopeSpans") or [] if isinstance(rs, dict) else []:
                for span in ss.get("spans") or [] if isinstance(ss, dict) else []:
                    if isinstance(span, dict):
                        yield resource, span


def build(path: Path, _data: bytes) -> list[Transcript]:
    problems: list[str] = []
    sessions: dict[str, Transcript] = {}
    spans = sorted(_spans(path, problems), key=lambda rs: int(rs[1].get("startTimeUnixNano") or 0))
    for resource, span in spans:
        a = _attrs(span.get("attributes"))
        conversation = a.get("gen_ai.conversation.id")
        if not conversation:
            continue
        t = sessions.get(conversation)
        if t is None:
            t = sessions[conversation] = Transcript(NS, str(uuid.uuid5(NS, f"conversation:{conversation}")),
                                                    tool_id=str(conversation), ts=path.stat().st_mtime)
            t.continues = True  # the same conversation goes on in the next file
            t.meta.update(copilot_kind=TRACES, visual_studio=resource.get("service.version"))
        ts = int(span.get("startTimeUnixNano") or 0) / 1e9 or t.ts
        sid = str(span.get("spanId") or "")
        op = a.get("gen_ai.operation.name") or str(span.get("name", "")).split(" ")[0]
        if op == "invoke_agent":
            model = str(a.get("gen_ai.request.model") or "")
            if model:
                t.fields["model"] = model
            mode = a.get("copilot_chat.mode") or ""
            t.add("system", "system", f"{a.get('gen_ai.agent.name', 'Copilot')} turn {a.get('copilot_chat.turn_count', '')}"
                  f"{f' ({mode} mode)' if mode else ''}{f', {model}' if model else ''}", {"span": span, "attributes": a},
                  ts, head=True, key=f"span:{sid}")
            if not t.fields.get("title"):
                t.fields["title"] = f"Visual Studio Copilot {mode.lower() or 'chat'} {conversation[:8]}"
        elif op == "execute_tool":
            cid = str(a.get("gen_ai.tool.call.id") or sid)
            args = a.get("gen_ai.tool.call.arguments")
            try:
                args = orjson.loads(args) if isinstance(args, str) and args[:1] in "{[" else args
            except orjson.JSONDecodeError:
                pass
            t.call(cid, str(a.get("gen_ai.tool.name") or "tool"), args, ts, raw={"span_id": sid}, key=f"span:{sid}")
            status = (span.get("status") or {}).get("code") if isinstance(span.get("status"), dict) else None
            end = int(span.get("endTimeUnixNano") or 0) / 1e9 or ts
            t.result(cid, str(a.get("gen_ai.tool.call.result") or ""), end, error=status in (2, "STATUS_CODE_ERROR"),
                     key=f"span:{sid}:result")
        else:
            t.add("meta", "system", str(span.get("name", "")), {"attributes": a}, ts, head=False, key=f"span:{sid}")
    out = list(sessions.values())
    if out:
        out[0].problems += problems
    return out
