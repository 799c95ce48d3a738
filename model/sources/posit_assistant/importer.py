"""Posit Assistant conversations (Positron), read only (FORMATS.md §15).

`~/.posit/assistant/workspaces/<workspace>/` holds `workspace.json {path}` (the project folder) and a folder a
conversation: `conversation.json {schemaVersion, root{id, title, summary, timestamp, metadata{kind, gitBranch,
model{id}}}, messages[{id, parentId, isActive, lmMessageIds[], timestamp}]}`, the conversation's tree (an edited
prompt or a regenerated reply is a branch; `isActive` marks the branch shown, the session's head), and
`lm-messages.jsonl`, the model messages the tree's nodes name by number (`{id, message{role, content (AI SDK
parts: text, reasoning, tool-call{toolCallId, toolName, input}, tool-result{toolCallId, output}),
providerOptions{providerMetadata{positai{timestamp, modelId, usage}}}}}`). Both are rewritten as the conversation
goes on and read whole when either changes; events are named by message number, so nothing is stored twice.

A subagent is a conversation of its own under `<conversation>/subagents/<id>/` (`metadata.kind` "subagent",
`parentTreeId`): its events are a run inside the parent's session (sidechain, agent id), placed where it began.
"""

from __future__ import annotations

import os
import re
import uuid
from collections import deque
from pathlib import Path
from typing import Any

from sessionscope.sources.documents import Transcript, is_document, load_json, oldest_first, read_whole
from sessionscope.sources.scan import importer

KIND = "posit_assistant"
NS = uuid.UUID("a3c5e7f9-0b2d-4e6f-8a1c-3e5a7c9e1b4d")
LM_KEYS = frozenset({"id", "message"})
MAX_SIDE_BYTES = 1 << 20
SUMMARY = re.compile(r"\s*<MESSAGESUMMARY>.*?</MESSAGESUMMARY>\s*", re.S)  # Posit's note to itself, not shown


def default_roots() -> list[Path]:
    """`~/.posit/assistant/workspaces` on every system."""
    root = Path.home() / ".posit" / "assistant" / "workspaces"
    return [root] if root.is_dir() else []


def sniff_conversation(doc: Any) -> bool:
    """A conversation tree: a root with an id, nodes that name model messages, a schema version."""
    return isinstance(doc, dict) and "schemaVersion" in doc and isinstance(doc.get("root"), dict) \
        and isinstance(doc["root"].get("id"), str) and isinstance(doc.get("messages"), list) \
        and all(isinstance(m, dict) and "lmMessageIds" in m for m in doc["messages"][:20])


def sniff_line(obj: Any) -> bool:
    """A line of `lm-messages.jsonl` (read with its conversation)."""
    return isinstance(obj, dict) and isinstance(obj.get("id"), int) and isinstance(obj.get("message"), dict) \
        and obj["message"].get("role") in ("user", "assistant", "tool", "system") and set(obj) <= LM_KEYS


def sniff(obj: Any) -> bool:
    """A conversation.json, or a line of the model messages beside it (importing.classify asks both)."""
    return sniff_conversation(obj) or sniff_line(obj)


def session_files(root: Path) -> list[Path]:
    return oldest_first([Path(d) / n for d, _dirs, names in os.walk(root) for n in names
                         if n == "conversation.json" and is_document(Path(d) / n, sniff_conversation)])


def _side(path: Path) -> Any:
    try:
        if path.is_file() and path.stat().st_size <= MAX_SIDE_BYTES:
            return load_json(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        pass
    return None


def _ms(value: Any) -> float | None:
    return value / 1000 if isinstance(value, (int, float)) and value > 0 else None


def _positai(message: dict) -> dict:
    p = message.get("providerOptions")
    p = p.get("providerMetadata") if isinstance(p, dict) else None
    p = p.get("positai") if isinstance(p, dict) else None
    return p if isinstance(p, dict) else {}


def _lm_messages(path: Path, t: Transcript) -> dict[int, dict]:
    out: dict[int, dict] = {}
    try:
        data = path.read_bytes()
    except OSError as exc:
        t.problems.append(f"{path.name}: cannot be read ({exc.strerror or exc})")
        return out
    for n, obj in t.json_lines(data.splitlines(), f"{path.name} "):
        if sniff_line(obj):
            out[obj["id"]] = obj["message"]
        else:
            t.problems.append(f"{path.name} line {n}: not a model message")
    return out


class Conversation:
    """One conversation's tree as events: a main conversation's own, or a subagent's run in its parent's session."""

    def __init__(self, t: Transcript, agent: str | None = None) -> None:
        self.t, self.agent, self.model = t, agent, ""

    def message(self, lm_id: int, m: dict, ts: float, active: bool) -> None:
        t, meta = self.t, _positai(m)
        ts = _ms(meta.get("timestamp")) or ts
        model = meta.get("modelId") if isinstance(meta.get("modelId"), str) else ""
        key = f"{self.agent or 'main'}:{lm_id}"
        made = []
        role, content = m.get("role"), m.get("content")
        if role not in ("user", "system", "assistant", "tool"):
            t.problems.append(f"model message {lm_id}: a role {role!r}, which the reader does not know")
            return
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}] \
            if isinstance(content, str) else []
        for i, p in enumerate(parts):  # in the order written: a reply's text before the call it announces
            if not isinstance(p, dict):
                continue
            kind = p.get("type")
            if kind in ("text", "image", "file") and role != "tool":
                text = SUMMARY.sub("\n", p["text"]).strip() if isinstance(p.get("text"), str) else f"[{kind}]"
                if text:
                    made.append(t.said(role, text, ts, raw={"id": lm_id, "part": i}, key=f"{key}:{i}",
                                       model=model if role == "assistant" else ""))
            elif kind == "reasoning" and isinstance(p.get("text"), str) and p["text"].strip():
                made.append(t.thought(p["text"], ts, raw=p, key=f"{key}:{i}"))
            elif kind == "tool-call":
                made.append(t.call(str(p.get("toolCallId") or f"{key}:{i}"), str(p.get("toolName") or "tool"),
                                   p.get("input") if p.get("input") is not None else {}, ts, raw=p, key=f"{key}:{i}"))
            elif kind == "tool-result":
                out = p.get("output")
                value = out.get("value") if isinstance(out, dict) and "value" in out else out
                error = isinstance(out, dict) and str(out.get("type", "")).startswith("error")
                made.append(t.result(p.get("toolCallId"), value, ts, error=error, raw=p, key=f"{key}:{i}"))
        usage = meta.get("usage") if isinstance(meta.get("usage"), dict) else {}
        if made and usage:
            n = lambda k: int(usage[k]) if isinstance(usage.get(k), (int, float)) and usage[k] > 0 else 0  # noqa: E731
            target = next((e for e in reversed(made) if e.kind == "message"), made[-1])
            t.usage(target, model, (n("inputTokens"), n("outputTokens"), n("cacheReadTokens"), n("cacheWriteTokens")))
        if model and active and not self.agent:
            t.fields["model"] = model
        for e in made:
            e.head = e.head and active and not self.agent
            if self.agent:
                e.sidechain, e.agent_id = True, self.agent

    def tree(self, doc: dict, lm: dict[int, dict]) -> None:
        t, root_id = self.t, doc["root"]["id"]
        nodes = [n for n in doc["messages"] if isinstance(n, dict) and isinstance(n.get("id"), str)]
        children: dict[str, list[dict]] = {}
        for n in nodes:
            children.setdefault(n.get("parentId") if n.get("parentId") != root_id else None, []).append(n)
        ends: dict[str | None, str | None] = {None: None}  # node → its last event (where its children hang)
        queue, seen = deque(children.get(None, [])), set()
        while queue:
            n = queue.popleft()
            if n["id"] in seen:
                continue
            seen.add(n["id"])
            t.last = ends.get(n.get("parentId") if n.get("parentId") != root_id else None)
            for lm_id in n.get("lmMessageIds") or []:
                if lm_id in lm:
                    self.message(lm_id, lm[lm_id], _ms(n.get("timestamp")) or t.ts, n.get("isActive") is not False)
                else:
                    t.problems.append(f"node {n['id']}: model message {lm_id!r} is not in lm-messages.jsonl")
            ends[n["id"]] = t.last
            queue.extend(children.get(n["id"], []))
        for n in nodes:
            if n["id"] not in seen:
                t.problems.append(f"node {n['id']}: its parent {n.get('parentId')!r} is not in the conversation")


def build(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    if not sniff_conversation(doc):
        raise ValueError("not a Posit Assistant conversation")
    root = doc["root"]
    meta = root.get("metadata") if isinstance(root.get("metadata"), dict) else {}
    sub = meta.get("kind") == "subagent" and path.parent.parent.name == "subagents"
    conv_dir = path.parent.parent.parent if sub else path.parent
    conv_id = meta.get("parentTreeId") if sub and isinstance(meta.get("parentTreeId"), str) else \
        conv_dir.name if sub else root["id"]
    t = Transcript(NS, str(uuid.uuid5(NS, f"conversation:{conv_dir.parent.name}:{conv_id}")), tool_id=conv_id,
                   ts=_ms(root.get("timestamp")) or path.stat().st_mtime)
    lm = _lm_messages(path.parent / "lm-messages.jsonl", t)
    if sub:
        agent = root["id"]
        run: dict[str, Any] = {"kind": "subagent", "spawned_at": t.ts}
        if isinstance(meta.get("task"), str):
            run["task"] = meta["task"][:500]
        t.meta["subagents"] = {agent: run}
        Conversation(t, agent).tree(doc, lm)
        t.fields.pop("title", None)  # a subagent's task names the run, not the conversation
        return [t]
    workspace = _side(conv_dir.parent / "workspace.json")
    if isinstance(workspace, dict) and isinstance(workspace.get("path"), str) and workspace["path"]:
        t.fields.update(cwd=workspace["path"], project=workspace["path"])
    title = root.get("title") if isinstance(root.get("title"), str) and root["title"].strip() else root.get("summary")
    if isinstance(title, str) and title.strip():
        t.fields["title"] = " ".join(title.split())[:200]
        t.meta.update(title_source="posit", title_rank=2)
    if isinstance(meta.get("gitBranch"), str):
        t.fields["git_branch"] = meta["gitBranch"]
    model = meta.get("model") if isinstance(meta.get("model"), dict) else {}
    if isinstance(model.get("id"), str):
        t.fields["model"] = model["id"]
    Conversation(t).tree(doc, lm)
    return [t]


def _beside(path: Path) -> list[Path]:
    return [path.parent / "lm-messages.jsonl"]


_read_conversation = read_whole(build, beside=_beside)


def read_file(store, root: Path, path: Path, source_id: int, known, report, cancel) -> None:
    if path.name == "lm-messages.jsonl":
        if (path.parent / "conversation.json").is_file():
            return  # read with the conversation.json beside it, which says how its messages hang together
        raise ValueError("model messages with no conversation.json beside them: nothing says which session they are")
    _read_conversation(store, root, path, source_id, known, report, cancel)


import_paths = importer(KIND, session_files, read_file, "Posit Assistant conversations")
