"""VS Code's Copilot Chat sessions (FORMATS.md §8): `workspaceStorage/<hash>/chatSessions/<id>.json`, the
empty window's `globalStorage/emptyWindowChatSessions/`, and the `.jsonl` form newer builds write (a
patch log: `kind` 0 a whole snapshot in `v`, 1 a value set at the key path `k`, 2 values appended to the
array at `k`, from index `i` when given). Rewritten whole (or patched): read again when changed.

A request is the user's message and the response's items: markdown pieces (joined into one reply
until something else comes), thinking, tool invocations (call and outcome in one item: a call and
its result here), edits the agent made to files (`textEditGroup`), and an error the request ended
in. An item of a kind not read here is said as a problem of the file; the rest is kept.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources.documents import Transcript, load_json
from sessionscope.sources.vscode import workspace_folder

NS = uuid.UUID("a4e1c9d7-3b2f-4f60-8c15-7e9d2b6a0f31")
EDITOR = "vscode-chat"  # meta copilot_kind
_SESSION_KEYS = ("sessionId", "requesterUsername", "responderUsername", "initialLocation", "creationDate")
# response items that carry nothing to read (progress, UI state)
_QUIET = {"prepareToolInvocation", "undoStop", "codeblockUri", "progressMessage", "progressTaskSerialized",
          "confirmation", "command", "warning", "notebookEditGroup", "multiDiffData", "elicitation",
          "mcpServersStarting", "toolInvocation"}


def is_chat(doc: Any) -> bool:
    """A chat session document: `requests[]` of messages and responses, with the session's own keys."""
    if not isinstance(doc, dict) or not isinstance(doc.get("requests"), list):
        return False
    if any(k in doc for k in _SESSION_KEYS):
        return True
    reqs = [r for r in doc["requests"][:5] if isinstance(r, dict)]
    return bool(reqs) and all(isinstance(r.get("message"), dict) and ("response" in r or "requestId" in r)
                              for r in reqs)


def is_patch_log_line(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == 0 and is_chat(obj.get("v"))


def _walk(doc: Any, path: list) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def replay(data: bytes, problems: list[str]) -> dict:
    """The session a patch log builds, each line applied in turn (a line that cannot be is said, and skipped)."""
    doc: Any = None
    for n, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            op = orjson.loads(raw)
            kind, path = op.get("kind"), op.get("k") or []
            if kind == 0:
                doc = op["v"]
            elif kind == 1:
                _walk(doc, path[:-1])[path[-1]] = op["v"]
            elif kind == 2:
                target = _walk(doc, path)
                if op.get("i") is not None:
                    del target[int(op["i"]):]
                target.extend(op["v"] if isinstance(op.get("v"), list) else [op.get("v")])
            else:
                problems.append(f"line {n}: a change of kind {kind!r}, which the reader does not know")
        except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            problems.append(f"line {n}: cannot be applied ({type(exc).__name__}: {exc})")
    if not is_chat(doc):
        raise ValueError("the patch log builds no chat session")
    return doc


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return str(value.get("value") or value.get("text") or "")
    return ""


def _ms(value: Any) -> float | None:
    return value / 1000 if isinstance(value, (int, float)) and value > 0 else None


def _tokens(result: Any) -> tuple[int, int, int, int] | None:
    if not isinstance(result, dict):
        return None
    meta = result.get("metadata") if isinstance(result.get("metadata"), dict) else {}
    usage = result.get("usage") if isinstance(result.get("usage"), dict) else {}
    tin = result.get("promptTokens", meta.get("promptTokens", usage.get("promptTokens")))
    tout = result.get("outputTokens", meta.get("outputTokens", usage.get("completionTokens")))
    if tin is None and tout is None:
        return None
    return int(tin or 0), int(tout or 0), 0, 0


def build(path: Path, data: bytes) -> list[Transcript]:
    problems: list[str] = []
    doc = replay(data, problems) if path.suffix == ".jsonl" else load_json(data)
    if not is_chat(doc):
        raise ValueError("not a Copilot chat session")
    sid = str(doc.get("sessionId") or path.stem)
    created = _ms(doc.get("creationDate")) or path.stat().st_mtime
    t = Transcript(NS, str(uuid.uuid5(NS, f"chat:{sid}")), tool_id=sid, ts=created)
    t.problems += problems
    t.meta.update(copilot_kind=EDITOR, chat_file=str(path))
    folder = workspace_folder(path.parent.parent)
    if folder:
        t.fields.update(cwd=folder, project=folder)
    if isinstance(doc.get("customTitle"), str) and doc["customTitle"].strip():
        t.fields["title"] = doc["customTitle"].strip()[:200]
        t.meta.update(title_source="custom", title_rank=3)
    ts = created
    for i, r in enumerate(doc["requests"]):
        if not isinstance(r, dict):
            t.problems.append(f"request {i}: not an object")
            continue
        rid = str(r.get("requestId") or i)
        ts = _ms(r.get("timestamp")) or ts
        model = str(r.get("modelId") or "")
        if model:
            t.fields["model"] = model
        message = r.get("message") if isinstance(r.get("message"), dict) else {}
        t.said("user", _text(message.get("text")) or _text(message), ts, raw={"requestId": rid, "message": message,
                                                                               "variableData": r.get("variableData")},
               key=f"{rid}:user")
        _response(t, rid, r.get("response") or [], ts, model, _tokens(r.get("result")))
        result = r.get("result") if isinstance(r.get("result"), dict) else {}
        error = result.get("errorDetails") if isinstance(result.get("errorDetails"), dict) else None
        if error and error.get("message"):
            t.add("system", "system", f"error: {error['message']}", {"errorDetails": error}, ts, key=f"{rid}:error")
    return [t]


def _response(t: Transcript, rid: str, items: list, ts: float, model: str, tokens) -> None:
    made: list = []
    text: list[str] = []
    n = 0

    def key(what: str) -> str:
        nonlocal n
        n += 1
        return f"{rid}:{n}:{what}"

    def flush() -> None:
        if "".join(text).strip():
            made.append(t.said("assistant", "".join(text), ts, key=key("reply"), model=model))
        text.clear()

    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("kind")
        if kind in (None, "markdownContent", "markdownVuln"):
            text.append(_text(item.get("content")) or _text(item))
        elif kind == "inlineReference":
            ref = item.get("inlineReference")
            name = item.get("name") or (ref.get("path") or ref.get("fsPath") if isinstance(ref, dict) else "") or ""
            text.append(f"`{name}`" if name else "")
        elif kind == "thinking":
            flush()
            if _text(item.get("value")).strip():
                made.append(t.thought(_text(item.get("value")), ts, key=key("thinking")))
        elif kind == "toolInvocationSerialized":
            flush()
            cid = str(item.get("toolCallId") or key("call"))
            data = item.get("toolSpecificData")
            args = data if data is not None else _text(item.get("invocationMessage"))
            made.append(t.call(cid, str(item.get("toolId") or "tool"), args, ts, raw=item, key=key("call")))
            confirmed = item.get("isConfirmed")
            refused = confirmed is False or (isinstance(confirmed, dict) and confirmed.get("type") == 0)
            outcome = _text(item.get("pastTenseMessage")) or _text(item.get("resultDetails")) or \
                ("done" if item.get("isComplete") else "")
            if item.get("isComplete") or refused or outcome:
                made.append(t.result(cid, "the user refused this call" if refused else outcome, ts, error=refused,
                                     key=key("result")))
        elif kind == "textEditGroup":
            flush()
            uri = item.get("uri")
            target = uri.get("path") or uri.get("fsPath") if isinstance(uri, dict) else str(uri or "")
            cid = key("edit")
            made.append(t.call(cid, "edit_file", {"path": target, "edits": item.get("edits")}, ts, key=cid))
            made.append(t.result(cid, f"edited {target}", ts, key=key("edited")))
        elif kind in _QUIET:
            continue
        else:
            t.problems.append(f"request {rid}: a response item of kind {kind!r}, which the reader does not know")
    flush()
    if made:
        t.usage(made[0], model, tokens)
