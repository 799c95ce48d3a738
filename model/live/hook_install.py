"""`sessionscope hooks install|uninstall|status`: Sessionscope's hooks in the agents' own settings (#35), opt-in.

Claude Code (settings.json), Codex (hooks.json) and Gemini CLI (settings.json) read the same shape: `hooks`, an
object of event names, each a list of groups `{"matcher"?, "hooks": [{"type": "command", "command": …}]}`. An
install adds one group an event running `sessionscope hook --tool NAME --store STORE`, and keeps everything that
is there (a group of ours from an earlier install is replaced, so installing again moves the store or the
program); uninstall takes out exactly the hooks whose command is ours, and gives the file back byte for byte when
nothing else changed in it (a file the install made is taken away). The file is replaced atomically, its mode
kept, a link written through (it stays a link), after a copy of the old one is saved beside it (the first such
copy is kept). A file that is not JSON (comments a tool accepts included), or whose `hooks` is not an object, is
refused, never rewritten, and the other tools' files are still done.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from sessionscope.errors import InvalidInput

MARK = " hook --tool "  # in every command we install; a hook of someone else's has no reason to hold it
BACKUP_SUFFIX = ".sessionscope-backup"


@dataclass(frozen=True)
class HookTool:
    name: str  # --tool NAME
    kind: str  # the source kind its sessions import as
    label: str
    events: tuple[str, ...]
    timeout: int  # in the unit the tool reads: seconds, or milliseconds for Gemini CLI
    note: str = ""  # what the user should know after installing

    def settings(self) -> Path:
        home = Path.home()
        if self.name == "claude":
            return Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude") / "settings.json"
        if self.name == "codex":
            return Path(os.environ.get("CODEX_HOME") or home / ".codex") / "hooks.json"
        return Path(os.environ.get("GEMINI_CLI_HOME") or home) / ".gemini" / "settings.json"


TOOLS = {t.name: t for t in (
    HookTool("claude", "claude_code", "Claude Code",
             ("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
              "PostToolUseFailure", "Notification", "Stop", "StopFailure", "SessionEnd"), 10,
             "Claude Code reads its settings at start: sessions already open take the hooks when restarted."),
    HookTool("codex", "codex", "Codex",
             ("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop"), 10,
             "Codex asks you to review and trust new hooks before it runs them (hooks must not be turned off "
             "in config.toml's [features])."),
    HookTool("gemini", "gemini", "Gemini CLI",
             ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification", "AfterAgent", "SessionEnd"),
             10_000, "Gemini CLI reads its settings at start: sessions already open take the hooks when restarted."),
)}


def tools_named(name: str | None) -> list[HookTool]:
    if name is None or name == "all":
        return list(TOOLS.values())
    if name not in TOOLS:
        raise InvalidInput(f"no hooks for {name!r}: the tools with hooks are {', '.join(TOOLS)}")
    return [TOOLS[name]]


def program() -> list[str]:
    """How an agent starts this Sessionscope: the bundle's executable, the `sessionscope` script beside this
    Python (a virtualenv's), the one on PATH, or this Python with `-m` — always a full path, since an agent's
    hooks run with whatever PATH it was started with."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    exe = "sessionscope.exe" if os.name == "nt" else "sessionscope"
    beside = Path(sys.executable).with_name(exe)
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("sessionscope")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "sessionscope.cli"]


def command(tool: HookTool, store: str | None) -> str:
    """The hook's command line: the store pinned (the one the app shows) when it is a SQLite file; a database
    server's URL may hold a password, so its signals wait in the spool for the next import instead."""
    from sessionscope.store.locations import sqlite_path
    path = sqlite_path(store)
    argv = [*program(), "hook", "--tool", tool.name, "--store", str(path) if path is not None else "spool:"]
    return subprocess.list2cmdline(argv) if os.name == "nt" else shlex.join(argv)


STATUS_MARK = " usage statusline"  # in the status line we set


def status_command(store: str | None) -> str:
    """Claude Code's `statusLine` command: this Sessionscope's `usage statusline` over the store the hooks name."""
    from sessionscope.store.locations import sqlite_path
    path = sqlite_path(store)
    argv = [*program(), *(["--store", str(path)] if path is not None else []), "usage", "statusline"]
    return subprocess.list2cmdline(argv) if os.name == "nt" else shlex.join(argv)


def our_status_line(entry) -> bool:
    return isinstance(entry, dict) and STATUS_MARK in str(entry.get("command", "")) and \
        "sessionscope" in str(entry.get("command", ""))


def ours(hook_entry) -> bool:
    return isinstance(hook_entry, dict) and MARK in str(hook_entry.get("command", "")) and \
        "sessionscope" in str(hook_entry.get("command", ""))


def _read(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{path} is not JSON Sessionscope can edit ({exc}; a tool may accept comments in it, which "
                           "a rewrite would lose): it is left as it is — add the hooks by hand, or take the "
                           "comments out and install again") from exc
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise InvalidInput(f"{path}: its settings (or their \"hooks\") are not a JSON object; left as they are")
    return data


def _without_ours(groups) -> tuple[list, int]:
    """The event's groups with our hooks taken out (a group left empty goes too), and how many were."""
    kept, taken = [], 0
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        hooks = [h for h in group["hooks"] if not ours(h)]
        taken += len(group["hooks"]) - len(hooks)
        if hooks:
            kept.append({**group, "hooks": hooks})
    return kept, taken


def _target(path: Path) -> Path:
    """The file a settings path names: a link (dotfiles kept in a repository) is written through, and stays a link."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _backup_of(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _replace(path: Path, text: str | bytes) -> None:
    """The file's content replaced atomically, its mode kept (0600 for a new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(text.encode("utf-8") if isinstance(text, str) else text)
    os.replace(tmp, path)


def _write(path: Path, data: dict) -> str:
    """Replace the file atomically, its mode kept; returns where the old one was copied ("" when none was). The
    first copy is kept: installing again (or again after that) never loses the bytes the user had."""
    path = _target(path)
    backup = ""
    if path.exists():
        backup = str(_backup_of(path))
        if not os.path.exists(backup):
            shutil.copy2(path, backup)
    _replace(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return backup


@dataclass
class Change:
    tool: str
    settings: str
    events: list[str]
    command: str
    removed: int
    written: bool
    note: str = ""
    backup: str = ""  # where the file was copied before it was changed
    problem: str = ""  # why this tool's settings were left as they are
    removed_file: bool = False  # uninstall took away a file the install had made
    status_line: str = ""  # Claude Code's status line: "set", "kept" (someone else's is there), "removed", or ""

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def install(tool: HookTool, store: str | None, *, dry_run: bool = False, status_line: bool = False) -> Change:
    """Our hooks into the tool's settings, in place of any we put there before; with `status_line` (Claude Code), our
    `usage statusline` as its status line too, unless a status line of someone else's is set (kept)."""
    path = tool.settings()
    data = _read(path)
    cmd = command(tool, store)
    hooks = dict(data.get("hooks") or {})
    removed = 0
    for event in tool.events:
        kept, taken = _without_ours(hooks.get(event, []))
        removed += taken
        entry = {"type": "command", "command": cmd, "timeout": tool.timeout}
        if tool.name == "gemini":
            entry = {"name": "sessionscope", **entry}
        hooks[event] = [*kept, {"hooks": [entry]}]
    data = {**data, "hooks": hooks}
    said = ""
    if status_line and tool.name == "claude":
        there = data.get("statusLine")
        if there and not our_status_line(there):
            said = "kept"
        else:
            data["statusLine"] = {"type": "command", "command": status_command(store), "padding": 0}
            said = "set"
    backup = "" if dry_run else _write(path, data)
    return Change(tool.name, str(path), list(tool.events), cmd, removed, not dry_run, tool.note, backup,
                  status_line=said)


def uninstall(tool: HookTool, *, dry_run: bool = False) -> Change:
    path = tool.settings()
    data = _read(path)
    said = ""
    if our_status_line(data.get("statusLine")):  # (a status line of someone else's is theirs: left)
        data = {k: v for k, v in data.items() if k != "statusLine"}
        said = "removed"
    hooks, removed, events = dict(data.get("hooks") or {}), 0, []
    for event, groups in list(hooks.items()):
        kept, taken = _without_ours(groups)
        if taken:
            removed += taken
            events.append(event)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    backup, gone = "", False
    if (removed or said) and not dry_run:
        rest = {k: v for k, v in data.items() if k != "hooks"}
        left = {**rest, "hooks": hooks} if hooks else rest
        target = _target(path)
        saved = _backup_of(target)
        before = _saved(saved)
        if before is not None and before[0] == left:  # as it was before the install: its very bytes back
            _replace(target, before[1])
            saved.unlink()
            backup = ""
        elif before is None and not left:  # a file the install made, holding nothing else: taken away
            target.unlink()
            gone = True
        else:  # changed since by the user or the tool: our hooks out, the rest as it is now
            backup = _write(path, left)
    return Change(tool.name, str(path), events, "", removed, bool(removed or said) and not dry_run, backup=backup,
                  removed_file=gone, status_line=said)


def _saved(backup: Path) -> tuple[dict, bytes] | None:
    """The settings saved before the first install, as (JSON, bytes); None when there is no such copy."""
    try:
        raw = backup.read_bytes()
        data = json.loads(raw.decode("utf-8") or "{}")
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return (data, raw) if isinstance(data, dict) else None


def installed(tool: HookTool) -> dict:
    """What is in the tool's settings now: our hooks by event, and what stops them running."""
    path = tool.settings()
    try:
        data = _read(path)
    except InvalidInput as exc:
        return {"tool": tool.name, "settings": str(path), "events": [], "commands": [], "problem": str(exc)}
    events, commands = [], set()
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for h in group.get("hooks", []) if isinstance(group, dict) and isinstance(group.get("hooks"), list) else []:
                if ours(h):
                    events.append(event)
                    commands.add(h["command"])
    problem = ""
    if tool.name == "gemini" and (data.get("hooksConfig") or {}).get("enabled") is False:
        problem = "hooks are turned off in this file (hooksConfig.enabled is false)"
    missing = [e for e in tool.events if e not in events]
    if events and missing:
        problem = problem or f"some are missing ({', '.join(missing)}): install again"
    return {"tool": tool.name, "settings": str(path), "events": sorted(set(events)), "commands": sorted(commands),
            "problem": problem}
