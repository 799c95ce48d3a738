"""ChatGPT's data export, read only (FORMATS.md §15): `conversations.json` (an array of conversations, or
one conversation), as downloaded or inside the export's zip. A conversation's `mapping` is a real tree
(`parent`, `children`): an edited prompt or a regenerated reply is a branch, and every branch is kept;
the branch ChatGPT showed is the path from `current_node` to the root, the session's head. A message
to a tool (`recipient` other than "all": browsing) is a call; the tool's answer (role `tool`) its
result. The root (no message) and empty system messages are not events.
"""

from __future__ import annotations

import collections
import uuid
from pathlib import Path
from typing import Any

from sessionscope.safety.untrusted import shown as quoted
from sessionscope.sources.documents import Transcript, read_streamed
from sessionscope.sources.exports import builder, export_files, sniff_conversations, zip_claims
from sessionscope.sources.scan import importer

KIND = "chatgpt"
NS = uuid.UUID("4c1d8e72-a9b3-4f05-8d6e-2e7f0b9c5a13")


def default_roots() -> list[Path]:
    return []  # an export is imported by the user (File ▸ Import, `sessionscope import conversations.json`)


def _is_conversation(c: Any) -> bool:
    return isinstance(c, dict) and isinstance(c.get("mapping"), dict) and ("id" in c or "conversation_id" in c)


def sniff(doc: Any) -> bool:
    return sniff_conversations(doc, _is_conversation)


def claims(path: Path) -> bool:
    return zip_claims(path, sniff)


def _text(content: Any) -> str:
    if not isinstance(content, dict):
        return ""
    parts = content.get("parts")
    if isinstance(parts, list):
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(p)
            elif isinstance(p, dict):
                out.append(str(p.get("text")) if isinstance(p.get("text"), str) else f"[{p.get('content_type', 'part')}]")
        return "\n".join(x for x in out if x)
    for key in ("text", "result", "content"):
        if isinstance(content.get(key), str):
            return content[key]
    return ""


def _order(mapping: dict) -> tuple[list[str], list[str]]:
    """Node ids, each after its parent (breadth first from the roots), siblings by time; and the nodes where a
    cycle of `parent` links was broken (each read as a root: every node is read once, whatever its links say)."""
    children: dict[str | None, list[str]] = {}
    for nid, n in mapping.items():
        parent = n.get("parent") if isinstance(n, dict) and isinstance(n.get("parent"), str) and \
            n["parent"] in mapping else None
        children.setdefault(parent, []).append(nid)

    def when(nid: str) -> float:
        m = mapping[nid].get("message") if isinstance(mapping[nid], dict) else None
        t = m.get("create_time") if isinstance(m, dict) else None
        return float(t) if isinstance(t, (int, float)) else 0.0
    out, seen, broken = [], set(), []
    starts = sorted(children.get(None, []), key=when)
    rest = sorted(mapping, key=when)
    while True:
        queue = collections.deque(starts)
        while queue:
            nid = queue.popleft()
            if nid in seen:
                continue
            seen.add(nid)
            out.append(nid)
            queue.extend(sorted(children.get(nid, []), key=when))
        left = next((nid for nid in rest if nid not in seen), None)
        if left is None:
            return out, broken
        broken.append(left)  # on a cycle (or under one): read from its earliest node
        starts = [left]


def conversation(c: dict, mtime: float) -> Transcript:
    cid = str(c.get("id") or c.get("conversation_id"))
    created = float(c.get("create_time") or 0) or mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"conversation:{cid}")), tool_id=cid, ts=created)
    if isinstance(c.get("title"), str) and c["title"].strip():
        t.fields["title"] = c["title"].strip()[:200]
        t.meta.update(title_source="chatgpt", title_rank=2)
    if c.get("default_model_slug"):
        t.fields["model"] = str(c["default_model_slug"])
    t.meta.update(archived=bool(c.get("is_archived")), gizmo_id=c.get("gizmo_id"))
    mapping = c["mapping"]
    shown: set[str] = set()
    node = c.get("current_node")
    while isinstance(node, str) and node in mapping and node not in shown:
        shown.add(node)
        node = mapping[node].get("parent") if isinstance(mapping[node], dict) else None
    event_of: dict[str, str | None] = {}  # node → the event it is (or, for a node that is none, its parent's)
    order, broken = _order(mapping)
    if broken:
        t.problems.append(f"conversation {quoted(cid)}: its messages' parent links make {len(broken)} cycle(s); "
                          "each read from its earliest message")
    for nid in order:
        n = mapping[nid] if isinstance(mapping[nid], dict) else {}
        parent = n.get("parent")
        t.last = event_of.get(parent) if isinstance(parent, str) and nid not in broken else None
        m = n.get("message")
        text = _text(m.get("content")) if isinstance(m, dict) else ""
        role = (m.get("author") or {}).get("role") if isinstance(m, dict) and isinstance(m.get("author"), dict) else None
        if not isinstance(m, dict) or (role == "system" and not text.strip()):
            event_of[nid] = t.last  # the root, an empty system prompt: its children hang where it would
            continue
        ts = float(m.get("create_time") or 0) or t.ts
        head = nid in shown
        meta = m.get("metadata") if isinstance(m.get("metadata"), dict) else {}
        model = str(meta.get("model_slug") or "")
        if model and head:
            t.fields["model"] = model
        raw = {"node": nid, "content_type": (m.get("content") or {}).get("content_type"), "status": m.get("status"),
               "recipient": m.get("recipient"), "model": model}
        recipient = m.get("recipient")
        if role == "assistant" and recipient not in (None, "all"):
            e = t.call(str(m.get("id") or nid), str(recipient), text, ts, raw=raw, key=nid)
        elif role == "tool":
            e = t.result(None, text, ts, error=(m.get("content") or {}).get("content_type") == "system_error",
                         raw=raw, key=nid)
        elif role in ("user", "assistant", "system"):
            e = t.said(role, text, ts, raw=raw, key=nid, model=model)
        else:
            t.problems.append(f"conversation {cid}: a message of role {role!r}, which the reader does not know")
            event_of[nid] = t.last
            continue
        e.head = head
        event_of[nid] = e.id
    return t


import_paths = importer(KIND, export_files, read_streamed(builder(_is_conversation, conversation, "ChatGPT")), "ChatGPT exports")
