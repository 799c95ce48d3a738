"""The agents running on this machine (#35): their processes (psutil), matched to the sessions they write.

A process is an agent's when its program (or, for a Node or Python script, the script it runs) is one a source
names (`Source.programs`: claude, codex, gemini, aider). It is matched to a session by the evidence, best first:
the session's id on its command line (`claude --resume ID`, `codex resume ID`), a file it holds open whose path
holds the session's id (Codex keeps its rollout open), or its folder: the session of that tool in that folder
written most recently since the process started. Another user's processes are not seen where the system
hides them; what cannot be read is left out, never guessed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

SLACK_S = 5.0  # a session's last write may come a little before the process's recorded start


@dataclass(frozen=True)
class Proc:
    pid: int
    program: str  # the agent's program name (claude, codex, …)
    cwd: str
    started: float
    args: tuple[str, ...]
    files: tuple[str, ...] = ()  # files it holds open (where readable)


def agent_processes(programs: set[str]) -> list[Proc] | None:
    """The running processes of these programs; None when processes cannot be looked at here (no psutil)."""
    try:
        import psutil
    except ImportError:
        return None
    me = os.getpid()
    found = []
    for p in psutil.process_iter(["pid", "name", "cmdline", "create_time"]):
        try:
            info = p.info
            if info["pid"] == me:
                continue
            args = tuple(info.get("cmdline") or ())
            program = _program(info.get("name") or "", args, programs)
            if program is None:
                continue
            try:
                cwd = p.cwd()
            except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
                cwd = ""
            try:
                files = tuple(f.path for f in p.open_files())
            except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
                files = ()
            found.append(Proc(info["pid"], program, cwd, float(info.get("create_time") or 0.0), args, files))
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def _program(name: str, args: tuple[str, ...], programs: set[str]) -> str | None:
    """Which agent program a process is: its own name, or the script a node/python/bun runs (`node …/claude`)."""
    base = os.path.basename(name)
    if base in programs:
        return base
    for arg in args[:3]:
        script = os.path.basename(arg)
        for suffix in (".js", ".mjs", ".cjs", ".py"):
            script = script.removesuffix(suffix)
        if script in programs:
            return script
    return None


def match(sessions, procs: list[Proc], program_of) -> dict[str, Proc]:
    """Which process writes which session (session id → Proc). `program_of(session)`: the programs of its tool."""
    by_id: dict[str, Proc] = {}
    taken: set[int] = set()
    keys = {s.id: {s.id, s.tool_id} - {None, ""} for s in sessions}
    for s in sessions:  # 1. named on the command line, or 2. its file held open
        for p in procs:
            if p.pid in taken or p.program not in program_of(s):
                continue
            if any(k in p.args for k in keys[s.id]) or any(k in f for k in keys[s.id] for f in p.files):
                by_id[s.id] = p
                taken.add(p.pid)
                break
    for p in sorted(procs, key=lambda p: -p.started):  # 3. its folder: the newest session written since it started
        if p.pid in taken or not p.cwd:
            continue
        folder = os.path.realpath(p.cwd)
        # the cheap tests first: a store holds thousands of sessions, and this runs every few seconds
        near = [s for s in sessions if s.updated_at >= p.started - SLACK_S and s.cwd and s.id not in by_id
                and p.program in program_of(s) and os.path.realpath(s.cwd) == folder]
        if near:
            best = max(near, key=lambda s: s.updated_at)
            by_id[best.id] = p
            taken.add(p.pid)
    return by_id
