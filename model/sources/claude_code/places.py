"""Where Claude Code keeps a project's transcripts: its projects folder and the name it gives a project's folder
(below both the actions and the adoption of a file, which each need them)."""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_SANITIZED = 200


def projects_dir() -> Path:
    """Where Claude Code looks for transcripts ($CLAUDE_CONFIG_DIR/projects or ~/.claude/projects)."""
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else Path.home() / ".claude") / "projects"


def _simple_hash(s: str) -> str:
    """The CLI's 32-bit string hash in base 36 (names the folders of very long paths)."""
    h = 0
    for ch in s:
        h = ((h << 5) - h + ord(ch)) & 0xFFFFFFFF
    h = abs(h - 0x100000000 if h >= 0x80000000 else h)
    digits, out = "0123456789abcdefghijklmnopqrstuvwxyz", ""
    while h:
        out, h = digits[h % 36] + out, h // 36
    return out or "0"


def project_dir_name(cwd: str) -> str:
    """The folder Claude Code keeps a project's transcripts in, named from its cwd."""
    name = re.sub(r"[^a-zA-Z0-9]", "-", cwd)
    return name if len(name) <= MAX_SANITIZED else f"{name[:MAX_SANITIZED]}-{_simple_hash(cwd)}"


COWORK = "local-agent-mode-sessions"  # Claude Desktop's local agent mode keeps Claude Code transcripts under it


def kind_for(path: Path) -> str:
    """Who keeps a transcript in Claude Code's format: Claude Desktop's local agent mode (Cowork) under the app's
    `local-agent-mode-sessions`, Qoder under `~/.qoder/projects` (`.qoderwork`) or its `SharedClientCache`
    (sessionscope.sources.claude_cowork, qoder); else Claude Code."""
    parts = [p.lower() for p in path.parts]
    if COWORK in path.parts:
        return "claude_cowork"
    if any(a in (".qoder", ".qoderwork") and b == "projects" for a, b in zip(parts, parts[1:])) or \
            any(a == "qoder" and b == "sharedclientcache" for a, b in zip(parts, parts[1:])):
        return "qoder"
    return "claude_code"
