"""A realistic Claude Code home of a requested size, deterministic from a seed.

Many projects; sessions from a few KB up to one big one (a sixth of the total,
60 MB at 500 MB); assistant replies split over several lines sharing message.id;
tool calls and results of every size up to 1 MB (a third of the replies call two or
three tools at once, and their results come back in any order); progress lines; subagents in
the flat (2.0) and nested (2.1) layouts; compactions; real rewinds; summary and
title lines; file checkpoints (snapshot lines, and their backups in
`<projects>/../file-history/<session>/`, for the edits a quarter of the turns make).
Shapes follow shared/corpus/FORMATS.md §1.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import random
import uuid
from pathlib import Path

import orjson

WORDS = ("the test fails because session cookie redirect fixture query index cache worker thread "
         "config deploy build module import error timeout retry branch commit refactor parser token "
         "schema migration handler request response latency memory profile benchmark").split()


class _Checkpoints:
    """The files a session's turns edit, backed up as Claude Code does (own RNG: the rest of the home
    is the same with or without them)."""

    def __init__(self, history: Path, session_id: str):
        self.rng = random.Random(session_id)
        self.folder = history / session_id
        self.files: dict[str, list] = {}  # path → [content, version backed up, changed since, backup name]
        self.backup_bytes = self.backups = 0

    def _backup(self, path: str, version: int, content: bytes) -> str:
        name = f"{hashlib.sha256(path.encode()).hexdigest()[:16]}@v{version}"
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / name).write_bytes(content)
        self.backup_bytes += len(content)
        self.backups += 1
        return name

    def _source(self, lines: int) -> bytes:
        return "".join(f"def f{self.rng.getrandbits(20)}(x):\n    return x * {self.rng.randint(1, 999)}  "
                       f"# {' '.join(self.rng.choice(WORDS) for _ in range(6))}\n" for _ in range(lines)).encode()

    def at_prompt(self, w: "_Writer", prompt: str) -> None:
        """The prompt's snapshot (files changed since their last backup get a new version); then,
        for a quarter of the turns, an edit: its file tracked first (an update snapshot) and changed."""
        tracked = {}
        for path, f in self.files.items():
            if f[2]:
                f[1] += 1
                f[2] = False
                f[3] = self._backup(path, f[1], f[0])
            tracked[path] = {"backupFileName": f[3], "version": f[1], "backupTime": w.stamp()}
        w.write({"type": "file-history-snapshot", "messageId": prompt, "snapshot": {
            "messageId": prompt, "trackedFileBackups": tracked, "timestamp": w.stamp()}, "isSnapshotUpdate": False})
        if self.rng.random() >= 0.25:
            return
        path = f"src/{self.rng.choice(WORDS)}_{self.rng.randint(1, 12)}.py"
        if path not in self.files:
            new = self.rng.random() < 0.3
            content = b"" if new else self._source(self.rng.randint(20, 300))
            name = None if new else self._backup(path, 1, content)
            self.files[path] = [content, 1, False, name]
            tracked[path] = {"backupFileName": name, "version": 1, "backupTime": w.stamp()}
            w.write({"type": "file-history-snapshot", "messageId": w._uuid(), "snapshot": {
                "messageId": prompt, "trackedFileBackups": tracked, "timestamp": w.stamp()}, "isSnapshotUpdate": True})
        f = self.files[path]
        f[0] = f[0][: len(f[0]) * 3 // 4] + self._source(self.rng.randint(2, 40))
        f[2] = True


class _Writer:
    def __init__(self, rng: random.Random, fh, session_id: str, cwd: str, start: dt.datetime, agent: str | None = None,
                 checkpoints: _Checkpoints | None = None):
        self.rng, self.fh, self.sid, self.cwd, self.clock = rng, fh, session_id, cwd, start
        self.agent = agent
        self.checkpoints = checkpoints
        self.last: str | None = None
        self.bytes = 0
        self.n = 0
        self.reply_words = (10, 120)

    def stamp(self) -> str:
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def line(self, type_: str, parent=..., **extra) -> dict:
        self.clock += dt.timedelta(seconds=self.rng.randint(1, 40))
        obj = {"parentUuid": self.last if parent is ... else parent, "isSidechain": self.agent is not None,
               "userType": "external", "cwd": self.cwd, "sessionId": self.sid, "version": "2.1.39",
               "gitBranch": "main", "type": type_, "uuid": self._uuid(),
               "timestamp": self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z"), **extra}
        if self.agent:
            obj["agentId"] = self.agent
        self.write(obj)
        self.last = obj["uuid"]
        return obj

    def write(self, obj: dict) -> None:
        data = orjson.dumps(obj) + b"\n"
        self.fh.write(data)
        self.bytes += len(data)

    def text(self, words: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(words))

    def turn(self, tool_bytes: int) -> None:
        prompt = self.text(self.rng.randint(5, 60))
        if self.rng.random() < 0.002:
            prompt += " zebracorn"  # a rare word for the search benchmark
        asked = self.line("user", message={"role": "user", "content": prompt})
        if self.checkpoints is not None:
            self.checkpoints.at_prompt(self, asked["uuid"])
        msg_id = f"msg_{self.rng.getrandbits(64):016x}"
        usage = {"input_tokens": self.rng.randint(10, 5000), "cache_read_input_tokens": self.rng.randint(0, 90000),
                 "cache_creation_input_tokens": 0, "output_tokens": 10}
        base = {"id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": None}
        # one API response split over thinking, text and tool_use lines; usage snapshots grow
        self.line("assistant", requestId=f"req_{msg_id}", message={**base, "content": [
            {"type": "thinking", "thinking": self.text(30), "signature": "sig"}], "usage": dict(usage)})
        self.line("assistant", requestId=f"req_{msg_id}", message={**base, "content": [
            {"type": "text", "text": self.text(self.rng.randint(*self.reply_words))}], "usage": dict(usage)})
        # a third of the replies call tools in parallel: call, call, then the results, in any order
        calls = []
        for _ in range(self.rng.randint(2, 3) if self.rng.random() < 0.35 else 1):
            tool_id = f"toolu_{self.rng.getrandbits(64):016x}"
            calls.append((tool_id, self.line("assistant", requestId=f"req_{msg_id}", message={**base, "content": [
                {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": self.text(4)}}],
                "usage": {**usage, "output_tokens": self.rng.randint(50, 800)}})))
            self.line("progress", data={"type": "bash_progress", "output": ""}, toolUseID=tool_id,
                      parentToolUseID=tool_id)
        self.rng.shuffle(calls)
        parent = calls[-1][1]["uuid"] if len(calls) > 1 else None
        for tool_id, call in calls:
            output = self.text(max(1, tool_bytes // 7))[:tool_bytes]
            self.line("user", parent=parent or call["uuid"], message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_id, "content": output}]},
                toolUseResult={"stdout": output, "stderr": "", "interrupted": False})
            parent = self.last if len(calls) > 1 else None


def _tool_size(rng: random.Random) -> int:
    r = rng.random()
    return rng.randint(20, 400) if r < 0.7 else rng.randint(400, 20_000) if r < 0.97 else rng.randint(20_000, 1_000_000)


def _chat_tool_size(rng: random.Random) -> int:
    """A chat-heavy home's tool output: short (a file listed, a test's line), now and then a page."""
    return rng.randint(20, 400) if rng.random() < 0.9 else rng.randint(400, 4_000)


def write_session(path: Path, rng: random.Random, target: int, cwd: str, start: dt.datetime,
                  subagents: str | None = None, checkpoints: dict | None = None, chat: bool = False) -> int:
    sid = path.stem
    cp = _Checkpoints(path.parent.parent.parent / "file-history", sid) if checkpoints is not None else None
    with open(path, "wb") as fh:
        w = _Writer(rng, fh, sid, cwd, start, checkpoints=cp)
        w.reply_words = (60, 500) if chat else (10, 120)
        if rng.random() < 0.3:
            w.write({"type": "summary", "summary": w.text(6), "leafUuid": str(uuid.UUID(int=rng.getrandbits(128)))})
        rewind_at = None
        turns = 0
        while w.bytes < target:
            w.turn(_chat_tool_size(rng) if chat else _tool_size(rng))
            turns += 1
            if turns == 3:
                rewind_at = w.last
            if turns % 40 == 8:  # a compaction after turn 8, then every 40 turns
                before = w.last
                w.line("system", parent=None, subtype="compact_boundary", content="Conversation compacted",
                       logicalParentUuid=before, compactMetadata={"trigger": "auto", "preTokens": 155000})
                w.line("user", message={"role": "user", "content": "This session is being continued: " + w.text(80)},
                       isCompactSummary=True)
            if turns == 6 and rewind_at and rng.random() < 0.5:  # a real rewind: another prompt under turn 3
                w.last = rewind_at
        w.write({"type": "ai-title", "sessionId": sid, "aiTitle": w.text(5)})
        size = w.bytes
        last = w.clock.timestamp()
    os.utime(path, (last, last))  # as in a real home: a transcript was last written at its last line
    if cp is not None:
        checkpoints["backups"] = checkpoints.get("backups", 0) + cp.backups
        checkpoints["backup_bytes"] = checkpoints.get("backup_bytes", 0) + cp.backup_bytes
    if subagents:
        agent = f"a{rng.getrandbits(28):07x}"
        folder = path.parent / sid / "subagents" if subagents == "nested" else path.parent
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / f"agent-{agent}.jsonl", "wb") as fh:
            w = _Writer(rng, fh, sid, cwd, start, agent=agent)
            w.last = None
            for _ in range(rng.randint(1, 4)):
                w.turn(_tool_size(rng) // 4)
            size += w.bytes
    return size


def generate(root: Path, total_bytes: int, seed: int = 7, sessions: int | None = None, chat: bool = False) -> dict:
    """Write a Claude Code projects folder of about `total_bytes`; returns what it wrote. `chat`: a chat-heavy home
    (long replies, short tool output), whose store the tool output's good compression does not flatter."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    count = sessions or max(4, min(2000, total_bytes // 250_000))
    big = total_bytes // 6 if total_bytes >= 6_000_000 else 0
    rest = total_bytes - big
    weights = [rng.paretovariate(1.3) for _ in range(count)]
    scale = rest / sum(weights)
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    written, biggest = 0, (None, 0)
    checkpoints: dict = {}
    projects = max(2, count // 40)
    for i in range(count):
        project = root / f"-home-dev-src-project{i % projects}"
        project.mkdir(exist_ok=True)
        target = int(weights[i] * scale) if i else (big or int(weights[i] * scale))
        target = max(2_000, min(target, big or 60_000_000))
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        layout = "nested" if i % 7 == 0 else "flat" if i % 7 == 1 else None
        size = write_session(project / f"{sid}.jsonl", rng, target, f"/home/dev/src/project{i % projects}",
                             start + dt.timedelta(hours=i), layout, checkpoints, chat)
        written += size
        if size > biggest[1]:
            biggest = (sid, size)
        if written >= total_bytes:
            break
    return {"bytes": written, "sessions": i + 1, "biggest": biggest[0], "biggest_bytes": biggest[1],
            "backups": checkpoints.get("backups", 0), "backup_bytes": checkpoints.get("backup_bytes", 0)}
