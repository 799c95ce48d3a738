"""What a LangGraph state holds, as plain JSON: messages and their parts, and any channel value.

The serializer hands back LangChain message objects, pydantic models, dataclasses
and whatever else the graph keeps; the store keeps JSON. Nothing here imports
langchain: a message is recognised by its shape (`type` and `content`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

MAX_TEXT = 4_000  # characters of one string kept in a fact
MAX_ITEMS = 100  # items of one list or mapping kept in a fact


def is_message(value: Any) -> bool:
    """A LangChain message object, or the plain {role|type, content} dict some graphs keep."""
    if isinstance(value, dict):
        return "content" in value and ("role" in value or "type" in value)
    return hasattr(value, "content") and isinstance(getattr(value, "type", None), str) \
        and hasattr(value, "additional_kwargs")


def message_channels(values: dict[str, Any]) -> list[str]:
    """The channels holding a conversation (`messages` by convention; any list of messages)."""
    return [k for k, v in values.items()
            if isinstance(v, list) and v and all(is_message(m) for m in v)]


def field_of(message: Any, name: str, default: Any = None) -> Any:
    if isinstance(message, dict):
        return message.get(name, default)
    return getattr(message, name, default)


def role(message: Any) -> str:
    """human/ai/tool/system for objects; a dict's role mapped to the same words."""
    r = field_of(message, "type") or field_of(message, "role") or "message"
    return {"user": "human", "assistant": "ai"}.get(r, r)


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in (None, "text") and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return "" if content is None else str(content)


def thinking_of(content: Any) -> str:
    """The reasoning blocks of a reply (Anthropic `thinking`, OpenAI `reasoning` summaries)."""
    if not isinstance(content, list):
        return ""
    out = []
    for block in content:
        if isinstance(block, dict) and block.get("type") in ("thinking", "reasoning"):
            text = block.get("thinking") or block.get("reasoning") or block.get("text")
            if not text and isinstance(block.get("summary"), list):
                text = "\n".join(s.get("text", "") for s in block["summary"] if isinstance(s, dict))
            if isinstance(text, str) and text:
                out.append(text)
    return "\n".join(out)


def same_message(a: Any, b: Any) -> bool:
    """Whether two messages are one: the same id and content (add_messages replaces by id), or equal."""
    ida, idb = field_of(a, "id"), field_of(b, "id")
    if ida and idb:
        return ida == idb and field_of(a, "content") == field_of(b, "content")
    return plain(a) == plain(b)


def new_messages(before: list[Any], after: list[Any]) -> list[Any]:
    """The messages of `after` past what it shares with `before` from the start."""
    n = 0
    while n < len(before) and n < len(after) and same_message(before[n], after[n]):
        n += 1
    return after[n:]


def summary(messages: list[Any]) -> dict[str, Any]:
    """A conversation channel as a fact: its length and last message (the messages are the timeline)."""
    last = messages[-1] if messages else None
    return {"messages": len(messages),
            "last": f"{role(last)}: {' '.join(text_of(field_of(last, 'content')).split())[:300]}" if last else ""}


def plain(value: Any, depth: int = 0) -> Any:
    """JSON-able, bounded: long strings and collections cut (and said so), objects as their fields."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + f"… ({len(value)} characters)"
    if depth > 12:
        return "…"
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value)} bytes>"
    if isinstance(value, dict):
        items = list(value.items())
        out = {str(k): plain(v, depth + 1) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            out["…"] = f"{len(items) - MAX_ITEMS} more"
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        out = [plain(v, depth + 1) for v in items[:MAX_ITEMS]]
        if len(items) > MAX_ITEMS:
            out.append(f"… {len(items) - MAX_ITEMS} more")
        return out
    dump = getattr(value, "model_dump", None)  # pydantic (LangChain messages, Interrupt, user models)
    if callable(dump):
        try:
            return plain(dump(), depth + 1)
        except Exception:  # noqa: BLE001 - a model that cannot dump itself is shown as its repr
            pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain({f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}, depth + 1)
    if hasattr(value, "_asdict"):
        return plain(value._asdict(), depth + 1)
    return plain(repr(value), depth + 1)


def brief(value: Any) -> Any:
    """A value for one line of text: messages as `role: text`, the rest as `plain` gives it."""
    if is_message(value):
        return f"{role(value)}: {' '.join(text_of(field_of(value, 'content')).split())[:200]}"
    if isinstance(value, dict):
        return {str(k): brief(x) for k, x in list(value.items())[:MAX_ITEMS]}
    if isinstance(value, (list, tuple)):
        return [brief(x) for x in list(value)[:MAX_ITEMS]]
    return plain(value)
