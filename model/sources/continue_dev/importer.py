"""Continue's sessions, read only (FORMATS.md §10): one JSON document a session, rewritten whole, with
`sessions.json` beside them as the index (its `dateCreated` is the only time Continue keeps).

A history item is a message (`user`, `assistant` with its `toolCalls`, `tool` answering one by
`toolCallId`); the outcome Continue recorded for a call (`toolCallStates`: done, errored, canceled)
marks its result. The context items attached to a prompt (files, docs) are kept in the prompt's
payload; the model is the one the prompt log names.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources.documents import Transcript, is_document, load_json, oldest_first, read_whole
from sessionscope.sources.scan import importer

KIND = "continue_dev"
NS = uuid.UUID("9a0f6d3c-2e81-4b57-a4c9-6f1e8d2b7c05")


def default_roots() -> list[Path]:
    """`~/.continue/sessions` on every system (`%USERPROFILE%\\.continue` on Windows is the home's);
    CONTINUE_GLOBAL_DIR moves `~/.continue`."""
    base = Path(os.environ["CONTINUE_GLOBAL_DIR"]) if os.environ.get("CONTINUE_GLOBAL_DIR") else \
        Path.home() / ".continue"
    return [base / "sessions"] if (base / "sessions").is_dir() else []


def sniff(doc: Any) -> bool:
    """A Continue session: `sessionId` and a `history` of items each holding a `message` with a role."""
    if not (isinstance(doc, dict) and isinstance(doc.get("sessionId"), str) and isinstance(doc.get("history"), list)):
        return False
    items = [h for h in doc["history"][:10] if isinstance(h, dict)]
    return all(isinstance(h.get("message"), dict) and "role" in h["message"] for h in items)


def session_files(root: Path) -> list[Path]:
    return oldest_first([Path(d) / n for d, _dirs, names in os.walk(root) for n in names
                         if n.endswith(".json") and n != "sessions.json" and is_document(Path(d) / n, sniff)])


def _created(path: Path, sid: str) -> float | None:
    try:
        index = load_json((path.parent / "sessions.json").read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    for entry in index if isinstance(index, list) else []:
        if isinstance(entry, dict) and entry.get("sessionId") == sid:
            try:
                return int(entry.get("dateCreated")) / 1000
            except (TypeError, ValueError):
                return None
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def build(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    if not sniff(doc):
        raise ValueError("not a Continue session")
    sid = doc["sessionId"]
    ts = _created(path, sid) or path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"session:{sid}")), tool_id=sid, ts=ts)
    if isinstance(doc.get("workspaceDirectory"), str) and doc["workspaceDirectory"]:
        t.fields.update(cwd=doc["workspaceDirectory"], project=doc["workspaceDirectory"])
    if isinstance(doc.get("mode"), str):
        t.meta["continue_mode"] = doc["mode"]
    if isinstance(doc.get("chatModelTitle"), str):
        t.fields["model"] = doc["chatModelTitle"]
    title = doc.get("title")
    if isinstance(title, str) and title.strip() and title.strip() != "New Session":
        t.fields["title"] = " ".join(title.split())[:200]
        t.meta.update(title_source="continue", title_rank=1.5)
    outcomes: dict[str, dict] = {}
    for h in doc["history"]:
        for state in (h.get("toolCallStates") or ([h["toolCallState"]] if h.get("toolCallState") else [])) \
                if isinstance(h, dict) else []:
            if isinstance(state, dict) and state.get("toolCallId"):
                outcomes[str(state["toolCallId"])] = state
    for i, h in enumerate(doc["history"]):
        if not isinstance(h, dict) or not isinstance(h.get("message"), dict):
            t.problems.append(f"history item {i}: not a message")
            continue
        m = h["message"]
        role, key = m.get("role"), str(m.get("id") or i)
        logs = h.get("promptLogs") if isinstance(h.get("promptLogs"), list) else []
        model = next((str(p.get("modelTitle")) for p in logs if isinstance(p, dict) and p.get("modelTitle")), "")
        if model:
            t.fields["model"] = model
        if role == "user":
            t.said("user", _text(m.get("content")), ts, raw={"message": m, "contextItems": [
                {k: c.get(k) for k in ("name", "description", "uri")} for c in h.get("contextItems") or []
                if isinstance(c, dict)]}, key=f"{key}:user")
        elif role == "assistant":
            if _text(m.get("content")).strip():
                t.said("assistant", _text(m.get("content")), ts, raw=m, key=f"{key}:text", model=model)
            for n, c in enumerate(m.get("toolCalls") or []):
                t.function_call(c, ts, key=f"{key}:call:{n}")
        elif role == "tool":
            state = outcomes.get(str(m.get("toolCallId")), {})
            t.result(m.get("toolCallId"), _text(m.get("content")), ts,
                     error=state.get("status") in ("errored", "canceled"), raw=m, key=f"{key}:result")
        elif role == "system":
            t.said("system", _text(m.get("content")), ts, raw=m, key=f"{key}:system")
        else:
            t.problems.append(f"history item {i}: a message of role {role!r}, which the reader does not know")
    return [t]


import_paths = importer(KIND, session_files, read_whole(build), "Continue sessions")
