"""What a reader sees of an event, shared by the Markdown and HTML writers.

An event becomes an `Item`: who speaks, the prose, and the code to highlight (a
tool call's input, a command, a file written, a tool's output). Items are
taken from the raw payload where it holds more than the stored text (tool text
is kept to 16 KB in the store's text column; an export gives all of it).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, replace
from typing import Any

import orjson

from .. import pairing
from ..read_models import EventView

# kinds shown at each detail level
LEVELS = {
    "prompts": frozenset({"prompt"}),
    "conversation": frozenset({"prompt", "reply", "compaction"}),
    "full": frozenset({"prompt", "reply", "compaction", "thinking", "tool_call", "tool_result", "fact", "system"}),
}


@dataclass(frozen=True)
class Item:
    kind: str  # prompt, reply, thinking, tool_call, tool_result, compaction, fact, system, other
    label: str
    text: str = ""
    code: str = ""
    language: str = "text"
    error: bool = False


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if ts else ""


def _payload(e: EventView) -> Any:
    if not e.payload or e.payload[0] not in "{[":
        return None
    try:
        return orjson.loads(e.payload)
    except orjson.JSONDecodeError:
        return None


def _content(p: Any) -> Any:
    msg = p.get("message") if isinstance(p, dict) else None
    return msg.get("content") if isinstance(msg, dict) else None


def _blocks_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    out = []
    for b in content if isinstance(content, list) else ():
        if isinstance(b, dict):
            if b.get("type") == "text":
                out.append(str(b.get("text", "")))
            elif b.get("type") == "image":
                out.append("[image]")
            elif b.get("type") == "tool_result":
                out.append(_blocks_text(b.get("content", "")))
    return "\n".join(out)


def _language_for(path: str) -> str:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound
    try:
        return get_lexer_for_filename(path).aliases[0]
    except (ClassNotFound, IndexError):
        return "text"


def _tool_call(name: str, args: Any) -> Item:
    if isinstance(args, dict):
        if isinstance(args.get("command"), str):
            return Item("tool_call", f"Tool call · {name}", args.get("description", "") or "", args["command"], "bash")
        if isinstance(args.get("file_path"), str) and isinstance(args.get("content"), str):
            return Item("tool_call", f"Tool call · {name} · {args['file_path']}", "", args["content"],
                        _language_for(args["file_path"]))
    code = json.dumps(args, indent=2, ensure_ascii=False) if args is not None else ""
    return Item("tool_call", f"Tool call · {name}", "", code, "json")


def describe(e: EventView) -> Item:
    """The event as a reader sees it."""
    k = e.kind
    if k == "message":
        if e.role == "user":
            return Item("prompt", "User", e.text)
        return Item("reply", "Assistant" if e.role == "assistant" else (e.role or "Message").title(), e.text)
    if k == "thinking":
        return Item("thinking", "Thinking", e.text)
    if k in ("compaction", "compaction_summary"):
        return Item("compaction", "Compaction", e.text)
    if k in ("fact.set", "fact.delete"):
        return Item("fact", "Fact", e.text)
    if k == "system":
        return Item("system", "System", e.text)
    if k == "checkpoint":
        return Item("system", "Checkpoint", e.text)
    if k in ("step", "interrupt"):  # a graph's checkpoint, and what it paused on (LangGraph)
        return Item("system", k.title(), e.text)
    p = _payload(e)
    if k == "tool_call":
        content = _content(p)
        if isinstance(content, list):
            uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
            if uses:
                item = _tool_call(str(uses[0].get("name", "")), uses[0].get("input"))
                if len(uses) > 1:  # several calls on one line: the rest as JSON
                    rest = json.dumps([{"name": u.get("name"), "input": u.get("input")} for u in uses[1:]],
                                      indent=2, ensure_ascii=False)
                    item = Item(item.kind, item.label + f" (+{len(uses) - 1})", item.text, item.code + "\n" + rest,
                                item.language)
                return item
        if isinstance(p, dict) and "name" in p:
            return _tool_call(str(p["name"]), p.get("input", p.get("arguments")))
        return Item("tool_call", "Tool call", "", e.text)
    if k == "tool_result":
        content = _content(p)
        error = False
        if isinstance(content, list):
            error = any(isinstance(b, dict) and b.get("is_error") for b in content)
            output = _blocks_text(content)
        elif isinstance(p, dict) and isinstance(p.get("output"), str):
            output = p["output"]
        else:
            output = e.text
        language = "json" if output.lstrip()[:1] in ("{", "[") else "text"
        return Item("tool_result", "Tool error" if error else "Tool result", "", output, language, error)
    return Item("other", k.title(), e.text)


def shown(item: Item, detail: str) -> bool:
    return item.kind in LEVELS[detail]


def fence(code: str) -> str:
    """A Markdown code fence longer than any run of backticks inside `code`."""
    longest, run = 0, 0
    for ch in code:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


@dataclass(frozen=True)
class Step:
    """One thing a reading format writes, in order: a session boundary on the branch, the
    start or end of a subagent run, a shown event, or a note on branches leaving an event."""

    what: str  # "boundary", "run_start", "run_end", "event", "mark"
    event: EventView | None = None
    item: Item | None = None
    text: str = ""  # the session id (boundary), the agent (run), the note (mark)

    @property
    def tokens(self) -> str:
        e = self.event
        return f" · {e.tokens_in + e.tokens_out:,} tokens" if e and (e.tokens_in or e.tokens_out) else ""


def steps(store, stream, index: int, detail: str):
    """The reading of part `index` at `detail`: what Markdown and HTML both write, in order."""
    part = stream.parts[index]
    lineage = store.lineage(part.session.id)
    marks = store.branch_points(part.session.id)
    current, agent = lineage[0].id, None
    called: dict[str, str] = {}  # a call's id → what its output is labelled with (parallel calls interleave)
    for e in stream.events(index):
        if e.session_id != current and not e.sidechain:
            current = e.session_id
            yield Step("boundary", text=e.session_id)
        item = describe(e)
        if e.kind == "tool_call":
            for cid in pairing.call_ids(e.payload):
                called[cid] = item.label.removeprefix("Tool call · ")
        elif e.kind == "tool_result":
            name = next((called[c] for c in pairing.answered(e.payload) if c in called), None)
            if name and name != "Tool call":
                item = replace(item, label=f"{item.label} · {name}")
        if not shown(item, detail) or (detail == "prompts" and e.sidechain):
            continue
        run = e.agent_id or "?" if e.sidechain else None
        if run != agent:
            if agent is not None:
                yield Step("run_end", text=agent)
            if run is not None:
                yield Step("run_start", text=run)
            agent = run
        yield Step("event", e, item)
        for note in marks.get(e.id, ()):
            yield Step("mark", e, text=stream.text(note, "a branch note"))
    if agent is not None:
        yield Step("run_end", text=agent)


def titled_lineage(store, stream, part) -> list[tuple[str, str]]:
    """(id, title) from the oldest origin to this session, titles redacted when asked."""
    return [(x.id, stream.text(x.title, f"session {x.id[:8]} · title")) for x in store.lineage(part.session.id)]
