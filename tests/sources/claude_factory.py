"""Builds Claude Code transcript lines in the shapes FORMATS.md §1 describes."""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

import orjson

BASE = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.timezone.utc)


class Transcript:
    """Appends lines of one session, chaining parentUuid like the CLI does."""

    def __init__(self, session_id: str | None = None, cwd: str = "/work/app", branch: str = "main"):
        self.session_id = session_id or str(uuid.uuid4())
        self.cwd, self.branch = cwd, branch
        self.lines: list[dict] = []
        self.last: str | None = None
        self.clock = BASE
        self.n = 0
        self.salt = uuid.uuid4().hex  # two transcripts of one session never share uuids

    def _env(self, type_: str, parent: str | None = ..., **extra) -> dict:
        self.n += 1
        self.clock += dt.timedelta(seconds=7)
        line = {
            "parentUuid": self.last if parent is ... else parent, "isSidechain": False, "userType": "external",
            "cwd": self.cwd, "sessionId": self.session_id, "version": "2.1.39", "gitBranch": self.branch,
            "type": type_, "uuid": str(uuid.UUID(int=uuid.uuid5(uuid.NAMESPACE_URL, f"{self.salt}/{self.n}").int)),
            "timestamp": self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        line.update(extra)
        self.lines.append(line)
        self.last = line["uuid"]
        return line

    def user(self, text: str, parent=...) -> dict:
        return self._env("user", parent, message={"role": "user", "content": text})

    def assistant(self, text: str = "", *, msg_id: str | None = None, tool: tuple[str, dict] | None = None,
                  thinking: str | None = None, usage: tuple[int, int] = (100, 20), model: str = "claude-sonnet-4-5",
                  parent=...) -> dict:
        """One line of a reply: a text, tool_use or thinking block (a reply's lines share msg_id)."""
        block = ({"type": "tool_use", "id": f"toolu_{self.n:04d}", "name": tool[0], "input": tool[1]}
                 if tool else {"type": "thinking", "thinking": thinking, "signature": "c2lnbmF0dXJl"}
                 if thinking is not None else {"type": "text", "text": text})
        return self._env("assistant", parent, requestId=f"req_{self.n}", message={
            "id": msg_id or f"msg_{self.n:04d}", "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})

    def tool_result(self, call: dict, output: str, parent=..., extra: dict | None = None) -> dict:
        tool_use_id = call["message"]["content"][0]["id"]
        return self._env("user", call["uuid"] if parent is ... else parent, message={
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": output}]},
            toolUseResult=extra if extra is not None else {"stdout": output, "stderr": "", "interrupted": False})

    def compact(self, summary: str, logical_parent: str | None = None) -> None:
        """A compaction: the boundary names the last line before it (or `logical_parent`, which real
        transcripts sometimes set to a line that was never written), then the summary."""
        before = logical_parent or self.last
        self._env("system", None, subtype="compact_boundary", content="Conversation compacted",
                  logicalParentUuid=before, compactMetadata={"trigger": "auto", "preTokens": 155000})
        self._env("user", message={"role": "user", "content": summary}, isCompactSummary=True,
                  isVisibleInTranscriptOnly=True)

    def meta(self, type_: str, **fields) -> dict:
        line = {"type": type_, "sessionId": self.session_id, **fields}
        self.lines.append(line)
        return line

    def text(self) -> str:
        return "".join(orjson.dumps(line).decode() + "\n" for line in self.lines)

    def write_subagent(self, project: Path, agent_id: str, prompt: str, reply: str) -> "Transcript":
        """The run of subagent `agent_id` in the 2.1.x nested layout (<session>/subagents/agent-<id>.jsonl)."""
        sub = Transcript(session_id=self.session_id)
        sub.user(prompt, parent=None)
        sub.assistant(reply)
        for line in sub.lines:
            line.update(isSidechain=True, agentId=agent_id)
        sub.write(project / self.session_id / "subagents", f"agent-{agent_id}.jsonl")
        return sub

    def write(self, folder: Path, name: str | None = None) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (name or f"{self.session_id}.jsonl")
        path.write_text(self.text(), encoding="utf-8")
        return path


def parallel_calls() -> Transcript:
    """One reply that calls Read and Grep at once, as Claude Code writes it: call, call, then the two
    results, the second call's first (each result's parent is the line before it)."""
    t = Transcript()
    t.user("check both files")
    read = t.assistant(msg_id="msg_a", tool=("Read", {"file_path": "a.py"}))
    grep = t.assistant(msg_id="msg_a", tool=("Grep", {"pattern": "TODO"}))
    t.tool_result(grep, "3 matches", parent=grep["uuid"])
    t.tool_result(read, "def a(): pass", parent=t.last)
    return t
