"""A generated Claude Code home for the usage figures: sessions over ten days in three projects, three models, replies
written as several lines of one message (the same usage on each, as Claude Code writes a reply's content blocks),
cache writes and reads, subagents in their own files, a fork's copied lines, and a session still running (its
replies within the last two hours, so a block is active). `independent_sum` reads the files again, by hand: one
count per message id and request id."""

from __future__ import annotations

import datetime as dt
import json
import random
import time
import uuid
from pathlib import Path

MODELS = ("claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5")
PROJECTS = ("/home/dev/api", "/home/dev/web", "/home/dev/infra")


def _line(sid: str, cwd: str, kind: str, ts: float, parent: str | None, **extra) -> dict:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
            "version": "2.1.0", "gitBranch": "main", "type": kind, "uuid": str(uuid.uuid4()),
            "timestamp": dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"), **extra}


def _turns(rng: random.Random, sid: str, cwd: str, start: float, turns: int, model: str,
           sidechain: dict | None = None) -> list[dict]:
    lines, parent, ts = [], None, start
    for _ in range(turns):
        user = _line(sid, cwd, "user", ts, parent, message={"role": "user", "content": "please go on"})
        if sidechain:
            user.update(sidechain)
        lines.append(user)
        parent = user["uuid"]
        ts += rng.uniform(5, 900)
        usage = {"input_tokens": rng.randint(1, 4000), "output_tokens": rng.randint(1, 3000),
                 "cache_creation_input_tokens": rng.choice((0, 0, rng.randint(100, 20000))),
                 "cache_read_input_tokens": rng.choice((0, rng.randint(1000, 90000)))}
        mid, req = f"msg_{uuid.uuid4().hex[:24]}", f"req_{uuid.uuid4().hex[:24]}"
        for block in range(rng.choice((1, 2, 3))):  # a reply's content blocks, one line each, the same usage
            a = _line(sid, cwd, "assistant", ts + block * 0.2, parent, requestId=req,
                      message={"id": mid, "type": "message", "role": "assistant", "model": model,
                               "content": [{"type": "text", "text": f"part {block}"}], "usage": dict(usage)})
            if sidechain:
                a.update(sidechain)
            lines.append(a)
            parent = a["uuid"]
        ts += rng.uniform(5, 600)
    return lines


def generate(root: Path, sessions: int = 24, seed: int = 7, now: float | None = None) -> Path:
    """Writes the home's `projects` folder under `root` (a CLAUDE_CONFIG_DIR) and returns it."""
    rng = random.Random(seed)
    now = time.time() if now is None else now
    projects = root / "projects"
    for n in range(sessions):
        cwd = PROJECTS[n % len(PROJECTS)]
        folder = projects / cwd.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        running = n == sessions - 1  # the last one runs now: its replies within the last two hours
        start = now - 7000 if running else now - rng.uniform(1, 10) * 86400
        lines = _turns(rng, sid, cwd, start, 4 if running else rng.randint(3, 12), MODELS[n % len(MODELS)])
        if running:
            lines = [e for e in lines if e["timestamp"] < dt.datetime.fromtimestamp(now - 60, dt.timezone.utc)
                     .isoformat(timespec="milliseconds").replace("+00:00", "Z")]
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in lines))
        if n % 4 == 1:  # a subagent: its own file beside the session, its replies on the side chain
            agent = uuid.UUID(int=rng.getrandbits(128)).hex[:17]
            sub = folder / sid / "subagents"
            sub.mkdir(parents=True, exist_ok=True)
            side = _turns(rng, sid, cwd, start + 60, rng.randint(2, 5), "claude-haiku-4-5",
                          {"isSidechain": True, "agentId": agent})
            (sub / f"agent-{agent}.jsonl").write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in side))
    return projects


def independent_sum(projects: Path) -> dict[str, list[int]]:
    """{local day: [input, output, cache read, cache write]}, straight from the files: every assistant line with a
    usage, once per (message id, request id)."""
    seen, days = set(), {}
    for path in sorted(projects.rglob("*.jsonl")):
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            msg = line.get("message") or {}
            if line.get("type") != "assistant" or "usage" not in msg:
                continue
            key = (msg.get("id"), line.get("requestId"))
            if key in seen:
                continue
            seen.add(key)
            u = msg["usage"]
            stamp = dt.datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00")).timestamp()
            day = dt.datetime.fromtimestamp(stamp).strftime("%Y-%m-%d")
            acc = days.setdefault(day, [0, 0, 0, 0])
            for i, k in enumerate(("input_tokens", "output_tokens", "cache_read_input_tokens",
                                   "cache_creation_input_tokens")):
                acc[i] += u.get(k) or 0
    return days
