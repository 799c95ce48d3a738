"""claude.ai's data export, read only: `conversations.json` (an array of `{uuid, name, created_at,
chat_messages[]}`), as downloaded or inside the export's zip. A message is `{uuid, sender human|assistant,
text, content[] (text, thinking, tool_use, tool_result blocks), created_at, attachments, files,
parent_message_uuid?}`: where the export names each message's parent, an edited prompt or a retried
reply is a branch of its own; otherwise the messages follow each other in order.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources.documents import Transcript, read_streamed
from sessionscope.sources.exports import builder, export_files, sniff_conversations, zip_claims
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "claude_ai"
NS = uuid.UUID("6e2a9d14-b7c0-4f38-91d5-3c8e0a7f2b96")
ROOT = "00000000-0000-4000-8000-000000000000"  # the parent claude.ai gives a conversation's first message


def default_roots() -> list[Path]:
    return []  # an export is imported by the user (File ▸ Import, `sessionscope import conversations.json`)


def _is_conversation(c: Any) -> bool:
    return isinstance(c, dict) and isinstance(c.get("uuid"), str) and isinstance(c.get("chat_messages"), list)


def sniff(doc: Any) -> bool:
    return sniff_conversations(doc, _is_conversation)


def claims(path: Path) -> bool:
    return zip_claims(path, sniff)


def _blocks(t: Transcript, m: dict, role: str, ts: float, key: str, head: bool) -> str | None:
    """The message's events; returns the last one's id (None: it had nothing)."""
    content = m.get("content") if isinstance(m.get("content"), list) and m.get("content") else \
        [{"type": "text", "text": m.get("text") or ""}]
    last = None
    for n, b in enumerate(content):
        if not isinstance(b, dict):
            continue
        kind, k = b.get("type"), f"{key}:{n}"
        if kind == "text" and str(b.get("text") or "").strip():
            e = t.said(role, str(b["text"]), ts, raw={"uuid": m.get("uuid"), "attachments": [
                a.get("file_name") for a in m.get("attachments") or [] if isinstance(a, dict)]}, key=k)
        elif kind == "thinking":
            e = t.thought(str(b.get("thinking") or ""), ts, key=k)
        elif kind == "tool_use":
            e = t.call(b.get("id"), str(b.get("name", "")), b.get("input"), ts, key=k)
        elif kind == "tool_result":
            out = b.get("content")
            text = out if isinstance(out, str) else "\n".join(
                str(x.get("text")) for x in out or [] if isinstance(x, dict) and x.get("text"))
            e = t.result(b.get("tool_use_id"), text, ts, error=bool(b.get("is_error")), key=k)
        else:
            if kind != "text":
                t.problems.append(f"message {m.get('uuid')}: a block of type {kind!r}, which the reader does not know")
            continue
        e.head = head
        last = e.id
    return last


def conversation(c: dict, mtime: float) -> Transcript:
    created = parse_ts(c.get("created_at")) or mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"conversation:{c['uuid']}")), tool_id=c["uuid"], ts=created)
    if isinstance(c.get("name"), str) and c["name"].strip():
        t.fields["title"] = c["name"].strip()[:200]
        t.meta.update(title_source="claude.ai", title_rank=2)
    messages = [m for m in c["chat_messages"] if isinstance(m, dict)]
    tree = any(isinstance(m.get("parent_message_uuid"), str) for m in messages)
    shown: set[str] = set()
    if tree:  # the branch shown: from the newest message back to the first
        by_uuid = {m.get("uuid"): m for m in messages}
        node = max(messages, key=lambda m: parse_ts(m.get("created_at")) or 0).get("uuid") if messages else None
        while node in by_uuid and node not in shown:
            shown.add(node)
            node = by_uuid[node].get("parent_message_uuid")
    last_of: dict[str, str | None] = {}
    for i, m in enumerate(messages):
        if tree:
            parent = m.get("parent_message_uuid")
            t.last = last_of.get(parent) if parent and parent != ROOT else None
        role = {"human": "user", "assistant": "assistant"}.get(m.get("sender"))
        if role is None:
            t.problems.append(f"message {m.get('uuid')}: a sender {m.get('sender')!r}, which the reader does not know")
            continue
        ts = parse_ts(m.get("created_at")) or t.ts
        last_of[str(m.get("uuid"))] = _blocks(t, m, role, ts, str(m.get("uuid") or i),
                                              head=not tree or m.get("uuid") in shown) or t.last
    return t


import_paths = importer(KIND, export_files, read_streamed(builder(_is_conversation, conversation, "claude.ai")),
                        "claude.ai exports")
