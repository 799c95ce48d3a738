"""One API item of an OpenAI hosted session (as `items.list` returns it, a JSON object) → its store events.

An item is a message, a reasoning summary, or one step the agent took. A step the API reports whole — a command
it ran with its output, an MCP call with its answer, a subagent call and whether it went through — becomes two
events, the call and its result, so the timeline pairs them as it pairs every tool's (sessionscope.history.pairing, by
`call_id`): the call keeps the item as the API sent it, without the output, with `call_id` = the item's id; the
result keeps the output, and `is_error` (the store's mark of an error result) when the step failed. A function
call and its `function_call_output` are two items already, paired by their own `call_id`.

Items carry no time: each takes its turn's start (the API's `turns`), else the session's last activity.
A type this reader does not know is kept whole as a folded event and said (drift: the API is newer).
"""

from __future__ import annotations

from typing import Any

import orjson

from sessionscope.sources.remote import count

MAX_ITEM_CHARS = 8 << 20  # an item's JSON longer than this (a screenshot's data URL) is stored truncated, saying so
DONE = ("completed", "failed", "incomplete")
STEP_NAMES = {"command_execution": "shell", "web_search_call": "web_search", "computer_use_call": "computer",
              "create_subagent_call": "spawn_subagent", "send_subagent_input_call": "message_subagent",
              "resume_subagent_call": "resume_subagent", "wait_for_subagents_call": "wait_for_subagents",
              "interrupt_subagent_call": "interrupt_subagent", "close_subagent_call": "close_subagent"}
KNOWN = {"message", "reasoning", "function_call", "function_call_output", "agent_message", "mcp_call",
         "computer_use_approval_request", "computer_use_approval_request_result", *STEP_NAMES}


def content_text(content: Any) -> str:
    """The text of a list of content parts (images, files and encrypted parts by their kind)."""
    if isinstance(content, str):
        return content
    parts = []
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        if isinstance(b.get("text"), str):
            parts.append(b["text"])
        elif b.get("type") in ("input_image", "computer_screenshot"):
            parts.append("[image]")
        elif b.get("type") == "input_file":
            parts.append(f"[file {b.get('filename') or b.get('file_id') or ''}]".replace(" ]", "]"))
        elif b.get("type") == "encrypted_content":
            parts.append("[encrypted]")
    return "\n".join(parts)


def _args(value: Any) -> str:
    if isinstance(value, str):
        return value
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode() if value is not None else ""


def _agents(item: dict) -> str:
    to = item.get("recipient_agent_id") or ", ".join(str(a) for a in item.get("recipient_agent_ids") or [])
    return str(to or "")


def _step_text(t: str, item: dict) -> str:
    name = STEP_NAMES[t]
    if t == "command_execution":
        return f"{name} {item.get('command') or ''}".strip()
    if t == "web_search_call":
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        return f"{name} {action.get('query') or action.get('url') or action.get('type') or ''}".strip()
    if t == "computer_use_call":
        return f"{name} {item.get('title') or ''}".strip()
    if t in ("create_subagent_call", "send_subagent_input_call"):
        model = f" ({item['model']})" if isinstance(item.get("model"), str) else ""
        to = f" → {_agents(item)}" if _agents(item) else ""
        return f"{name}{to}{model}: {content_text(item.get('content'))}"
    return f"{name} {_agents(item)}".strip()


def _output(t: str, item: dict) -> tuple[str, dict]:
    """(text, payload) of a step's result."""
    status = str(item.get("status") or "")
    failed = status == "failed" or (t == "command_execution" and count(item.get("exit_code")) > 0) or \
        (t == "mcp_call" and item.get("error") not in (None, "", {}))
    out: dict[str, Any] = {"type": f"{t}_output", "call_id": item.get("id"), "status": status}
    for k in ("output", "error", "exit_code", "duration_ms"):
        if k in item:
            out[k] = item[k]
    if failed:
        out["is_error"] = True
    if t == "command_execution":
        text = str(item.get("output") or "")
        if item.get("exit_code") not in (None, 0):
            text = f"{text}\n(exit code {item['exit_code']})".strip()
    elif t == "mcp_call":
        text = _args(item.get("error")) if failed else _args(item.get("output"))
    elif t == "computer_use_call":
        text = "[screenshot]" if item.get("output") else status
    else:
        text = status
    if failed and not text.startswith("error"):
        text = f"error: {text}"
    return text, out


def describe(item: dict) -> list[tuple[str, str, str | None, str, dict]]:
    """The events of one item: (id suffix, kind, role, text, payload), in order."""
    t = str(item.get("type") or "")
    if t == "message":
        role = "user" if item.get("role") == "user" else "assistant"
        return [("", "message", role, content_text(item.get("content")), item)]
    if t == "reasoning":
        summary = item.get("summary") if isinstance(item.get("summary"), list) else []
        return [("", "thinking", "assistant", content_text(summary), item)]
    if t == "function_call":
        return [("", "tool_call", "assistant", f"{item.get('name') or ''} {_args(item.get('arguments'))}".strip(), item)]
    if t == "function_call_output":
        failed = item.get("status") == "failed" or item.get("error") not in (None, "")
        text = f"error: {item.get('error') or ''}".strip() if failed else content_text(item.get("output"))
        return [("", "tool_result", "tool", text, item | {"is_error": True} if failed else item)]
    if t == "agent_message":
        text = f"{item.get('sender_agent_id') or ''} → {item.get('recipient_agent_id') or ''}: " \
               f"{content_text(item.get('content'))}"
        return [("", "message", "assistant", text, item)]
    if t == "computer_use_approval_request":
        request = item.get("request") if isinstance(item.get("request"), dict) else {}
        what = request.get("reason") or request.get("credential_origin") or request.get("origin") or ""
        return [("", "system", "status", f"asks you to sign in: {what}".strip().rstrip(":"), item)]
    if t == "computer_use_approval_request_result":
        response = item.get("response") if isinstance(item.get("response"), dict) else {}
        return [("", "system", "user", f"sign-in request answered: {response.get('action') or ''}".strip(), item)]
    if t == "mcp_call" or t in STEP_NAMES:
        call = {k: v for k, v in item.items() if k not in ("output", "error", "exit_code", "duration_ms")}
        call["call_id"] = item.get("id")
        if t == "mcp_call":
            text = f"{item.get('server_label') or ''}/{item.get('name') or ''} {_args(item.get('arguments'))}".strip()
        else:
            text = _step_text(t, item)
        events = [("", "tool_call", "assistant", text, call)]
        if item.get("status") in DONE:
            result_text, result = _output(t, item)
            events.append((":result", "tool_result", "tool", result_text, result))
        return events
    return [("", "opaque", None, t or "an item with no type", item)]  # kept whole; listed as drift


def payload_of(value: dict) -> tuple[str, str]:
    """(payload JSON, a note when it had to be truncated)."""
    payload = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    if len(payload) <= MAX_ITEM_CHARS:
        return payload, ""
    size = len(payload)
    kept = orjson.dumps({k: value.get(k) for k in ("id", "type", "call_id", "turn_id", "status") if k in value} | {
        "sessionscope_truncated": {"characters": size, "kept": MAX_ITEM_CHARS // 4},
        "head": payload[:MAX_ITEM_CHARS // 4]}, option=orjson.OPT_NON_STR_KEYS).decode()
    return kept, f"[an item of {size:,} characters, stored truncated] "
