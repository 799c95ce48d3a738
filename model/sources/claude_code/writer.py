"""Claude Code's own transcript format, from any session.

A Claude Code session is written back from its raw lines (kept verbatim in the
store): its branch root → head, subagent runs in `<id>/subagents/` as Claude
Code lays them out, each line's parent set to its nearest exported ancestor.
Any other session is converted: prompts and replies become user and assistant
messages, a tool call and the result that answers it become a `tool_use` and
its `tool_result`, a compaction becomes a compact boundary and its summary.
Left out, because the Claude API would reject them on resume: thinking (it
needs Anthropic's signature) and a tool call without a result (sent as text).
Facts and system notes have no place in the format.

An export is a copy, and says so: it gets a new session id (its file name) and new
line uuids, each line naming the line it copies in `forkedFrom` (as
claude-agent-sdk's `fork_session` writes a fork), and its title ends in "(export)".
So when Claude Code's folder is scanned, the export comes in as a session of its
own, forked from its origin, and never adds to the session it came from (writing a
kept session back under its own id is `sessionscope restore`). The file is never
written over an existing one; a session with no folder goes to the home folder's
project (`cd ~ && claude --resume <id>`).
"""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.errors import InvalidInput
from sessionscope.export.core import EventStream, new_file
from sessionscope.export.render import describe
from sessionscope.history.read_models import EventView
from sessionscope.safety.untrusted import child

CLAUDE = "claude_code"
VERSION = "2.0.0"  # the transcript version stamped on converted lines
_LINE_KINDS = ("message", "tool_call", "tool_result", "thinking", "compaction", "compaction_summary",
               "system", "attachment", "context")
_DROP_FIELDS = ("teamName", "agentName", "slug")


def export_cwd(session) -> str:
    """The folder the export belongs to: the session's, or the home folder for a session with none
    (an empty one once made a project folder named `-`)."""
    return session.cwd or str(Path.home())


def default_folder(session) -> Path:
    """Where `claude --resume` finds a transcript of this session's project."""
    from sessionscope.sources.claude_code.places import project_dir_name, projects_dir
    return projects_dir() / project_dir_name(export_cwd(session))


def write(store, stream: EventStream, target: Path | None) -> list[str]:
    """One transcript per part; returns the files written."""
    if len(stream.parts) > 1 and target is not None and target.suffix == ".jsonl":
        raise InvalidInput("several sessions export to a folder (one transcript each), not to one .jsonl file")
    files = []
    for index, part in enumerate(stream.parts):
        s = part.session
        sid = str(uuid.uuid4())
        if target is None:
            path = default_folder(s) / f"{sid}.jsonl"
        elif target.suffix == ".jsonl":
            path = target
            if _is_uuid(target.stem):
                _not_a_stored_session(store, target.stem)
                sid = target.stem
        else:
            path = target / f"{sid}.jsonl"
        writer = _NativeLines(s, sid) if s.source_kind != CLAUDE else _ClaudeLines(s, sid)
        subagents: dict[str, list[bytes]] = {}
        with new_file(path) as fh:
            for e in stream.events(index):
                for line, agent in writer.lines(e):
                    if agent:
                        subagents.setdefault(agent, []).append(line)  # a run is short: kept until its file
                    else:
                        fh.write(line)
            for line in writer.finish(f"{stream.session(part).title or s.id[:8]} (export)"):
                fh.write(line)
        files.append(str(path))
        for agent, lines in subagents.items():
            sub = child(path.parent, sid, "subagents", f"agent-{agent}.jsonl", what="agent id")
            with new_file(sub) as fh:
                fh.writelines(lines)
            files.append(str(sub))
    return files


def _is_uuid(text: str | None) -> bool:
    try:
        return text is not None and str(uuid.UUID(text)) == text
    except ValueError:
        return False


def _not_a_stored_session(store, sid: str) -> None:
    """A file named after a session in the store would be read back into it on the next scan."""
    from sessionscope.errors import NotFound, Refused
    try:
        store.session(sid)
    except NotFound:
        return
    raise Refused(f"{sid}.jsonl would be read back into session {sid[:8]} by the next scan: name the file "
                  "otherwise, or give a folder (the export gets a new id)")


def _copy_uuid(sid: str, original: str) -> str:
    """A copied line's uuid: new, and the same each time the same export id copies the same line."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"sessionscope-export:{sid}:{original}"))


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dump(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj) + b"\n"


class _ClaudeLines:
    """A Claude Code session's own lines, re-parented over what is left out, copied under new uuids."""

    def __init__(self, s, sid: str):
        self.origin, self.sid = s.tool_id or s.id, sid
        self.kept: set[str] = set()
        self.parent_of: dict[str, str | None] = {}

    def lines(self, e: EventView):
        self.parent_of[e.id] = e.parent_id
        if e.kind not in _LINE_KINDS or not e.payload.startswith("{"):
            return
        entry = orjson.loads(e.payload)
        if not isinstance(entry, dict):
            return
        parent = entry.get("parentUuid")
        seen = set()
        while parent and parent not in self.kept and parent not in seen:  # skip progress and other left-out lines
            seen.add(parent)
            parent = self.parent_of.get(parent)
        uid = entry.get("uuid")
        if isinstance(uid, str):
            self.kept.add(uid)
            entry["uuid"] = _copy_uuid(self.sid, uid)
            entry["forkedFrom"] = {"sessionId": self.origin, "messageUuid": uid}
        entry["parentUuid"] = _copy_uuid(self.sid, parent) if parent in self.kept else None
        if isinstance(entry.get("logicalParentUuid"), str):
            entry["logicalParentUuid"] = _copy_uuid(self.sid, entry["logicalParentUuid"])
        entry["sessionId"] = self.sid
        for key in _DROP_FIELDS:
            entry.pop(key, None)
        yield _dump(entry), (e.agent_id if e.sidechain else None)

    def finish(self, title: str):
        if title:
            yield _dump({"type": "custom-title", "customTitle": title, "sessionId": self.sid})


class _NativeLines:
    """Any other session converted to Claude Code lines."""

    def __init__(self, s, sid: str):
        self.s, self.sid = s, sid
        self.last: str | None = None  # uuid of the previous line written
        self.pending: tuple[EventView, Any] | None = None  # a tool call waiting for its result

    def _uuid(self, e: EventView) -> str:
        return _copy_uuid(self.sid, e.id)

    def _line(self, e: EventView, kind: str, message: dict | None, **extra) -> bytes:
        uid = self._uuid(e)
        entry = {"parentUuid": self.last, "isSidechain": False, "userType": "external",
                 "cwd": export_cwd(self.s), "sessionId": self.sid, "version": VERSION,
                 "gitBranch": self.s.git_branch or "", "type": kind, "uuid": uid, "timestamp": _iso(e.ts),
                 "forkedFrom": {"sessionId": e.session_id, "messageUuid": getattr(e, "origin_id", e.id)}, **extra}
        if message is not None:
            entry["message"] = message
        self.last = uid
        return _dump(entry)

    def _assistant(self, e: EventView, content: list[dict]) -> bytes:
        return self._line(e, "assistant", {
            "id": f"msg_{uuid.uuid5(uuid.NAMESPACE_URL, e.id).hex[:24]}", "type": "message", "role": "assistant",
            "model": self.s.model or "unknown", "content": content, "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": e.tokens_in, "output_tokens": e.tokens_out}})

    def _flush_call(self):
        """A call nobody answered goes out as text (a tool_use without result breaks a resume)."""
        if self.pending is not None:
            call, item = self.pending
            self.pending = None
            yield self._assistant(call, [{"type": "text", "text": f"[{item.label}]\n{item.code}"}])

    def lines(self, e: EventView):
        if e.sidechain:
            return
        item = describe(e)
        if item.kind == "tool_result" and self.pending is not None:
            call, call_item = self.pending
            self.pending = None
            tool_id = f"toolu_{uuid.uuid5(uuid.NAMESPACE_URL, call.id).hex[:24]}"
            payload = call.payload_json()
            name = payload.get("name") if isinstance(payload, dict) else None
            args = payload.get("input", {}) if isinstance(payload, dict) else {}
            yield self._assistant(call, [{"type": "tool_use", "id": tool_id, "name": name or call_item.label,
                                          "input": args if isinstance(args, dict) else {"value": args}}]), None
            yield self._line(e, "user", {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": item.code, "is_error": item.error}]}), None
            return
        for line in self._flush_call():
            yield line, None
        if item.kind == "tool_call":
            self.pending = (e, item)
        elif item.kind == "prompt":
            yield self._line(e, "user", {"role": "user", "content": e.text}), None
        elif item.kind == "reply" and e.text:
            yield self._assistant(e, [{"type": "text", "text": e.text}]), None
        elif item.kind == "compaction":
            boundary = self._line(e, "system", None, subtype="compact_boundary", content="Conversation compacted",
                                  level="info", compactMetadata={"trigger": "manual", "preTokens": 0})
            # the boundary starts a new chain; the summary hangs under it
            entry = orjson.loads(boundary)
            entry["logicalParentUuid"], entry["parentUuid"] = entry["parentUuid"], None
            yield _dump(entry), None
            summary = _SummaryEvent(e)
            yield self._line(summary, "user", {"role": "user", "content": e.text}, isCompactSummary=True,
                             isVisibleInTranscriptOnly=True), None
        elif item.kind == "tool_result":  # a result without its call
            yield self._line(e, "user", {"role": "user", "content": f"[tool result]\n{item.code}"}), None

    def finish(self, title: str):
        for line in self._flush_call():
            yield line
        if title:
            yield _dump({"type": "custom-title", "customTitle": title, "sessionId": self.sid})


class _SummaryEvent:
    """The compaction's summary line: the same event under a second, derived uuid."""

    def __init__(self, e: EventView):
        self.id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"sessionscope:summary:{e.id}"))
        self.session_id, self.origin_id = e.session_id, e.id  # it copies the compaction event
        self.ts = e.ts
