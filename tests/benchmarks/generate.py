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
            {"type": "text", "text": self.text(self.rng.randint(10, 120))}], "usage": dict(usage)})
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


def write_session(path: Path, rng: random.Random, target: int, cwd: str, start: dt.datetime,
                  subagents: str | None = None, checkpoints: dict | None = None) -> int:
    sid = path.stem
    cp = _Checkpoints(path.parent.parent.parent / "file-history", sid) if checkpoints is not None else None
    with open(path, "wb") as fh:
        w = _Writer(rng, fh, sid, cwd, start, checkpoints=cp)
        if rng.random() < 0.3:
            w.write({"type": "summary", "summary": w.text(6), "leafUuid": str(uuid.UUID(int=rng.getrandbits(128)))})
        rewind_at = None
        turns = 0
        while w.bytes < target:
            w.turn(_tool_size(rng))
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


def generate(root: Path, total_bytes: int, seed: int = 7, sessions: int | None = None) -> dict:
    """Write a Claude Code projects folder of about `total_bytes`; returns what it wrote."""
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
                             start + dt.timedelta(hours=i), layout, checkpoints)
        written += size
        if size > biggest[1]:
            biggest = (sid, size)
        if written >= total_bytes:
            break
    return {"bytes": written, "sessions": i + 1, "biggest": biggest[0], "biggest_bytes": biggest[1],
            "backups": checkpoints.get("backups", 0), "backup_bytes": checkpoints.get("backup_bytes", 0)}


def generate_codex(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """A Codex home of about `total_bytes`: `sessions/YYYY/MM/DD/rollout-*.jsonl` with turns of prompts,
    reasoning, function calls and outputs of every size, echoes and cumulative token counts (FORMATS.md §2)."""
    rng = random.Random(seed)
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    written = files = 0
    while written < total_bytes:
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        clock = start + dt.timedelta(hours=files)
        day = root / "sessions" / f"{clock:%Y}" / f"{clock:%m}" / f"{clock:%d}"
        day.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 150_000), 30_000_000, total_bytes - written + 2_000)
        size, totals = 0, [0, 0]
        with open(day / f"rollout-{clock:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl", "wb") as fh:
            def put(type_: str, payload: dict) -> None:
                nonlocal size, clock
                clock += dt.timedelta(seconds=rng.randint(1, 30))
                data = orjson.dumps({"timestamp": clock.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                                     "type": type_, "payload": payload}) + b"\n"
                fh.write(data)
                size += len(data)

            def text(n: int) -> str:
                return " ".join(rng.choice(WORDS) for _ in range(n))
            put("session_meta", {"id": sid, "cwd": "/home/dev/src/app", "originator": "codex_cli_rs",
                                 "cli_version": "0.104.0", "git": {"branch": "main"}})
            while size < target:
                put("turn_context", {"cwd": "/home/dev/src/app", "model": "gpt-5.3-codex"})
                prompt = text(rng.randint(5, 60))
                put("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
                put("event_msg", {"type": "user_message", "message": prompt})
                for _ in range(rng.randint(1, 6)):
                    put("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": text(20)}],
                                          "encrypted_content": "gAAA" + "x" * rng.randint(100, 2000)})
                    cid = f"call_{rng.getrandbits(48):012x}"
                    put("response_item", {"type": "function_call", "name": "exec_command", "call_id": cid,
                                          "arguments": orjson.dumps({"cmd": text(4)}).decode()})
                    n = _tool_size(rng)
                    put("response_item", {"type": "function_call_output", "call_id": cid,
                                          "output": text(max(1, n // 7))[:n]})
                    totals = [totals[0] + rng.randint(2000, 20000), totals[1] + rng.randint(20, 800)]
                    usage = {"input_tokens": totals[0], "cached_input_tokens": 0, "output_tokens": totals[1]}
                    put("event_msg", {"type": "token_count", "info": {"total_token_usage": usage}})
                reply = text(rng.randint(10, 120))
                put("response_item", {"type": "message", "role": "assistant",
                                      "content": [{"type": "output_text", "text": reply}]})
                put("event_msg", {"type": "agent_message", "message": reply})
        written += size
        files += 1
    return {"bytes": written, "files": files}


def generate_gemini(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """A Gemini CLI home of about `total_bytes`: `tmp/<project>/chats/session-*.jsonl` with prompts,
    replies with thoughts and tool calls, each reply appended again once its calls finish (FORMATS.md §3)."""
    rng = random.Random(seed)
    written = files = 0
    while written < total_bytes:
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        folder = root / "tmp" / f"project{files % 7}" / "chats"
        folder.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 150_000), 30_000_000, total_bytes - written + 2_000)
        size = 0
        with open(folder / f"session-2026-01-01T00-00-{sid[:8]}.jsonl", "wb") as fh:
            def put(obj: dict) -> None:
                nonlocal size
                data = orjson.dumps(obj) + b"\n"
                fh.write(data)
                size += len(data)

            def text(n: int) -> str:
                return " ".join(rng.choice(WORDS) for _ in range(n))
            put({"sessionId": sid, "projectHash": f"{rng.getrandbits(64):016x}", "startTime": "2026-01-01T00:00:00Z",
                 "lastUpdated": "2026-01-01T00:00:00Z", "kind": "main"})
            while size < target:
                put({"id": str(uuid.UUID(int=rng.getrandbits(128))), "timestamp": "2026-01-01T00:00:01Z", "type": "user",
                     "content": [{"text": text(rng.randint(5, 60))}]})
                mid = str(uuid.UUID(int=rng.getrandbits(128)))
                calls = [{"id": f"c{rng.getrandbits(32):08x}", "name": "run_shell_command", "args": {"command": text(4)},
                          "status": "executing"} for _ in range(rng.randint(0, 4))]
                reply = {"id": mid, "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": text(rng.randint(10, 120)),
                         "model": "gemini-2.5-pro", "thoughts": [{"subject": "Plan", "description": text(20)}],
                         "tokens": {"input": rng.randint(1000, 9000), "output": rng.randint(10, 900), "thoughts": 50},
                         "toolCalls": calls}
                put(reply)
                if calls:
                    for c in calls:
                        n = _tool_size(rng)
                        output = {"output": text(max(1, n // 7))[:n]}
                        c.update(status="success", result=[{"functionResponse": {"id": c["id"], "name": c["name"],
                                                                                 "response": output}}])
                    put(reply)  # appended again, whole, once its calls finished
        written += size
        files += 1
    return {"bytes": written, "files": files}


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def generate_langgraph(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """A LangGraph SqliteSaver database of about `total_bytes`, written by a real compiled graph (an agent
    node calling a tool node, plain Python): threads of up to 12 turns, each checkpoint holding the whole
    conversation as langgraph keeps it (FORMATS.md §5)."""
    import sqlite3
    from typing import Annotated, TypedDict

    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import add_messages

    rng = random.Random(seed)

    # the functional form: this module's annotations are strings, which langgraph cannot resolve in a function
    State = TypedDict("State", {"messages": Annotated[list, add_messages], "notes": list}, total=False)

    def agent(state) -> dict:
        if isinstance(state["messages"][-1], HumanMessage) and rng.random() < 0.7:
            calls = [{"name": "search", "args": {"q": _words(rng, 4)}, "id": f"call_{rng.getrandbits(40):010x}"}
                     for _ in range(rng.randint(1, 3))]
            return {"messages": [AIMessage(_words(rng, rng.randint(5, 40)), tool_calls=calls,
                                           usage_metadata={"input_tokens": rng.randint(500, 9000),
                                                           "output_tokens": rng.randint(10, 500), "total_tokens": 0})]}
        return {"messages": [AIMessage(_words(rng, rng.randint(20, 200)),
                                       usage_metadata={"input_tokens": rng.randint(500, 9000),
                                                       "output_tokens": rng.randint(10, 500), "total_tokens": 0})],
                "notes": (state.get("notes") or []) + [_words(rng, 3)]}

    def tools(state) -> dict:
        return {"messages": [ToolMessage(_words(rng, max(1, _tool_size(rng) // 7))[:20_000], tool_call_id=c["id"])
                             for c in state["messages"][-1].tool_calls]}

    g = StateGraph(State)
    g.add_node("agent", agent)
    g.add_node("tools", tools)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", lambda s: "tools" if s["messages"][-1].tool_calls else END, ["tools", END])
    g.add_edge("tools", "agent")
    root.mkdir(parents=True, exist_ok=True)
    db = root / "checkpoints.sqlite"
    con = sqlite3.connect(db, check_same_thread=False)
    app = g.compile(checkpointer=SqliteSaver(con))
    threads = 0
    while db.stat().st_size + (Path(f"{db}-wal").stat().st_size if Path(f"{db}-wal").exists() else 0) < total_bytes:
        config = {"configurable": {"thread_id": f"thread-{threads}"}}
        for _ in range(rng.randint(2, 12)):
            app.invoke({"messages": [HumanMessage(_words(rng, rng.randint(5, 60)))]}, config)
        threads += 1
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return {"bytes": db.stat().st_size, "files": 1, "threads": threads}


def generate_cline(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """Cline task folders of about `total_bytes`: the API conversation (thinking, tool calls, results as
    user text), the UI log with each request's tokens, the task metadata (FORMATS.md §6)."""
    import json
    rng = random.Random(seed)
    written = files = 0
    while written < total_bytes:
        folder = root / f"{1_760_000_000_000 + files * 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        api = [{"role": "user", "content": [{"type": "text", "text": f"<task>\n{_words(rng, 30)}\n</task>"}]}]
        ui = [{"ts": 1_760_000_000_000, "type": "say", "say": "text", "text": _words(rng, 30)}]
        size, ts = 0, 1_760_000_000_000
        while size < target:
            tid = f"toolu_{rng.getrandbits(60):015x}"
            api.append({"role": "assistant", "content": [
                {"type": "thinking", "thinking": _words(rng, 40), "signature": "sig"},
                {"type": "tool_use", "id": tid, "name": "read_file", "input": {"path": f"src/{_words(rng, 1)}.py"}}],
                "modelInfo": {"modelId": "claude-sonnet-4-5", "providerId": "anthropic", "mode": "act"},
                "metrics": {"tokens": {"prompt": 10, "completion": rng.randint(50, 800), "cached": rng.randint(1000, 90000)}}})
            out = _words(rng, max(1, _tool_size(rng) // 7))
            env = "<environment_details>\n# Files\n</environment_details>"
            api.append({"role": "user", "content": [{"type": "text", "text": f"[read_file for 'x.py'] Result:\n{out}"},
                                                    {"type": "text", "text": env}]})
            ts += rng.randint(1000, 30000)
            ui.append({"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 10, "tokensOut": 100})})
            size += len(out) + 600
        for name, doc in (("api_conversation_history.json", api), ("ui_messages.json", ui),
                          ("task_metadata.json", {"files_in_context": [{"path": "src/a.py", "record_state": "active"}]})):
            data = orjson.dumps(doc)
            (folder / name).write_bytes(data)
            written += len(data)
        files += 3
    return {"bytes": written, "files": files}


def generate_aider(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """Repositories with `.aider.chat.history.md` of about `total_bytes` in all: runs of prompts, replies
    with SEARCH/REPLACE blocks, and aider's `>` output with tokens, applied edits and commits."""
    rng = random.Random(seed)
    written = files = 0
    while written < total_bytes:
        repo = root / f"repo{files}"
        repo.mkdir(parents=True, exist_ok=True)
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        parts: list[str] = []
        size = 0
        while size < target:
            run = [f"\n# aider chat started at 2026-01-{rng.randint(1, 28):02d} 10:00:00\n\n> aider --model gpt-4o  \n"
                   "> Model: gpt-4o with diff edit format  \n"]
            for _ in range(rng.randint(1, 20)):
                body = _words(rng, max(1, _tool_size(rng) // 7))
                run.append(f"\n#### {_words(rng, rng.randint(5, 40))}  \n\n{_words(rng, 30)}\n\nsrc/a.py\n```python\n"
                           f"<<<<<<< SEARCH\n{body[:2000]}\n=======\n{body[:2000]}!\n>>>>>>> REPLACE\n```\n\n"
                           f"> Tokens: {rng.randint(1, 90)},{rng.randint(100, 999)} sent, {rng.randint(10, 900)} received. "
                           "Cost: $0.01 message, $0.02 session.  \n> Applied edit to src/a.py  \n"
                           f"> Commit {rng.getrandbits(28):07x} feat: {_words(rng, 4)}  \n")
            text = "".join(run)
            parts.append(text)
            size += len(text.encode())
        (repo / ".aider.chat.history.md").write_text("".join(parts))
        written += size
        files += 1
    return {"bytes": written, "files": files}


def generate_openhands(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """OpenHands trajectories (`.json` arrays of events) of about `total_bytes`: a user message, then
    actions with their LiteLLM responses and the observations that answer them by `cause`."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    written = files = 0
    while written < total_bytes:
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        events = [{"id": 0, "timestamp": "2026-01-01T00:00:00", "source": "user", "message": _words(rng, 30),
                   "action": "message", "args": {"content": _words(rng, 30)}}]
        size = 0
        while size < target:
            n = len(events)
            meta = {"function_name": "execute_bash", "tool_call_id": f"toolu_{rng.getrandbits(60):015x}",
                    "model_response": {"id": f"chatcmpl-{rng.getrandbits(60):015x}",
                                       "usage": {"prompt_tokens": rng.randint(1000, 9000),
                                                 "completion_tokens": rng.randint(10, 500)}}}
            cmd = _words(rng, 4)
            out = _words(rng, max(1, _tool_size(rng) // 7))
            events.append({"id": n, "timestamp": "2026-01-01T00:00:01", "source": "agent", "message": f"Running {cmd}",
                           "action": "run", "args": {"command": cmd, "thought": _words(rng, 20)},
                           "tool_call_metadata": meta})
            events.append({"id": n + 1, "timestamp": "2026-01-01T00:00:02", "source": "agent", "cause": n,
                           "observation": "run", "content": out, "message": "Command executed",
                           "extras": {"metadata": {"exit_code": 0}}})
            size += len(out) + 400
        data = orjson.dumps(events)
        (root / f"trajectory-{files}.json").write_bytes(data)
        written += len(data)
        files += 1
    return {"bytes": written, "files": files}


def generate_agents_sdk(root: Path, total_bytes: int, seed: int = 7) -> dict:
    """An Agents SDK session database of about `total_bytes`, written by openai-agents' own SQLiteSession:
    sessions of prompts, function calls and their outputs, replies (Responses API items, FORMATS.md §4)."""
    import asyncio

    from agents import SQLiteSession

    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    db = root / "conversations.db"
    written = sessions = 0
    while written < total_bytes:
        session = SQLiteSession(f"user_{sessions}", str(db))
        items: list[dict] = []
        target = min(int(rng.paretovariate(1.3) * 100_000), 20_000_000, total_bytes - written + 2_000)
        size = 0
        while size < target:
            cid = f"call_{rng.getrandbits(60):015x}"
            out = _words(rng, max(1, _tool_size(rng) // 7))
            items += [{"role": "user", "content": _words(rng, rng.randint(5, 60))},
                      {"type": "function_call", "call_id": cid, "name": "search", "id": f"fc_{cid}",
                       "arguments": orjson.dumps({"q": _words(rng, 4)}).decode()},
                      {"type": "function_call_output", "call_id": cid, "output": out},
                      {"id": f"msg_{cid}", "type": "message", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": _words(rng, rng.randint(10, 120)), "annotations": []}]}]
            size += len(out) + 600
        asyncio.run(session.add_items(items))
        session.close()
        written += size
        sessions += 1
    return {"bytes": db.stat().st_size, "files": 1, "sessions": sessions}
