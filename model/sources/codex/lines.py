"""Codex CLI rollout lines → store events (see shared/corpus/FORMATS.md §2).

A rollout is `{timestamp, type, payload}` lines in order; there is no parent
pointer, so each event hangs under the line before it. The first `session_meta`
owns the file's identity. Codex writes the conversation twice (`response_item`
and `event_msg` echoes): the response items are the conversation, the echoes are
kept verbatim but hidden (`meta`). An event's id is derived from the line's bytes,
so the history a fork copies from its parent is stored once and the fork's own
lines hang under the parent's: a real branch in the tree. Token counts are
cumulative; each `token_count` carries its growth over the last one in the file
(a fork's copied counters are never counted twice).

A subagent's thread is a rollout of its own whose `session_meta` names the thread that spawned it
(`source.subagent.thread_spawn.parent_thread_id`): its lines are a subagent run in the parent's session
(sidechain events, `agent_id` = the subagent's thread id), as Claude Code's subagent files are. The parent's
`collab_agent_spawn_end` names the new thread and the call that spawned it: recorded in the session's
`meta.subagents` (`spawned_by`), so the run shows under that call whichever file is read first.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson

from sessionscope.history.titles import from_prompt
from sessionscope.safety.untrusted import is_safe_id
from sessionscope.sources.records import add_fact, parse_ts
from sessionscope.store.incoming import NewEvent, SessionInfo

NS = uuid.UUID("0c7d3f62-5b8e-4c1a-9d2e-7a4b6e1f0c33")
ENVELOPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state",
                       "inter_agent_communication_metadata"})
CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call",
                   "image_generation_call", "tool_call"})
OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output", "tool_result"})
HEAD_KINDS = frozenset({"message", "tool_call", "tool_result", "thinking", "compaction"})
_INJECTED = ("<environment_context>", "# AGENTS.md", "<user_instructions>", "<permissions", "# Context from my IDE")
_IDE_REQUEST = re.compile(r"## My request for Codex:\s*", re.S)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
TEXT_MAX = 16_384


def sniff(obj: Any) -> bool:
    """Whether a parsed line is a Codex rollout line."""
    return (isinstance(obj, dict) and isinstance(obj.get("type"), str) and obj["type"] in ENVELOPES
            and isinstance(obj.get("payload"), dict))


def event_id(raw: str) -> str:
    return str(uuid.uuid5(NS, hashlib.sha1(raw.encode("utf-8", "replace")).hexdigest()))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") in
             ("input_text", "output_text", "text", "summary_text")]
    parts += ["[image]" for b in content if isinstance(b, dict) and b.get("type") == "input_image"]
    return "\n".join(p for p in parts if p)


def prompt_text(text: str) -> str | None:
    """What the user typed, or None for context Codex injects (environment, AGENTS.md, IDE setup)."""
    stripped = text.lstrip()
    if stripped.startswith("# Context from my IDE"):
        m = _IDE_REQUEST.search(stripped)
        return stripped[m.end():].strip() if m else None
    return None if stripped.startswith(_INJECTED) else text


@dataclass
class CodexFile:
    """What one import run learns about one rollout file (one session)."""

    session_id: str | None
    source_id: int
    info: SessionInfo | None = None
    events: list[NewEvent] = field(default_factory=list)
    last: str | None = None  # the previous line's event: the next one hangs under it
    totals: tuple[int, int] = (0, 0)  # the last cumulative (input, output) tokens seen in the file
    cumulative: bool = False  # the file reports cumulative token_count totals (then turn usage is not added)
    facts: dict[str, Any] = field(default_factory=dict)
    titled: bool = False
    last_ts: float = 0.0
    agent_id: str | None = None  # a subagent's thread: its own id (its lines are a run in the parent's session)

    def session(self, fallback: str) -> SessionInfo:
        if self.info is None:
            self.session_id = self.session_id or fallback
            self.info = SessionInfo(id=self.session_id, source_id=self.source_id, tool_id=self.session_id)
        return self.info


def _kind(t: str, p: dict[str, Any]) -> tuple[str, str | None, str]:
    pt = p.get("type") if isinstance(p.get("type"), str) else ""
    if t == "response_item":
        if pt == "message" or (not pt and "role" in p):  # early rollouts leave the type out
            role = p.get("role") if isinstance(p.get("role"), str) else None
            text = _content_text(p.get("content"))
            if role == "user":
                typed = prompt_text(text)
                return ("message", "user", typed) if typed is not None else ("system", "system", text)
            if role in ("developer", "system"):
                return "system", "system", text
            return "message", role or "assistant", text
        if pt == "reasoning":
            text = _content_text(p.get("summary")) or _content_text(p.get("content"))
            return "thinking", "assistant", text or ("(reasoning kept encrypted by Codex)" if p.get("encrypted_content") else "")
        if pt in CALLS:
            args = p.get("arguments") if pt == "function_call" else p.get("input") or p.get("action") or p.get("arguments")
            args = args if isinstance(args, str) else orjson.dumps(args).decode() if args is not None else ""
            return "tool_call", "assistant", f"{p.get('name') or pt} {args}".strip()
        if pt in OUTPUTS:
            out = p.get("output")
            return "tool_result", "tool", out if isinstance(out, str) else orjson.dumps(out).decode()
        return "opaque", None, ""
    if t == "compacted":
        return "compaction", "system", str(p.get("message") or "Conversation compacted")
    if t == "event_msg" and pt == "error":
        return "system", "system", str(p.get("message") or "error")
    return "meta", None, ""


def convert(offset: int, raw: str, obj: Any, ctx: CodexFile, file_key: str) -> None:
    """Turn one parsed line into events of the file's session (with extracted facts)."""
    fallback = str(uuid.uuid5(NS, file_key))
    if not sniff(obj):
        info = ctx.session(fallback)
        _append(ctx, NewEvent(id=str(uuid.uuid5(NS, f"{file_key}:{offset}")), parent_id=ctx.last, ts=ctx.last_ts,
                              kind="opaque", payload=raw, activity=False))
        return
    t, p = obj["type"], obj["payload"]
    ts = parse_ts(obj.get("timestamp"))
    activity = ts is not None
    ts = ts if ts is not None else ctx.last_ts
    ctx.last_ts = ts
    if t == "session_meta" and ctx.info is None:
        sid = p.get("id") if isinstance(p.get("id"), str) and p.get("id") else None
        parent = spawned_by_thread(p)
        if parent and sid and parent != sid and ctx.session_id in (None, parent):
            ctx.agent_id, ctx.session_id = sid, parent
            ctx.session(fallback).meta["subagents"] = {sid: _subagent_meta(p, ts, activity)}
        else:
            ctx.session_id = ctx.session_id or sid
            _meta_fields(ctx.session(fallback), p)
    info = ctx.session(fallback)
    kind, role, text = _kind(t, p)
    if len(text) > TEXT_MAX:
        text = text[:TEXT_MAX] + f"\n… [{len(text) - TEXT_MAX:,} more characters in the raw line]"
    tokens_in = tokens_out = 0
    if t == "event_msg" and p.get("type") == "token_count":
        tokens_in, tokens_out = _usage_delta(p, ctx)
    elif t == "event_msg" and p.get("type") == "turn.completed" and not ctx.cumulative:
        tokens_in, tokens_out = _turn_usage(p)  # `codex exec --json` style: each turn's own usage
    eid = event_id(raw)
    run = ctx.agent_id
    _append(ctx, NewEvent(id=eid, parent_id=ctx.last, ts=ts, kind=kind, role=role, text=text, payload=raw,
                          tokens_in=tokens_in, tokens_out=tokens_out, activity=activity and kind != "meta",
                          head=kind in HEAD_KINDS and run is None, sidechain=run is not None, agent_id=run))
    if run is None:  # a subagent's lines say nothing of the parent session's title, folder or facts
        _fields_and_facts(t, p, kind, role, text, eid, ts, ctx, info)


def spawned_by_thread(p: dict[str, Any]) -> str | None:
    """The thread that spawned this one, from its `session_meta` payload (None: not a subagent's)."""
    source = p.get("source")
    spawn = source.get("subagent", {}).get("thread_spawn") if isinstance(source, dict) and \
        isinstance(source.get("subagent"), dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else p.get("parent_thread_id")
    return parent if is_safe_id(parent) else None


def _subagent_meta(p: dict[str, Any], ts: float, timed: bool) -> dict[str, Any]:
    source = p.get("source") if isinstance(p.get("source"), dict) else {}
    spawn = source.get("subagent", {}).get("thread_spawn") if isinstance(source.get("subagent"), dict) else None
    spawn = spawn if isinstance(spawn, dict) else p
    out: dict[str, Any] = {k: spawn.get(f"agent_{k}") for k in ("nickname", "role", "path")
                           if isinstance(spawn.get(f"agent_{k}"), str)}
    if isinstance(spawn.get("depth"), int):
        out["depth"] = spawn["depth"]
    if timed:
        out["spawned_at"] = ts  # where the run goes when the parent's spawn record is not read (yet)
    return out


def _append(ctx: CodexFile, e: NewEvent) -> None:
    ctx.events.append(e)
    ctx.last = e.id


def _meta_fields(info: SessionInfo, p: dict[str, Any]) -> None:
    if isinstance(p.get("cwd"), str) and p["cwd"]:
        info.fields.update(cwd=p["cwd"], project=p["cwd"])
    git = p.get("git") if isinstance(p.get("git"), dict) else {}
    if isinstance(git.get("branch"), str) and git["branch"]:
        info.fields["git_branch"] = git["branch"]
    for src, dst in (("cli_version", "cli_version"), ("originator", "originator"), ("model_provider", "model_provider")):
        if isinstance(p.get(src), str):
            info.meta[dst] = p[src]
    if isinstance(p.get("forked_from_id"), str) and p["forked_from_id"]:
        info.forked_from_session = p["forked_from_id"]


def _usage_delta(p: dict[str, Any], ctx: CodexFile) -> tuple[int, int]:
    info = p.get("info") if isinstance(p.get("info"), dict) else None
    total = info.get("total_token_usage") if info else None
    if not isinstance(total, dict):
        return 0, 0
    now = (int(total.get("input_tokens") or 0), int(total.get("output_tokens") or 0))
    ctx.cumulative = True
    before = ctx.totals
    ctx.totals = (max(before[0], now[0]), max(before[1], now[1]))
    return ctx.totals[0] - before[0], ctx.totals[1] - before[1]


def _turn_usage(p: dict[str, Any]) -> tuple[int, int]:
    usage = p.get("usage") if isinstance(p.get("usage"), dict) else {}
    return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)


def _fact(ctx: CodexFile, anchor: str, ts: float, key: str, value: Any) -> None:
    add_fact(ctx.events, ctx.facts, NS, anchor, ts, key, value)


def _fields_and_facts(t: str, p: dict[str, Any], kind: str, role: str | None, text: str, eid: str, ts: float,
                      ctx: CodexFile, info: SessionInfo) -> None:
    if t == "session_meta":
        for key, value in (("cwd", p.get("cwd")), ("git_branch", (p.get("git") or {}).get("branch")
                                                   if isinstance(p.get("git"), dict) else None)):
            if isinstance(value, str) and value:
                _fact(ctx, eid, ts, key, value)
    elif t == "turn_context":
        if isinstance(p.get("model"), str) and p["model"]:
            info.fields["model"] = p["model"]
            _fact(ctx, eid, ts, "model", p["model"])
        if isinstance(p.get("cwd"), str) and p["cwd"]:
            info.fields.update(cwd=p["cwd"], project=p["cwd"])
    elif kind == "message" and role == "user" and not ctx.titled and text.strip():
        info.fields["title"] = from_prompt(text)
        info.meta.update(title_source="first_prompt", title_rank=1)
        ctx.titled = True
    elif t == "event_msg" and p.get("type") == "collab_agent_spawn_end" and is_safe_id(p.get("new_thread_id")):
        spawned = {"spawned_by": eid, "call_id": p.get("call_id")}
        spawned |= {k: p[f"new_agent_{k}"] for k in ("nickname", "role") if isinstance(p.get(f"new_agent_{k}"), str)}
        info.meta.setdefault("subagents", {})[p["new_thread_id"]] = spawned
    elif t == "event_msg" and p.get("type") == "thread_name_updated":
        name = p.get("thread_name") or p.get("name")
        if isinstance(name, str) and name.strip():
            info.fields["title"] = " ".join(name.split())[:200]
            info.meta.update(title_source="custom", title_rank=4)
            ctx.titled = True
    if kind == "tool_call":
        name = p.get("name")
        body = p.get("input") if isinstance(p.get("input"), str) else p.get("arguments")
        if name == "apply_patch" and isinstance(body, str):
            for path in _PATCH_FILE.findall(body):
                _fact(ctx, eid, ts, f"file:{path.strip()}", "edit")
        elif name == "update_plan" and isinstance(body, str):
            try:
                plan = orjson.loads(body).get("plan")
            except (orjson.JSONDecodeError, AttributeError):
                plan = None
            if isinstance(plan, list):
                _fact(ctx, eid, ts, "plan", plan)
