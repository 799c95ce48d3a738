"""Claude Code transcript lines → store events (see shared/corpus/FORMATS.md §1).

Every line is kept verbatim as an event payload; unknown line types become
`opaque` events. Compaction boundaries hang under their `logicalParentUuid`,
so a branch runs across compactions. Durable facts (todos, files touched,
plan, cwd, branch, model, PR links) are extracted as `fact.*` events
with role "extracted", attached under the line they came from.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson

from sessionscope.history.richtext import CONTEXT_TAGS
from sessionscope.history.titles import from_prompt
from sessionscope.safety.untrusted import is_safe_id
from sessionscope.sources.records import add_fact, parse_ts
from sessionscope.store.incoming import NewEvent, SessionInfo

NS = uuid.UUID("3b0c6d9e-2f4a-4f0e-9a61-1c1d7e0c2b55")

# Lines the CLI appends when it merely opens a session: not the user's activity.
NOISE_TYPES = frozenset({"mode", "permission-mode", "atis-latch", "tools-used", "cost-state", "last-prompt"})
META_TYPES = NOISE_TYPES | frozenset({
    "summary", "queue-operation", "custom-title",
    "ai-title", "agent-name", "pr-link", "frame-link", "worktree-state", "relocated",
    "bridge-session", "content-replacement", "tag",
})
# What records the user's own marks (a rename, a tag; and the title Claude Code gives a session as it goes): kept, not
# counted among the session's events (NewEvent.counted), and no fact of the branch (the title is the session's: a fact
# set on the branch by a rename made the branch one event longer than the count)
MARK_TYPES = frozenset({"custom-title", "ai-title", "agent-name", "tag"})
# Claude Code's file checkpoints: a snapshot of the tracked files' backups per prompt (and 2.1.x deltas).
CHECKPOINT_TYPES = frozenset({"file-history-snapshot", "file-history-delta"})
CHAIN_TYPES = frozenset({"user", "assistant", "system", "progress", "attachment"})
# Attachments Claude Code gives the model of its own accord, the same in every session or turn: its environment, the
# tools, skills and agents it lists, its system prompt's snapshot, its reminders. Kept as `context` events with no
# text (nothing to search for, not the conversation: the reader and `show` leave them out, as Claude Code's own
# reader does); what the user or a hook said (a queued prompt, a hook's output, a file) stays an `attachment`.
CONTEXT_ATTACHMENTS = frozenset({
    "environment", "model", "date", "date_change", "session_context", "remote_session_change", "prompt_snapshot",
    "deferred_tools_delta", "agent_listing_delta", "skill_listing",
    "task_reminder", "todo_reminder", "total_tokens_reminder", "silent_turn_reminder", "budget_usd",
})
HEAD_KINDS = frozenset({"message", "tool_call", "tool_result", "thinking", "compaction", "compaction_summary"})
FILE_TOOLS = {"Edit": "edit", "MultiEdit": "edit", "Write": "write", "NotebookEdit": "edit"}
TOOL_TEXT_MAX = 16_384
TITLE_RANK = {"summary_only": 0.1, "subagent_prompt": 0.25, "command": 0.5, "first_prompt": 1, "summary": 2, "ai": 3,
              "custom": 4}
# What Claude Code puts before a prompt without the user typing it (as claude-agent-sdk skips them
# when it names a session): IDE context blocks, hook output, interruptions.
_IDE_BLOCK = re.compile(rf"^\s*<({'|'.join(CONTEXT_TAGS)})>[\s\S]*?</\1>")
_NOT_A_PROMPT = re.compile(r"^(?:<local-command-stdout>|<session-start-hook>|<tick>|<goal>|"
                           r"\[Request interrupted by user[^\]]*\])")
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>")


def prompt_title(text: str) -> str:
    """The words a user typed, for a title: leading IDE and reminder blocks removed."""
    while True:
        m = _IDE_BLOCK.match(text)
        if not m:
            break
        text = text[m.end():]
    text = text.strip()
    return "" if _NOT_A_PROMPT.match(text) else text


LOCAL_OUTPUT = ("<local-command-stdout>", "<local-command-stderr>")
COMMAND_PREFIXES = ("<command-name>", "<command-message>", "<local-command-stdout>", "<bash-input>",
                    "<bash-stdout>", "<local-command-caveat>", "Caveat:")


def block_text(content: Any) -> str:
    """The readable text of a message's content (str, or list of blocks)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for b in content:
        if not isinstance(b, dict):
            continue
        t = b.get("type")
        if t == "text":
            parts.append(str(b.get("text", "")))
        elif t == "thinking":
            parts.append(str(b.get("thinking", "")))
        elif t == "tool_use":
            parts.append(f"{b.get('name', '')} {orjson.dumps(b.get('input', {})).decode()}")
        elif t == "tool_result":
            parts.append(block_text(b.get("content", "")))
        elif t == "image":
            parts.append("[image]")
    return "\n".join(p for p in parts if p)


@dataclass
class SessionState:
    """What one import run learns about one session."""

    info: SessionInfo
    events: list[NewEvent] = field(default_factory=list)
    usage_seen: dict[str, tuple[int, int]] = field(default_factory=dict)  # message.id → max (in, out)
    facts: dict[str, Any] = field(default_factory=dict)  # last value emitted this run
    title_rank: int = 0
    last_chain: str | None = None  # the newest main-chain event: facts of metadata lines attach there
    last_head: str | None = None  # the newest main-chain message of this run (a dangling compaction's parent)
    copies: dict[str, str] = field(default_factory=dict)  # event id → the origin's line it copies (forkedFrom)


@dataclass
class FileContext:
    """Per-file parsing context."""

    file_key: str  # path relative to the source root: names events without a uuid
    file_session: str | None  # the session a line without sessionId belongs to
    source_id: int
    agent_id: str | None = None  # set for subagent transcript files
    last_ts: float = 0.0
    sessions: dict[str, SessionState] = field(default_factory=dict)
    summaries: list[tuple[str, str]] = field(default_factory=list)  # (leafUuid, summary)
    backups: set[tuple[str, str]] = field(default_factory=set)  # (session, backupFileName) named by checkpoints
    prepared: dict = field(default_factory=dict)  # of those, read and compressed by the reader process

    def session(self, sid: str) -> SessionState:
        st = self.sessions.get(sid)
        if st is None:
            st = self.sessions[sid] = SessionState(SessionInfo(id=sid, source_id=self.source_id, tool_id=sid))
        return st


def _kind_role_text(t: str, obj: dict[str, Any]) -> tuple[str, str | None, str]:
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    content = msg.get("content")
    if t == "user":
        if obj.get("isCompactSummary"):
            return "compaction_summary", "user", block_text(content)
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return "tool_result", "tool", block_text(content)
        text = block_text(content)
        if obj.get("isMeta"):  # what Claude Code adds and hides (the caveat before local commands, skill bodies):
            return "system", "meta", text  # on the chain (lines hang under it), never a prompt nor the head
        if text.lstrip().startswith(LOCAL_OUTPUT):  # a local command's output (/context, /cost): not a prompt
            return "system", "system", text
        return "message", "user", text
    if t == "assistant":
        types = {b.get("type") for b in content or [] if isinstance(b, dict)} if isinstance(content, list) else set()
        kind = "tool_call" if "tool_use" in types else "message" if "text" in types or isinstance(content, str) \
            else "thinking" if "thinking" in types else "message"
        return kind, "assistant", block_text(content)
    if t == "system":
        if obj.get("subtype") == "compact_boundary":
            meta = obj.get("compactMetadata") or {}
            return "compaction", "system", (
                f"Conversation compacted ({meta.get('trigger', 'auto')}, {meta.get('preTokens', '?')} tokens before)")
        return "system", "system", str(obj.get("content") or obj.get("subtype") or "")
    if t == "progress":
        return "progress", None, ""
    if t == "attachment":
        att: dict[str, Any] = obj["attachment"] if isinstance(obj.get("attachment"), dict) else {}
        if att.get("type") in CONTEXT_ATTACHMENTS:
            return "context", None, ""
        return "attachment", None, str(att.get("content") or att.get("type") or "")[:2000]
    if t in CHECKPOINT_TYPES:
        paths = list(checkpoint_entries(obj))
        return "checkpoint", None, f"checkpoint of {len(paths)} file(s): " + ", ".join(paths[:20])
    if t in META_TYPES:
        text = obj.get("summary") or obj.get("customTitle") or obj.get("aiTitle") or obj.get("agentName") or ""
        return "meta", None, str(text)
    return "opaque", None, ""


def checkpoint_entries(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{path: {backupFileName, version, backupTime}} of a snapshot or delta line (malformed parts skipped)."""
    if obj.get("type") == "file-history-delta":
        path, backup = obj.get("trackingPath"), obj.get("backup")
        return {path: backup} if isinstance(path, str) and isinstance(backup, dict) else {}
    snap = obj.get("snapshot")
    tracked = snap.get("trackedFileBackups") if isinstance(snap, dict) else None
    if not isinstance(tracked, dict):
        return {}
    return {p: b for p, b in tracked.items() if isinstance(p, str) and isinstance(b, dict)}


def checkpoint_prompt(obj: dict[str, Any]) -> str | None:
    """The prompt (user message uuid) a snapshot or delta line belongs to."""
    snap = obj.get("snapshot")
    for value in ((snap.get("messageId") if isinstance(snap, dict) else None),
                  obj.get("snapshotMessageId"), obj.get("messageId")):
        if isinstance(value, str) and value:
            return value
    return None


def _is_real_prompt(obj: dict[str, Any], text: str) -> bool:
    return (not obj.get("isMeta") and not obj.get("isSidechain") and bool(text.strip())
            and not text.lstrip().startswith(COMMAND_PREFIXES))


def convert(line_offset: int, raw: str, obj: dict[str, Any], ctx: FileContext) -> None:
    """Turn one parsed line into events of its session (with extracted facts)."""
    t = obj.get("type") if isinstance(obj.get("type"), str) else ""
    # The file's name is the session (what `claude --resume`, its picker and the SDK use): a resumed
    # file repeats the older session's lines under their own sessionId, and those copies are
    # de-duplicated on uuid at ingest. Lines of a file not named by a session id say their own.
    sid = ctx.file_session
    if not sid:
        said = obj.get("sessionId")
        # an id read from a line later names a backup folder and a file: only an id's shape is taken as
        # it is; another value (`../../.ssh`, `--x`) is no id, as if the line had none
        sid = said if is_safe_id(said) else f"orphan-{uuid.uuid5(NS, ctx.file_key)}"
    st = ctx.session(sid)
    first = len(st.events)
    ts = parse_ts(obj.get("timestamp"))
    activity = ts is not None and t not in NOISE_TYPES
    ts = ts if ts is not None else ctx.last_ts
    ctx.last_ts = ts
    kind, role, text = _kind_role_text(t, obj)
    if kind in ("tool_result", "tool_call") and len(text) > TOOL_TEXT_MAX:
        # the payload keeps all of it; the searchable text is the head of it
        text = text[:TOOL_TEXT_MAX] + f"\n… [{len(text) - TOOL_TEXT_MAX:,} more characters in the raw line]"
    uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) and obj.get("uuid") else None
    event_id = uid or str(uuid.uuid5(NS, f"{ctx.file_key}:{line_offset}"))
    parent = obj.get("parentUuid") if isinstance(obj.get("parentUuid"), str) else None
    if kind == "checkpoint":
        parent = checkpoint_prompt(obj)  # attached to the prompt it checkpoints
        for b in checkpoint_entries(obj).values():
            if isinstance(b.get("backupFileName"), str) and b["backupFileName"]:
                ctx.backups.add((sid, b["backupFileName"]))
    logical = kind == "compaction" and isinstance(obj.get("logicalParentUuid"), str) and bool(obj["logicalParentUuid"])
    if logical:
        # the timeline runs across the compaction; the line it names may never have been written,
        # and then the boundary hangs under the last main-chain line before it (ingest decides)
        parent = obj["logicalParentUuid"]
    sidechain = bool(obj.get("isSidechain")) or ctx.agent_id is not None
    agent_id = obj.get("agentId") if isinstance(obj.get("agentId"), str) else ctx.agent_id
    tokens_in, tokens_out = _usage(obj, st)
    # (a user line shown as system, meta or a command's output, is on the chain all the same: the SDK's head)
    head = bool(uid) and not sidechain and t in CHAIN_TYPES and (kind in HEAD_KINDS or (t == "user" and kind == "system"))
    msg = obj.get("message")
    mid = msg.get("id") if role == "assistant" and isinstance(msg, dict) else None
    st.events.append(NewEvent(
        id=event_id, parent_id=parent, ts=ts, kind=kind, role=role, text=text, payload=raw,
        tokens_in=tokens_in, tokens_out=tokens_out, sidechain=sidechain, agent_id=agent_id,
        activity=activity, head=head, logical_parent=logical, fallback_parent=st.last_head if logical else None,
        response_id=mid if isinstance(mid, str) and mid else None, response_known=True,
    ))
    if head:
        st.last_head = event_id
    forked = obj.get("forkedFrom")
    if isinstance(forked, dict) and isinstance(forked.get("messageUuid"), str):
        st.copies[event_id] = forked["messageUuid"]
    _session_fields(t, obj, text, st, ctx)
    if not sidechain:
        if uid and t in CHAIN_TYPES:
            st.last_chain = event_id
        anchor = event_id if uid else st.last_chain
        if anchor:
            _extract_facts(t, obj, anchor, ts, st)
    if t in MARK_TYPES:
        for e in st.events[first:]:
            e.counted = False


def _usage(obj: dict[str, Any], st: SessionState) -> tuple[int, int]:
    """Tokens counted once per message.id: each line adds only its growth over the last."""
    msg = obj.get("message")
    if obj.get("type") != "assistant" or not isinstance(msg, dict) or not isinstance(msg.get("usage"), dict):
        return 0, 0
    u = msg["usage"]
    total_in = sum(int(u.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
                   if isinstance(u.get(k), (int, float)))
    total_out = int(u.get("output_tokens") or 0) if isinstance(u.get("output_tokens"), (int, float)) else 0
    key = str(msg.get("id") or obj.get("requestId") or obj.get("uuid"))
    seen_in, seen_out = st.usage_seen.get(key, (0, 0))
    new_in, new_out = max(seen_in, total_in), max(seen_out, total_out)
    st.usage_seen[key] = (new_in, new_out)
    model = msg.get("model")
    d_in, d_out = new_in - seen_in, new_out - seen_out
    if model and model != "<synthetic>" and (d_in or d_out):
        by_model = st.info.meta.setdefault("usage_by_model", {}).setdefault(model, {"input": 0, "output": 0})
        by_model["input"] += d_in
        by_model["output"] += d_out
    return d_in, d_out


def _set_title(st: SessionState, title: str, source: str) -> None:
    rank = TITLE_RANK[source]
    if title.strip() and rank >= st.title_rank:
        st.title_rank = rank
        title = " ".join(title.split())
        st.info.fields["title"] = title if len(title) <= 200 else title[:200].rstrip() + "…"
        st.info.meta["title_source"] = source
        st.info.meta["title_rank"] = rank


def _session_fields(t: str, obj: dict[str, Any], text: str, st: SessionState, ctx: FileContext) -> None:
    f = st.info.fields
    if isinstance(obj.get("cwd"), str) and obj["cwd"]:
        f["cwd"] = obj["cwd"]
        f["project"] = obj["cwd"]
    if isinstance(obj.get("gitBranch"), str) and obj["gitBranch"]:
        f["git_branch"] = obj["gitBranch"]
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    if t == "assistant" and isinstance(msg.get("model"), str) and msg["model"] != "<synthetic>":
        f["model"] = msg["model"]
    for src, dst in (("version", "cli_version"), ("entrypoint", "entrypoint"), ("slug", "slug")):
        if isinstance(obj.get(src), str) and obj[src]:
            st.info.meta[dst] = obj[src]
    if t == "custom-title" and isinstance(obj.get("customTitle"), str):
        _set_title(st, obj["customTitle"], "custom")
    elif t == "ai-title" and isinstance(obj.get("aiTitle"), str):
        _set_title(st, obj["aiTitle"], "ai")
    elif t == "summary" and isinstance(obj.get("summary"), str) and isinstance(obj.get("leafUuid"), str):
        ctx.summaries.append((obj["leafUuid"], obj["summary"]))  # (it titles its leaf's session: _apply_summaries)
        # and, until anything better comes, its own file's: a file of summary lines alone is not "(untitled)"
        _set_title(st, obj["summary"], "summary_only")
    elif t == "user" and st.title_rank < 1 and _is_real_prompt(obj, text) and not obj.get("isCompactSummary"):
        if not (isinstance(msg.get("content"), list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in msg["content"])):
            title = prompt_title(text)
            if title:
                _set_title(st, from_prompt(title), "first_prompt")
    elif t == "user" and st.title_rank < 0.5 and not obj.get("isMeta") and (m := _COMMAND_NAME.search(text)):
        _set_title(st, m.group(1), "command")  # a session that is only slash commands: named by the first
    elif t == "user" and st.title_rank < 0.25 and obj.get("isSidechain") and not obj.get("isMeta") and text.strip():
        # a subagent's transcript kept without its parent: named by the task it was given
        if (title := prompt_title(text)) and not text.lstrip().startswith(COMMAND_PREFIXES):
            _set_title(st, from_prompt(title), "subagent_prompt")
    elif t == "tag" and isinstance(obj.get("tag"), str):
        st.info.fields["tags"] = [obj["tag"]] if obj["tag"] else []
        st.info.meta["tag_set"] = True
    forked = obj.get("forkedFrom")
    if isinstance(forked, dict) and isinstance(forked.get("sessionId"), str):
        st.info.forked_from_session = forked["sessionId"]
        st.info.forked_from_event = forked.get("messageUuid")
    if ctx.agent_id and obj.get("agentId"):
        st.info.meta.setdefault("subagents", {}).setdefault(ctx.agent_id, {})
    result = obj.get("toolUseResult")
    if isinstance(result, dict) and isinstance(result.get("agentId"), str):
        tool_use_id = next((b.get("tool_use_id") for b in msg.get("content") or []
                            if isinstance(b, dict) and b.get("type") == "tool_result"), None) \
            if isinstance(msg.get("content"), list) else None
        st.info.meta.setdefault("subagents", {}).setdefault(result["agentId"], {}).update(
            {"tool_use_id": tool_use_id, "agent_type": result.get("agentType"), "spawned_by": obj.get("uuid")})
    data = obj.get("data")
    if t == "progress" and isinstance(data, dict) and isinstance(data.get("agentId"), str):
        st.info.meta.setdefault("subagents", {}).setdefault(data["agentId"], {}).setdefault(
            "tool_use_id", obj.get("parentToolUseID"))


def _fact(st: SessionState, anchor: str, ts: float, key: str, value: Any) -> None:
    add_fact(st.events, st.facts, NS, anchor, ts, key, value)


def _extract_facts(t: str, obj: dict[str, Any], event_id: str, ts: float, st: SessionState) -> None:
    for src, key in (("cwd", "cwd"), ("gitBranch", "git_branch")):
        if isinstance(obj.get(src), str) and obj[src]:
            _fact(st, event_id, ts, key, obj[src])
    msg = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    if t == "assistant":
        if isinstance(msg.get("model"), str) and msg["model"] != "<synthetic>":
            _fact(st, event_id, ts, "model", msg["model"])
        for b in msg.get("content") or [] if isinstance(msg.get("content"), list) else []:
            if not isinstance(b, dict) or b.get("type") != "tool_use" or not isinstance(b.get("input"), dict):
                continue
            name, inp = b.get("name"), b["input"]
            if name == "TodoWrite" and isinstance(inp.get("todos"), list):
                _fact(st, event_id, ts, "todos", inp["todos"])
            elif name in FILE_TOOLS and isinstance(inp.get("file_path") or inp.get("notebook_path"), str):
                _fact(st, event_id, ts, f"file:{inp.get('file_path') or inp.get('notebook_path')}", FILE_TOOLS[name])
            elif name == "ExitPlanMode" and isinstance(inp.get("plan"), str):
                _fact(st, event_id, ts, "plan", inp["plan"])
    result = obj.get("toolUseResult")
    if isinstance(result, dict) and isinstance(result.get("newTodos"), list):
        _fact(st, event_id, ts, "todos", result["newTodos"])
    if t == "pr-link":
        url = obj.get("prUrl") or obj.get("url") or obj.get("link")
        if isinstance(url, str):
            _fact(st, event_id, ts, f"pr:{url}", url)
    snap = obj.get("snapshot")
    if t == "file-history-snapshot" and isinstance(snap, dict) and isinstance(snap.get("trackedFileBackups"), dict):
        for path in snap["trackedFileBackups"]:
            _fact(st, event_id, ts, f"file:{path}", st.facts.get(f"file:{path}", "tracked"))
