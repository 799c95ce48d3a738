"""QwenPaw (formerly CoPaw) sessions, read only (FORMATS.md §15).

An agent's sessions are `~/.qwenpaw/workspaces/<agent>/sessions/[<channel>/]<user>_<session>.json` (a channel's in
its own folder: the console, a chat app), each the state AgentScope saves for the agent, rewritten whole: `{agent{
name, memory{content[[message, marks[]], …]}}}`. A message is `{id, name, role, content[text | thinking | tool_use{id,
name, input} | tool_result{id, name, output[]}], metadata, timestamp ('YYYY-MM-DD HH:MM:SS.mmm', local time)}`; a
tool's result comes back in a `system` message naming the call's id. Read again whole when it changes; events are
named by message id, so nothing is stored twice.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from sessionscope.sources.documents import Transcript, blocks_text, is_document, load_json, oldest_first, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "qwenpaw"
NS = uuid.UUID("c6e8a0b2-4d1f-4a3c-9e57-0b2d4f6a8c91")
ROLES = ("user", "assistant", "system")


def default_roots() -> list[Path]:
    """`~/.qwenpaw/workspaces` on every system (QWENPAW_WORKSPACES moves it), and CoPaw's `~/.copaw/workspaces`."""
    places = [Path(os.environ["QWENPAW_WORKSPACES"])] if os.environ.get("QWENPAW_WORKSPACES") else []
    places += [Path.home() / ".qwenpaw" / "workspaces", Path.home() / ".copaw" / "workspaces"]
    return [p for p in places if p.is_dir()]


def _entries(doc: Any) -> list | None:
    agent = doc.get("agent") if isinstance(doc, dict) else None
    memory = agent.get("memory") if isinstance(agent, dict) else None
    content = memory.get("content") if isinstance(memory, dict) else None
    return content if isinstance(content, list) else None


def sniff(doc: Any) -> bool:
    """AgentScope's saved agent state: a memory of `[message, marks]` pairs, each message with a role and an id."""
    entries = _entries(doc)
    if entries is None:
        return False
    return all(isinstance(e, list) and len(e) == 2 and isinstance(e[0], dict) and e[0].get("role") in ROLES
               and "id" in e[0] for e in entries[:20])


def session_files(root: Path) -> list[Path]:
    return oldest_first([Path(d) / n for d, _dirs, names in os.walk(root) for n in names
                         if n.endswith(".json") and Path(d).name != "memory" and is_document(Path(d) / n, sniff)])


def _where(path: Path) -> tuple[str, str]:
    """(agent, channel) of a session file: `<agent>/sessions/<file>` or `<agent>/sessions/<channel>/<file>`."""
    if path.parent.name == "sessions":
        return path.parent.parent.name, ""
    if path.parent.parent.name == "sessions":
        return path.parent.parent.parent.name, path.parent.name
    return "", ""


def _output(value: Any) -> str:
    return value if isinstance(value, str) else blocks_text(value)


def build(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    if not sniff(doc):
        raise ValueError("not a QwenPaw session")
    agent, channel = _where(path)
    t = Transcript(NS, str(uuid.uuid5(NS, f"session:{agent}/{channel}/{path.stem}")), tool_id=path.stem,
                   ts=path.stat().st_mtime)
    name = doc["agent"].get("name")
    t.meta.update(qwenpaw_agent=agent or None, qwenpaw_channel=channel or None,
                  qwenpaw_agent_name=name if isinstance(name, str) else None)
    if agent:
        t.fields["project"] = agent  # the agent's workspace is what its sessions have in common
    for n, entry in enumerate(_entries(doc)):
        m = entry[0] if isinstance(entry, list) and entry and isinstance(entry[0], dict) else None
        if m is None or m.get("role") not in ROLES:
            t.problems.append(f"memory entry {n}: not a message")
            continue
        role, key = m["role"], str(m.get("id") or f"entry{n}")
        ts = parse_ts(m.get("timestamp")) or t.ts
        meta = m.get("metadata") if isinstance(m.get("metadata"), dict) else {}
        model = meta.get("model") if isinstance(meta.get("model"), str) else ""
        blocks = m.get("content") if isinstance(m.get("content"), list) else [{"type": "text", "text": m["content"]}] \
            if isinstance(m.get("content"), str) else []
        raw = {"id": m.get("id"), "name": m.get("name"), "marks": entry[1] if len(entry) > 1 else []}
        for i, b in enumerate(blocks):
            kind = b.get("type") if isinstance(b, dict) else None
            if kind == "text" and isinstance(b.get("text"), str) and b["text"].strip():
                if role == "system":
                    t.add("system", "system", b["text"], {**raw, "text": b["text"]}, ts, head=False,
                          key=f"{key}:{i}").activity = False
                else:
                    t.said(role, b["text"], ts, raw=raw, key=f"{key}:{i}", model=model)
            elif kind == "thinking" and isinstance(b.get("thinking"), str) and b["thinking"].strip():
                t.thought(b["thinking"], ts, raw=raw, key=f"{key}:{i}")
            elif kind == "tool_use":
                t.call(str(b.get("id") or f"{key}:{i}"), str(b.get("name") or "tool"),
                       b.get("input") if b.get("input") is not None else {}, ts, raw=raw, key=f"{key}:{i}")
            elif kind == "tool_result":
                t.result(b.get("id"), _output(b.get("output")), ts, raw={**raw, "name": b.get("name")}, key=f"{key}:{i}")
            elif kind in ("image", "audio", "video", "file"):
                t.said(role if role != "system" else "user", f"[{kind}]", ts, raw=raw, key=f"{key}:{i}")
            elif kind is not None and kind != "text" and kind != "thinking":
                t.problems.append(f"message {key}: a {kind!r} block, which the reader does not know")
        if model:
            t.fields["model"] = model
    return [t]


import_paths = importer(KIND, session_files, read_whole(build), "QwenPaw sessions")
