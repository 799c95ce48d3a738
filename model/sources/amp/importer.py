"""Amp threads, read only (FORMATS.md §14): one JSON document a thread (`T-<uuid>.json`), rewritten on every
save (`v` counts them). Messages hold Anthropic-shaped blocks: text, thinking, `tool_use`, and in user
messages `tool_result` (its call named by `toolUseID`, its outcome in `run{status, result}`). Each
reply carries its own usage (input, output, cache reads and writes) and model. The project is the
workspace tree Amp recorded when the thread began. `history.jsonl` (the prompt history), `session.json`
and `secrets.json` beside the threads are not sessions and are never read.
"""

from __future__ import annotations

import os
import urllib.parse
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources.documents import Transcript, is_document, load_json, oldest_first, read_whole
from sessionscope.sources.scan import importer

KIND = "amp"
NS = uuid.UUID("5f8b2d07-91c3-4e6a-b0d4-2c7a9e1f3b68")


def default_roots() -> list[Path]:
    """Where Amp keeps its threads: `~/.local/share/amp/threads` (XDG_DATA_HOME moves it; the same path on
    macOS; `%LOCALAPPDATA%\\amp\\threads` on Windows)."""
    bases = [Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "amp"]
    if os.environ.get("LOCALAPPDATA"):
        bases.append(Path(os.environ["LOCALAPPDATA"]) / "amp")
    return [b / "threads" for b in bases if (b / "threads").is_dir()]


def sniff(doc: Any) -> bool:
    """An Amp thread: `T-` id, creation time, messages with roles."""
    return isinstance(doc, dict) and isinstance(doc.get("id"), str) and doc["id"].startswith("T-") and \
        isinstance(doc.get("messages"), list) and "created" in doc


def session_files(root: Path) -> list[Path]:
    return oldest_first([Path(d) / n for d, _dirs, names in os.walk(root) for n in names
                         if n.startswith("T-") and n.endswith(".json") and is_document(Path(d) / n, sniff)])


def _workspace(doc: dict) -> tuple[str | None, str | None]:
    """(folder, git url) of the thread's first workspace tree."""
    env = doc.get("env") if isinstance(doc.get("env"), dict) else {}
    trees = (env.get("initial") or {}).get("trees") if isinstance(env.get("initial"), dict) else None
    tree = trees[0] if isinstance(trees, list) and trees and isinstance(trees[0], dict) else {}
    uri = tree.get("uri")
    folder = urllib.parse.unquote(urllib.parse.urlparse(uri).path) if isinstance(uri, str) and uri else None
    repo = tree.get("repository") if isinstance(tree.get("repository"), dict) else {}
    return folder, repo.get("url")


def _result_text(run: Any) -> tuple[str, bool]:
    if not isinstance(run, dict):
        return "", False
    result = run.get("result", run.get("progress", ""))
    error = run.get("status") in ("error", "rejected-by-user", "cancelled")
    if isinstance(run.get("error"), (dict, str)):
        result = run["error"].get("message", run["error"]) if isinstance(run["error"], dict) else run["error"]
    if isinstance(result, dict) and isinstance(result.get("output"), str):
        result = result["output"]
    return (result if isinstance(result, str) else orjson.dumps(result, default=str).decode()), error


def build(path: Path, data: bytes) -> list[Transcript]:
    doc = load_json(data)
    if not sniff(doc):
        raise ValueError("not an Amp thread")
    created = doc["created"] / 1000 if isinstance(doc.get("created"), (int, float)) else path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"thread:{doc['id']}")), tool_id=doc["id"], ts=created)
    folder, repo = _workspace(doc)
    if folder:
        t.fields.update(cwd=folder, project=folder)
    t.meta.update(amp_mode=doc.get("agentMode"), repository=repo)
    if isinstance(doc.get("title"), str) and doc["title"].strip():
        t.fields["title"] = doc["title"].strip()[:200]
        t.meta.update(title_source="amp", title_rank=2)
    ts = created
    for i, m in enumerate(doc["messages"]):
        if not isinstance(m, dict):
            t.problems.append(f"message {i}: not an object")
            continue
        mid, role = str(m.get("messageId", i)), m.get("role")
        meta = m.get("meta") if isinstance(m.get("meta"), dict) else {}
        ts = meta["sentAt"] / 1000 if isinstance(meta.get("sentAt"), (int, float)) else ts
        usage = m.get("usage") if isinstance(m.get("usage"), dict) else {}
        model = str(usage.get("model") or "")
        if model:
            t.fields["model"] = model
        made = []
        for n, b in enumerate(m.get("content") or []):
            if not isinstance(b, dict):
                continue
            kind, key = b.get("type"), f"{mid}:{n}"
            if kind == "text":
                if str(b.get("text") or "").strip():
                    made.append(t.said("assistant" if role == "assistant" else "user", str(b["text"]), ts, raw=b,
                                       key=key, model=model))
            elif kind == "thinking":
                made.append(t.thought(str(b.get("thinking") or ""), ts, raw={"signature": b.get("signature")}, key=key))
            elif kind == "tool_use":
                made.append(t.call(b.get("id"), str(b.get("name", "")), b.get("input"), ts, raw=b, key=key))
            elif kind == "tool_result":
                out, error = _result_text(b.get("run"))
                made.append(t.result(b.get("toolUseID") or b.get("tool_use_id"), out, ts, error=error,
                                     raw={"toolUseID": b.get("toolUseID"), "status": (b.get("run") or {}).get("status")
                                          if isinstance(b.get("run"), dict) else None}, key=key))
            elif kind in ("image", "file", "redacted_thinking"):
                made.append(t.add("meta", role, f"[{kind}]", {"type": kind}, ts, head=False, key=key))
            else:
                t.problems.append(f"message {mid}: a block of type {kind!r}, which the reader does not know")
        if made and usage:
            read, write = int(usage.get("cacheReadInputTokens") or 0), int(usage.get("cacheCreationInputTokens") or 0)
            t.usage(made[0], model, (int(usage.get("inputTokens") or 0), int(usage.get("outputTokens") or 0), read,
                                     write))
    return [t]


import_paths = importer(KIND, session_files, read_whole(build), "Amp threads")
