"""Cursor's editor chats in its `state.vscdb` databases (FORMATS.md §7), three generations of them:

- 2023 chat tabs: ItemTable `workbench.panel.aichat.view.aichat.chatdata` → `tabs[].bubbles[]`
  (`type` user|ai, `rawText`, the typed text also in `delegate.a` or the editor's `initText`).
- late 2024 composers, inline: ItemTable `composer.composerData` → `allComposers[].conversation[]`
  (`type` 1 user | 2 assistant, `text`).
- 2025 on, split: the workspace keeps only the composers' heads; the bodies are in the global
  database's `cursorDiskKV`: `composerData:<id>` (order in `fullConversationHeadersOnly`) and one
  `bubbleId:<composerId>:<bubbleId>` row a message, with thinking, tool calls
  (`toolFormerData`: name, arguments, result, status) and tokens (`tokenCount`).

A chat is one session, whichever database holds it; its id comes from Cursor's own id (a tab's,
a composer's), so a composer that moved from the inline to the split storage stays one session.
Nothing here writes: the databases are opened read only (sessionscope.sources.databases).
"""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, load_json, parsed
from sessionscope.sources.records import parse_ts
from sessionscope.sources.vscode import workspace_folder

NS = uuid.UUID("3b7f0c2e-5a19-4d8e-b6c1-9e2a4f7d0b58")
CHAT_TABS = "workbench.panel.aichat.view.aichat.chatdata"
COMPOSERS = "composer.composerData"
PROMPTS = "aiService.prompts"
EDITOR = "editor"  # meta cursor_kind of a chat of the editor's


def chat_keys(con: sqlite3.Connection) -> bool:
    """Whether a state database holds chats of any generation."""
    names = databases.tables(con)
    if "ItemTable" in names and con.execute("SELECT 1 FROM ItemTable WHERE key IN (?, ?) LIMIT 1",
                                            (CHAT_TABS, COMPOSERS)).fetchone():
        return True
    return "cursorDiskKV" in names and con.execute(
        "SELECT 1 FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' LIMIT 1").fetchone() is not None


def _item(con: sqlite3.Connection, table: str, key: str) -> Any:
    row = con.execute(f'SELECT value FROM "{table}" WHERE key = ?', (key,)).fetchone()
    if row is None or row[0] is None:
        return None
    value = row[0]
    return load_json(value if isinstance(value, bytes) else str(value).encode())


def _ms(value: Any) -> float | None:
    """Cursor's times: milliseconds (a number, or a number as a string), or an ISO string in bubbles."""
    if isinstance(value, (int, float)) and value > 0:
        return value / 1000
    if isinstance(value, str) and value.strip():
        if value.strip().isdigit():
            return int(value) / 1000
        return parse_ts(value)
    return None


def _lexical_text(rich: Any) -> str:
    """The plain text of the editor's Lexical document (what a user typed, where no plain copy is kept):
    its text nodes, a line a paragraph. (orjson refuses nesting over 255 levels: the walk stays shallow.)"""
    try:
        doc = orjson.loads(rich) if isinstance(rich, str) else rich
    except orjson.JSONDecodeError:
        return ""

    def walk(node: Any) -> str:
        if not isinstance(node, dict):
            return ""
        if isinstance(node.get("text"), str):
            return node["text"]
        parts = [walk(c) for c in node.get("children") or [] if isinstance(c, dict)]
        return ("\n" if node.get("type") == "root" else "").join(parts)
    return walk(doc.get("root")) if isinstance(doc, dict) else ""


def _user_text(b: dict) -> str:
    for key in ("text", "rawText"):
        if isinstance(b.get(key), str) and b[key].strip():
            return b[key]
    delegate = b.get("delegate")
    if isinstance(delegate, dict) and isinstance(delegate.get("a"), str) and delegate["a"].strip():
        return delegate["a"]
    return _lexical_text(b.get("richText") or b.get("initText"))




def bubble(t: Transcript, b: dict, ts: float | None, model: str = "") -> None:
    """One message (a bubble of any generation) as events."""
    bid = str(b.get("bubbleId") or b.get("id") or "")
    key = bid or None
    kind = b.get("type")
    ts = _ms(b.get("createdAt")) or ts
    if kind in (1, "user"):
        if not _user_text(b).strip():
            return  # a message box opened and sent nothing (the editor keeps it): nothing was said
        t.said("user", _user_text(b), ts, {k: v for k, v in b.items() if k not in ("richText", "initText", "delegate",
                                                                                    "context")},
               key=key and f"{key}:user")
        return
    if kind not in (2, "ai"):
        t.problems.append(f"bubble {bid}: a message of type {kind!r}, which Cursor's reader does not know")
        return
    model = str((b.get("modelInfo") or {}).get("modelName") or b.get("modelType") or model or "") \
        if isinstance(b.get("modelInfo") or {}, dict) else model
    if model:
        t.fields["model"] = model
    made = []
    thinking = b.get("thinking")
    if isinstance(thinking, dict) and isinstance(thinking.get("text"), str) and thinking["text"].strip():
        made.append(t.thought(thinking["text"], ts, key=key and f"{key}:thinking"))
    text = b.get("text") if isinstance(b.get("text"), str) else b.get("rawText")
    if isinstance(text, str) and text.strip():
        made.append(t.said("assistant", text, ts, {k: v for k, v in b.items() if k in (
            "bubbleId", "id", "type", "codeBlocks", "suggestedDiffs", "serverBubbleId", "capabilityType")},
            key=key and f"{key}:text", model=model))
    tool = b.get("toolFormerData")
    if isinstance(tool, dict) and (tool.get("name") or tool.get("toolCallId")):
        cid = str(tool.get("toolCallId") or f"{bid}:tool")
        made.append(t.call(cid, str(tool.get("name") or tool.get("tool") or "tool"),
                           parsed(tool.get("rawArgs") if tool.get("rawArgs") is not None else tool.get("params")), ts,
                           raw={k: v for k, v in tool.items() if k != "result"}, key=key and f"{key}:call"))
        status = str(tool.get("status") or "")
        refused = tool.get("userDecision") == "rejected"
        if tool.get("result") is not None or status in ("error", "cancelled") or refused:
            output = parsed(tool.get("result"))
            if refused and output is None:
                output = "the user rejected this call"
            made.append(t.result(cid, output if output is not None else status, ts,
                                 error=status in ("error", "cancelled") or refused, key=key and f"{key}:result"))
    count = b.get("tokenCount")
    if made and isinstance(count, dict):
        t.usage(made[0], model, (int(count.get("inputTokens") or 0), int(count.get("outputTokens") or 0), 0, 0))


def _session(path: Path, chat_id: str, folder: str | None, ts: float) -> Transcript:
    t = Transcript(NS, str(uuid.uuid5(NS, f"chat:{chat_id}")), tool_id=chat_id, ts=ts)
    t.meta.update(cursor_kind=EDITOR, database=str(path))
    if folder:
        t.fields.update(cwd=folder, project=folder)
    return t


def _named(t: Transcript, name: Any) -> None:
    if isinstance(name, str) and name.strip() and name.strip() != "New chat":
        t.fields["title"] = " ".join(name.split())[:200]
        t.meta.update(title_source="cursor", title_rank=2)


def chat_tabs(path: Path, con: sqlite3.Connection, folder: str | None, mtime: float) -> list[Transcript]:
    data = _item(con, "ItemTable", CHAT_TABS) if "ItemTable" in databases.tables(con) else None
    out = []
    for tab in (data or {}).get("tabs") or [] if isinstance(data, dict) else []:
        if not isinstance(tab, dict) or not tab.get("tabId"):
            continue
        ts = _ms(tab.get("lastSendTime")) or mtime
        t = _session(path, str(tab["tabId"]), folder, ts)
        t.meta["cursor_generation"] = "chat tabs (2023)"
        _named(t, tab.get("chatTitle"))
        for b in tab.get("bubbles") or []:
            if isinstance(b, dict):
                bubble(t, b, ts)
        out.append(t)
    return out


def composers(path: Path, con: sqlite3.Connection, folder: str | None, mtime: float) -> list[Transcript]:
    """The composers a workspace database lists with their conversation inline (late 2024); from 2025 on
    it lists only their heads, and the global database holds them (global_composers)."""
    out = []
    data = _item(con, "ItemTable", COMPOSERS) if "ItemTable" in databases.tables(con) else None
    for c in (data or {}).get("allComposers") or [] if isinstance(data, dict) else []:
        if isinstance(c, dict) and isinstance(c.get("conversation"), list) and c.get("composerId"):
            out.append(composer(path, c, folder, mtime, lambda _b: None))
    return out


def composer(path: Path, c: dict, folder: str | None, mtime: float, body_of) -> Transcript:
    """One composer: its conversation inline, in a `conversationMap`, or as headers whose bubbles
    `body_of(bubble id)` returns."""
    created = _ms(c.get("createdAt")) or mtime
    t = _session(path, str(c["composerId"]), folder, created)
    t.meta["cursor_generation"] = "composer (inline)" if c.get("conversation") else "composer"
    for k in ("unifiedMode", "forceMode", "status"):
        if isinstance(c.get(k), str):
            t.meta[f"cursor_{k}"] = c[k]
    _named(t, c.get("name"))
    config = c.get("modelConfig") if isinstance(c.get("modelConfig"), dict) else {}
    model = str(config.get("modelName") or "")
    if model and model != "default":
        t.fields["model"] = model
    if isinstance(c.get("conversation"), list) and c["conversation"]:
        items = c["conversation"]
    else:
        items = []
        mapping = c.get("conversationMap") if isinstance(c.get("conversationMap"), dict) else {}
        for h in c.get("fullConversationHeadersOnly") or []:
            bid = h.get("bubbleId") if isinstance(h, dict) else None
            if not bid:
                continue
            body = mapping.get(bid) or body_of(bid)
            if body is None:
                t.problems.append(f"composer {c['composerId']}: message {bid} is listed but not in the database")
                continue
            items.append(body)
    last = _ms(c.get("lastUpdatedAt"))
    for i, b in enumerate(items):
        if isinstance(b, dict):
            bubble(t, b, last if last and i == len(items) - 1 else created, model if model != "default" else "")
    return t


def global_composers(path: Path, con: sqlite3.Connection, folders: dict[str, str], mtime: float) -> list[Transcript]:
    """The composers whose bodies the global database keeps (`cursorDiskKV`), each with its workspace's
    folder where a workspace database lists it."""
    if "cursorDiskKV" not in databases.tables(con):
        return []
    out = []
    rows = con.execute("SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'")
    for key, value in rows.fetchall():
        cid = key.split(":", 1)[1]
        try:
            c = load_json(value if isinstance(value, bytes) else str(value).encode())
        except ValueError as exc:
            t = _session(path, cid, folders.get(cid), mtime)
            t.problems.append(f"composer {cid}: {exc}")
            out.append(t)
            continue
        if not isinstance(c, dict):
            continue
        c.setdefault("composerId", cid)

        def body_of(bid: str, cid: str = cid) -> dict | None:
            try:
                b = _item(con, "cursorDiskKV", f"bubbleId:{cid}:{bid}")
            except ValueError:
                return None
            return b if isinstance(b, dict) else None
        out.append(composer(path, c, folders.get(cid), mtime, body_of))
    return out


def workspace_composers(user_dir: Path) -> dict[str, str]:
    """{composer id: the folder of the workspace whose database lists it} over a Cursor `User` folder."""
    found: dict[str, str] = {}
    for db in sorted((user_dir / "workspaceStorage").glob("*/state.vscdb")):
        folder = workspace_folder(db.parent)
        if not folder:
            continue
        try:
            con = databases.open_readonly(db)
            try:
                data = _item(con, "ItemTable", COMPOSERS) if "ItemTable" in databases.tables(con) else None
            finally:
                con.close()
        except (sqlite3.Error, ValueError, OSError):
            continue
        for c in (data or {}).get("allComposers") or [] if isinstance(data, dict) else []:
            if isinstance(c, dict) and isinstance(c.get("composerId"), str):
                found[c["composerId"]] = folder
    return found


def build(path: Path, _data: bytes = b"") -> list[Transcript]:
    """Every chat a state database holds (documents.read_whole's `build`, for a database)."""
    mtime = path.stat().st_mtime
    con = databases.open_readonly(path)
    try:
        folder = workspace_folder(path.parent)
        found = chat_tabs(path, con, folder, mtime) + composers(path, con, folder, mtime)
        if "cursorDiskKV" in databases.tables(con):
            user_dir = path.parent.parent  # …/User/globalStorage/state.vscdb
            found += global_composers(path, con, workspace_composers(user_dir), mtime)
    finally:
        con.close()
    return found
