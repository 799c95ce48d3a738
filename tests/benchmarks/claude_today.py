"""A Claude Code home as today's Claude Code writes it: the bundled `claude` (claude-agent-sdk's `_bundled/`), run
offline against the loopback Messages API server (tests/messages_api.py), a few sessions of a few turns each, every
turn a command run, a file read and a reply.

The corpus's files were written by Claude Code 1.0-2.1.39; later versions add lines of their own to every session
(the request's shape with the system prompt and tool schemas, the prompt's snapshot, the skills listed: 100-200 KB a
session), which the benchmark's generated homes do not have. `python -m tests.benchmarks.claude_today FOLDER N`
writes one by hand.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

TURNS = 3


def bundled() -> Path | None:
    """The `claude` claude-agent-sdk bundles, or None where the package (or its binary) is not installed."""
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    found = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return found if found.is_file() else None


def write_home(root: Path, sessions: int, turns: int = TURNS) -> dict | None:
    """Have the bundled claude write `sessions` sessions of `turns` turns into `root/.claude/projects`, in three
    project folders; returns {sessions, bytes, files, version} of what it wrote, or None without a bundled claude.
    RuntimeError, saying what claude said, where a run wrote no session."""
    from tests.messages_api import Script, offline_env, serve, text, tool
    claude = bundled()
    if claude is None:
        return None
    shutil.rmtree(root, ignore_errors=True)
    home = root / "home"
    home.mkdir(parents=True)
    replies = []
    for n in range(sessions * turns):
        replies += [tool("Bash", {"command": "ls -la", "description": "List the project's files"}, "Let me look."),
                    tool("Read", {"file_path": "main.py"}),
                    text(f"Step {n} is done: main.py prints its greeting fifty times and reads no input. " * 4)]
    with serve(Script(replies)) as url:
        env = {**os.environ, **offline_env(home, url)}
        for s in range(sessions):
            work = root / f"project{s % 3}"
            work.mkdir(exist_ok=True)
            (work / "main.py").write_text("print('hello')\n" * 50)
            session = None
            for turn in range(turns):
                args = [str(claude), "-p", f"Session {s}, turn {turn}: look at main.py and say what it does",
                        "--output-format", "json", "--allowedTools", "Bash,Read"]
                done = subprocess.run(args + (["--resume", session] if session else []), cwd=work, env=env,
                                      capture_output=True, text=True, timeout=120)
                try:
                    session = json.loads(done.stdout)["session_id"]
                except (ValueError, KeyError, TypeError):
                    raise RuntimeError(f"the bundled claude wrote no session (exit {done.returncode}): "
                                       f"{(done.stderr or done.stdout).strip()[-300:]}") from None
    files = [p for p in (home / ".claude" / "projects").rglob("*.jsonl")]
    version = subprocess.run([str(claude), "--version"], capture_output=True, text=True, env=env).stdout.split()[0]
    return {"sessions": sessions, "files": len(files), "bytes": sum(p.stat().st_size for p in files),
            "version": version, "projects": str(home / ".claude" / "projects")}


if __name__ == "__main__":
    print(json.dumps(write_home(Path(sys.argv[1]), int(sys.argv[2]))))
