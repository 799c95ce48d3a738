"""Warp's agent conversations, read only, from the terminal's own database `warp.sqlite` (`~/.local/state/
warp-terminal/` on Linux, the app's group container on macOS, `%LOCALAPPDATA%\\warp\\Warp\\data` on Windows):
`agent_conversations(conversation_id, conversation_data, last_modified_at)` and `ai_queries(exchange_id,
conversation_id, start_ts, input, working_directory, output_status, model_id)`.

Warp keeps what the user asked, not what its agent answered: each exchange's `input` holds the prompt
(`[{"Query": {"text": …}}]`, an exchange without one is a step the agent took), with its time, folder, model and
outcome; the conversation's `conversation_usage_metadata` counts its tokens and its tool calls by kind (commands
run, files read, diffs applied with lines added and removed), never the calls themselves. So a Warp session is its
prompts in order, each step's outcome, and those counts as facts; the tokens as the session's totals.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import databases
from sessionscope.sources.documents import Transcript, read_whole
from sessionscope.sources.records import parse_ts
from sessionscope.sources.scan import importer

KIND = "warp"
NS = uuid.UUID("5b8e2c71-9a4d-4f3e-8c6b-1d7a0e9f2c35")
DATABASE = "warp.sqlite"


def default_roots() -> list[Path]:
    home = Path.home()
    places = [home / ".local" / "state" / "warp-terminal",
              home / "Library" / "Group Containers" / "2BBY89MBSN.dev.warp" / "Library" / "Application Support" /
              "dev.warp.Warp-Stable"]
    if os.environ.get("LOCALAPPDATA"):
        places.append(Path(os.environ["LOCALAPPDATA"]) / "warp" / "Warp" / "data")
    return [p for p in places if (p / DATABASE).is_file()]


def _is_warp(con: sqlite3.Connection) -> bool:
    names = databases.tables(con)
    return {"agent_conversations", "ai_queries"} <= names and \
        {"exchange_id", "conversation_id", "input", "start_ts"} <= databases.columns(con, "ai_queries")


def claims(path: Path) -> bool:
    return databases.inspect(path, _is_warp)


def session_files(root: Path) -> list[Path]:
    return databases.claimed(root, claims)


def _time(value: Any) -> float | None:
    """Warp's times are UTC without a zone ("2026-04-07 09:50:00.000000")."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace(" ", "T")
    return parse_ts(text if text.endswith("Z") or "+" in text[10:] else text + "Z")


def _prompt(raw: Any) -> str:
    """The prompt an exchange's input holds ("" for a step the agent took on its own)."""
    try:
        items = orjson.loads(raw) if isinstance(raw, (str, bytes)) and raw else []
    except orjson.JSONDecodeError:
        return ""
    first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
    query = first.get("Query")
    return str(query.get("text") or "").strip() if isinstance(query, dict) else ""


def _status(raw: Any) -> str:
    """An exchange's outcome (`"Completed"`, or an object naming a failure or a cancel), as a word."""
    try:
        value = orjson.loads(raw) if isinstance(raw, (str, bytes)) and raw else ""
    except orjson.JSONDecodeError:
        return str(raw)[:80]
    if isinstance(value, dict):
        return next(iter(value), "")[:80]
    return str(value)[:80]


def _usage(data: Any) -> tuple[int, dict[str, Any]]:
    """(tokens, {tool: its counts}) from a conversation's usage metadata."""
    try:
        doc = orjson.loads(data) if isinstance(data, (str, bytes)) and data else {}
    except orjson.JSONDecodeError:
        return 0, {}
    usage = doc.get("conversation_usage_metadata") if isinstance(doc, dict) else None
    if not isinstance(usage, dict):
        return 0, {}
    tokens = sum(int(u.get("warp_tokens") or 0) + int(u.get("byok_tokens") or 0)
                 for u in usage.get("token_usage") or [] if isinstance(u, dict))
    tools = usage.get("tool_usage_metadata")
    counts = {k.removesuffix("_stats"): v for k, v in (tools.items() if isinstance(tools, dict) else ())
              if isinstance(v, dict) and isinstance(v.get("count"), int) and v["count"] > 0}
    return tokens, counts


def build(path: Path, _data: bytes = b"") -> list[Transcript]:
    con = databases.open_readonly(path)
    try:
        conversations = con.execute("SELECT conversation_id, conversation_data, last_modified_at "
                                    "FROM agent_conversations ORDER BY last_modified_at, conversation_id").fetchall()
        exchanges = con.execute("SELECT exchange_id, conversation_id, start_ts, input, working_directory, "
                                "output_status, model_id FROM ai_queries ORDER BY conversation_id, start_ts, id"
                                ).fetchall()
    finally:
        con.close()
    by_conversation: dict[str, list] = {}
    for x in exchanges:
        by_conversation.setdefault(str(x[1]), []).append(x)
    out = []
    for cid, data, modified in conversations:
        steps = by_conversation.get(str(cid), [])
        if not steps:
            continue  # (a conversation begun and left before its first exchange)
        t = Transcript(NS, str(uuid.uuid5(NS, f"{path.absolute()}:{cid}")), tool_id=str(cid),
                       ts=_time(modified) or path.stat().st_mtime)
        t.meta["database"] = str(path)
        for eid, _c, start, raw, folder, status, model in steps:
            ts = _time(start) or t.ts
            if folder and not t.fields.get("cwd"):
                t.fields.update(cwd=str(folder), project=str(folder))
            if model:
                t.fields["model"] = str(model)[:100]
            said = _prompt(raw)
            outcome = _status(status)
            if said:
                t.said("user", said, ts, key=f"{eid}:prompt", model=str(model or ""))
            else:
                t.add("meta", "assistant", f"[a step of the agent's: {outcome or 'no outcome'}]",
                      {"exchange_id": eid, "status": outcome, "model": model}, ts, head=False, key=f"{eid}:step")
            if outcome and outcome != "Completed":
                t.add("system", "system", f"the exchange ended: {outcome}", {"exchange_id": eid, "status": outcome},
                      ts, key=f"{eid}:status")
        tokens, tools = _usage(data)
        if tools:
            t.fact("tool_usage", tools, whole=True)
        if tokens:
            t.totals = (tokens, 0)  # (Warp counts the conversation's tokens as one figure, not in and out)
        out.append(t)
    return out


import_paths = importer(KIND, session_files, read_whole(build, database=True), "Warp's agent conversations")
