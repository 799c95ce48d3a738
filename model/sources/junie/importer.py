"""JetBrains Junie sessions, read only: `~/.junie/sessions/<session>/events.jsonl`, with `index.jsonl` (each session's
task name, folder and times) beside the session folders (tests/sources/public/SOURCES.md names the real files).

A session's log is Junie's event stream, appended, a JSON object a line with its `kind` and `timestampMs`: the user's
prompts (`UserPromptEvent`), and under `SessionA2uxEvent.event.agentEvent` what the agent shows as it works. Most of
that is a block with a `stepId`, emitted again each time it changes (a command `IN_PROGRESS`, then `COMPLETED` or
`FAILED` with its output; once the task completes, every block of it once more, unchanged): reasoning, commands, file
changes, files viewed, other tools, replies and the task's answer. Beside them: each model call's tokens and cost
(`LlmResponseMetadataEvent`), the folder, the task's name; the rest is the UI's bookkeeping (status lines, the
environment — encrypted —, tips, the context window's fill), passed over.

The file is read whole when it grows. A block is one event (a call and its result for a tool), made from its last
state and placed where it first appeared, once it is settled: a final status, or, for text, something after it. What
follows a block still running waits with it, so the next read adds after it rather than beside it (an event's id
comes from the session and the block's step, a prompt's request id, or a usage line's place in the file).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import orjson

from sessionscope.sources import jsonl
from sessionscope.sources.documents import Transcript, oldest_first, read_whole
from sessionscope.sources.scan import importer

KIND = "junie"
NS = uuid.UUID("5b0e7c2a-8d41-4f6e-9a37-1c2d3e4f5a6b")
EVENTS = "events.jsonl"
TOP_KINDS = frozenset({"UserPromptEvent", "SessionA2uxEvent", "TaskStartedEvent", "TaskState", "SendToAgentEvent",
                       "UserMessagesCommittedToHistory", "UserMessagesDroppedFromHistory", "UserMessagesFailedInHistory",
                       "UserResponseEvent", "UserAsyncResponseEvent", "SessionTitleSetEvent", "SystemMessageEvent",
                       "AgentTaskFailedEvent"})
BLOCKS = frozenset({"AgentThoughtBlockUpdatedEvent", "MarkdownBlockUpdatedEvent", "ResultBlockUpdatedEvent",
                    "TerminalBlockUpdatedEvent", "FileChangesBlockUpdatedEvent", "ViewFilesBlockUpdatedEvent",
                    "ToolBlockUpdatedEvent"})
# what the agent shows that says nothing of the work: passed over, known (not a format not understood)
QUIET = frozenset({"AgentCurrentStatusUpdatedEvent", "EnvironmentVariablesUpdatedEvent", "TipSuggestionCreatedEvent",
                   "ContextWindowReportEvent", "NextPromptSuggestionEvent", "AgentStateUpdatedEvent",
                   "AgentPatchCreatedEvent", "CurrentDirectoryUpdatedEvent", "AgentTaskNameUpdatedEvent"})
QUIET_TOP = frozenset({"TaskStartedEvent", "TaskState", "SendToAgentEvent", "UserMessagesCommittedToHistory",
                       "UserMessagesDroppedFromHistory", "UserMessagesFailedInHistory", "SessionTitleSetEvent"})
RUNNING = frozenset({"IN_PROGRESS", "PENDING", "RUNNING", "STARTED", "WAITING"})
MAX_INDEX_BYTES = 4 << 20


def default_roots() -> list[Path]:
    """`~/.junie/sessions` on every system (the CLI and the IDEs' Junie keep it in the home folder)."""
    root = Path.home() / ".junie" / "sessions"
    return [root] if root.is_dir() else []


def sniff(obj: Any) -> bool:
    """A line of Junie's event stream: one of its top-level kinds, with its millisecond time or its envelope."""
    return isinstance(obj, dict) and obj.get("kind") in TOP_KINDS and (
        "timestampMs" in obj or isinstance(obj.get("event"), dict) or isinstance(obj.get("prompt"), str))


def session_files(root: Path) -> list[Path]:
    return oldest_first([Path(d) / EVENTS for d, _dirs, names in os.walk(root)
                         if EVENTS in names and jsonl.first_lines_sniff(Path(d) / EVENTS, sniff)])


def _index_entry(path: Path) -> dict:
    """The session's line of `index.jsonl` beside the session folders ({} when there is none)."""
    index = path.parent.parent / "index.jsonl"
    try:
        if not index.is_file() or index.stat().st_size > MAX_INDEX_BYTES:
            return {}
        for raw in index.read_bytes().splitlines():
            try:
                entry = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(entry, dict) and entry.get("sessionId") == path.parent.name:
                return entry
    except OSError:
        pass
    return {}


def _ms(value: Any) -> float | None:
    return value / 1000 if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def build(path: Path, data: bytes) -> list[Transcript]:
    sid = path.parent.name
    entry = _index_entry(path)
    lines = [(n, obj) for n, obj in _lines(data) if isinstance(obj, dict)]
    first = next((_ms(o.get("timestampMs")) for _n, o in lines if _ms(o.get("timestampMs"))), None)
    t = Transcript(NS, str(uuid.uuid5(NS, f"session:{sid}")), tool_id=sid,
                   ts=first or _ms(entry.get("createdAt")) or path.stat().st_mtime)
    cwd = _text(entry.get("projectDir")) or next(
        (d for _n, o in reversed(lines) if (d := _text(_agent_event(o).get("currentDirectory")))), "")
    cwd = "".join(c for c in cwd[:4096] if c.isprintable())  # (a folder is shown and matched as data, on one line)
    if cwd:
        t.fields.update(cwd=cwd, project=cwd)
    name = _title(lines) or _text(entry.get("taskName"))
    if name.strip():
        t.fields["title"] = " ".join(name.split())[:200]
        t.meta.update(title_source="junie:task name", title_rank=2)
    _Reading(t, cwd).read(lines)
    return [t]


def _title(lines: list[tuple[int, dict]]) -> str:
    """The session's name as Junie last set it: the user's (`SessionTitleSetEvent`), else the task's own."""
    named, task = "", ""
    for _n, o in lines:
        if o.get("kind") == "SessionTitleSetEvent" and _text(o.get("name")).strip():
            named = o["name"]
        elif _agent_event(o).get("kind") == "AgentTaskNameUpdatedEvent" and _text(_agent_event(o).get("name")).strip():
            task = _agent_event(o)["name"]
    return named or task


def _lines(data: bytes):
    for n, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            yield n, orjson.loads(raw)
        except orjson.JSONDecodeError:
            yield n, None


def _agent_event(obj: dict) -> dict:
    event = _dict(obj.get("event"))
    agent_event = event.get("agentEvent")
    return agent_event if isinstance(agent_event, dict) else {}


UNFINISHED = "(did not finish: the task went on, or ended, without it)"


def _unfinished(ae: dict) -> bool:
    """A step whose last state still runs, though what came after settled it (a new task, the task's end)."""
    return ae.get("status") in RUNNING


def _failed(ae: dict) -> bool:
    return ae.get("status") in ("FAILED", "ERROR", "CANCELLED", "CANCELED") or _unfinished(ae)


class _Reading:
    """One read of a session's lines into its transcript, in the order they first appeared."""

    def __init__(self, t: Transcript, cwd: str):
        self.t, self.cwd = t, cwd
        self.models: dict[str, int] = {}

    def read(self, lines: list[tuple[int, dict]]) -> None:
        last: dict[str, tuple[int, dict, float | None]] = {}  # step → (where its last state came, the state, when)
        items: list[tuple[str, int, Any]] = []  # in order: ("prompt" | "usage" | "system" | "step" | "opaque", n, …)
        for i, (n, obj) in enumerate(lines):
            kind, ae = obj.get("kind"), _agent_event(obj)
            ts = _ms(obj.get("timestampMs"))
            if kind == "UserPromptEvent" and obj.get("delivery") != "Failed":
                items.append(("prompt", i, obj))
            elif kind in ("UserResponseEvent", "UserAsyncResponseEvent"):
                items.append(("prompt", i, obj))
            elif kind in ("SystemMessageEvent", "AgentTaskFailedEvent") or ae.get("kind") == "AgentFailureEvent":
                items.append(("system", i, obj))
            elif ae.get("kind") == "LlmResponseMetadataEvent":
                items.append(("usage", i, (n, ae, ts)))
            elif ae.get("kind") in BLOCKS and isinstance(ae.get("stepId"), str):
                step = ae["stepId"]
                if step not in last:
                    items.append(("step", i, step))
                if step not in last or last[step][1] != ae:  # (a rebroadcast once the task is done: the same state)
                    last[step] = (i, ae, ts)
            elif (ae.get("kind") not in QUIET) if kind == "SessionA2uxEvent" else (kind not in QUIET_TOP):
                items.append(("opaque", i, (n, obj, ts)))  # (a kind this reader does not know: kept, and said)
        for what, i, value in items:
            if what == "step":
                at, ae, ts = last[value]
                if not self._settled(ae, at, lines):
                    break  # (what follows waits with it: the next read adds after it, not beside it)
                self._block(value, ae, lines[i][1], ts)
            else:
                getattr(self, f"_{what}")(value)
        if self.models:
            self.t.fields["model"] = max(self.models, key=self.models.__getitem__)

    @staticmethod
    def _settled(ae: dict, at: int, lines: list[tuple[int, dict]]) -> bool:
        """Whether a block's last state is its last: a final status; text once anything follows it; any block once
        its task is over (a later prompt or task, or a state that is no longer in progress)."""
        status = ae.get("status")
        if isinstance(status, str) and status not in RUNNING:
            return True
        for _n, later in lines[at + 1:]:
            kind = later.get("kind")
            if kind in ("UserPromptEvent", "TaskStartedEvent", "TaskState"):
                return True
            event = _dict(later.get("event"))
            if event.get("state") not in (None, "IN_PROGRESS"):
                return True
            if status is None and _agent_event(later).get("kind") in BLOCKS:
                return True
        return False

    def _prompt(self, obj: dict) -> None:
        ts = _ms(obj.get("timestampMs"))
        if obj.get("kind") == "UserAsyncResponseEvent":
            entries = _list(obj.get("entries"))
            text = "\n\n".join("\n".join(s for s in (_text(e.get("question")), _text(e.get("answer"))) if s.strip())
                               for e in entries if isinstance(e, dict))
        else:
            text = _text(obj.get("presentablePrompt")) or _text(obj.get("prompt"))
        if text.strip():
            key = _text(obj.get("requestId")) or f"prompt:{ts}"
            self.t.said("user", text.strip(), ts, raw=obj, key=f"prompt:{key}")

    def _system(self, obj: dict) -> None:
        ae = _agent_event(obj)
        text = (_text(obj.get("text")) or _text(ae.get("message")) or "Agent task failed").strip()
        if details := _text(obj.get("details")).strip():
            text = f"{text}\n\n{details}" if details != text else text
        ts = _ms(obj.get("timestampMs"))
        self.t.add("system", "system", text, obj, ts, head=False, key=f"system:{ts}:{text[:40]}")

    def _usage(self, value: tuple[int, dict, float | None]) -> None:
        n, ae, ts = value
        for i, u in enumerate(_list(ae.get("modelUsage"))):
            if not isinstance(u, dict):
                continue
            model = _text(u.get("model"))
            tokens = tuple(int(u.get(k) or 0) if isinstance(u.get(k), (int, float)) else 0
                           for k in ("inputTokens", "outputTokens", "cacheInputTokens", "cacheCreateTokens"))
            if not any(tokens):
                continue
            self.models[model] = self.models.get(model, 0) + tokens[1]
            e = self.t.add("meta", "usage", f"{model}: {tokens[0] + tokens[2] + tokens[3]:,} tokens in, {tokens[1]:,} "
                           "out", {"junie": u, "cost": u.get("cost")}, ts, head=False, key=f"usage:{n}:{i}")
            Transcript.usage(e, model, tokens)  # type: ignore[arg-type]

    def _opaque(self, value: tuple[int, dict, float | None]) -> None:
        n, obj, ts = value
        what = _agent_event(obj).get("kind") or obj.get("kind") or "a line"
        self.t.add("opaque", None, str(what), obj, ts, head=False, key=f"line:{n}")

    def _path(self, relative: Any) -> str:
        p = _text(relative)
        return os.path.join(self.cwd, p) if p and self.cwd and not os.path.isabs(p) else p

    def _block(self, step: str, ae: dict, first: dict, ts: float | None) -> None:
        began = _ms(first.get("timestampMs"))
        kind, t, key = ae.get("kind"), self.t, f"step:{step}"
        if kind == "AgentThoughtBlockUpdatedEvent":
            if _text(ae.get("text")).strip():
                t.thought(ae["text"].strip(), began, raw=ae, key=key)
        elif kind in ("MarkdownBlockUpdatedEvent", "ResultBlockUpdatedEvent"):
            text = _text(ae.get("text")) or _text(ae.get("result")).removeprefix("<!-- ANSWER -->")
            if text.strip():
                t.said("assistant", text.strip(), began, raw=ae, key=key)
        elif kind == "TerminalBlockUpdatedEvent":
            t.call(step, "terminal", {"command": _text(ae.get("command"))}, began, key=f"{key}:call")
            output = _text(ae.get("output")) or _text(ae.get("details")) or (UNFINISHED if _unfinished(ae) else "")
            t.result(step, output, ts, error=_failed(ae), raw=ae, key=f"{key}:result")
        elif kind == "FileChangesBlockUpdatedEvent":
            self._changes(step, ae, began, ts)
        elif kind == "ViewFilesBlockUpdatedEvent":
            for i, f in enumerate(_list(ae.get("files"))):
                if isinstance(f, dict) and (p := self._path(f.get("relativePath"))):
                    t.call(f"{step}:{i}", "view", {"file_path": p}, began, raw=f, key=f"{key}:view:{i}")
        else:  # ToolBlockUpdatedEvent: what it did, in words, and what came of it
            t.call(step, "tool", {"action": _text(ae.get("text"))}, began, key=f"{key}:call")
            t.result(step, _text(ae.get("details")) or (UNFINISHED if _unfinished(ae) else ""), ts, error=_failed(ae),
                     raw=ae, key=f"{key}:result")

    def _changes(self, step: str, ae: dict, began: float | None, ts: float | None) -> None:
        """Each file a block changed, as the edit or write the window diffs and blame follows."""
        changes = _list(ae.get("changes"))
        for i, c in enumerate(c for c in changes if isinstance(c, dict)):
            before = _dict(c.get("beforeContent")) or None
            after = _dict(c.get("afterContent")) or None
            path = self._path(c.get("afterRelativePath") or c.get("beforeRelativePath"))
            if before is None:
                name, args = "write_file", {"file_path": path, "content": _text((after or {}).get("text"))}
            elif after is None:
                name, args = "delete_file", {"file_path": path}
            else:
                name, args = "edit_file", {"file_path": path, "old_string": _text(before.get("text")),
                                           "new_string": _text(after.get("text"))}
            self.t.call(f"{step}:{i}", name, args, began, raw=c, key=f"step:{step}:change:{i}")
            self.t.result(f"{step}:{i}", _text(ae.get("details")) if i == 0 else "", ts,
                          error=_failed(ae), key=f"step:{step}:change:{i}:result")


import_paths = importer(KIND, session_files, read_whole(build), "JetBrains Junie sessions")
