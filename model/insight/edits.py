"""What an agent's edit did to a file, whichever tool made it: the operations blame replays (sessionscope.insight.blame).

Claude Code's Edit/MultiEdit/Write, Crush's and OpenCode's edit/multiedit/write, Gemini's replace/write_file, Codex's
apply_patch (a tool of its own, or a shell heredoc), Cline's write_to_file and replace_in_file (SEARCH/REPLACE
blocks), OpenHands' str_replace_editor (create, str_replace, insert), Aider's SEARCH/REPLACE blocks in its replies,
and a shell's `mv`/`git mv` (a rename). Paths are as the tool wrote them; nothing here touches a file.
"""

from __future__ import annotations

import ast
import ntpath
import posixpath
import re
import shlex
from dataclasses import dataclass, field

from sessionscope.history import cards


@dataclass
class Op:
    """One change to one file. `kind`: write (the whole file is `new`), replace (`old` → `new`, every occurrence
    with `every`), patch (`hunks`: [(the lines before, the lines after)], context included), delete, or rename
    (to `to`)."""

    kind: str
    path: str
    old: str = ""
    new: str = ""
    every: bool = False
    hunks: list[tuple[list[str], list[str]]] = field(default_factory=list)
    to: str = ""
    insert_line: int | None = None  # OpenHands' insert: after this line (0: at the top)


_WRITE_KEYS = ("content", "file_text", "contents", "text")
_CLINE_BLOCK = re.compile(r"(?:<{7}|-{7}) SEARCH\n(.*?)\n?={7}\n(.*?)\n?(?:>{7}|\+{7}) REPLACE", re.S)
_AIDER_BLOCK = re.compile(r"(?:^|\n)([^\n`]*?)\n```[^\n]*\n<{7} SEARCH\n(.*?)\n?={7}\n(.*?)\n?>{7} REPLACE\n```", re.S)
_MOVE = re.compile(r"(?:^|[;&|]\s*)(?:git\s+mv|mv)\s+(?:-[fnvk]+\s+)*(\S+)\s+(\S+)\s*(?:$|[;&|])")


_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def absolute(path: str, cwd: str = "") -> str:
    """A path as the tool wrote it, made absolute from the session's folder and normalised (`a/../b` is `b`), in
    the path rules of the machine that wrote it (a Windows path keeps its backslashes). Only a name to match: never
    opened (it comes from a transcript)."""
    if not path:
        return ""
    windows = bool(_WINDOWS.match(path) or _WINDOWS.match(cwd))
    mod = ntpath if windows else posixpath
    if not mod.isabs(path) and cwd:
        path = mod.join(cwd, path)
    return mod.normpath(path) if mod.isabs(path) else path


def name_of(path: str) -> str:
    """The file's name, whichever separator its path uses."""
    return re.split(r"[\\/]", path)[-1]


def _path(args: dict) -> str:
    return cards.path_of(args) or str(args.get("absolutePath") or args.get("TargetFile") or "")


def ops_of(call: cards.Call) -> list[Op]:
    """The file operations a tool call asks for ([] for a call that edits nothing)."""
    name, args = call.name.lower(), call.args
    if name in cards.PATCH or (name in cards.SHELL and "*** Begin Patch" in cards.patch_text(call)) or \
            (name in cards.SHELL and "*** Begin Patch" in cards.command_of(args)):
        return patch_ops(cards.patch_text(call) or cards.command_of(args))
    if name in cards.SHELL:
        return _moves(cards.command_of(args))
    path = _path(args)
    if name == "str_replace_editor" or "translated_ipython_code" in args:
        return _openhands(args, path)
    if not path:
        return []
    if name == "replace_in_file" and isinstance(args.get("diff"), str):
        return [Op("replace", path, old, new) for old, new in _CLINE_BLOCK.findall(args["diff"])]
    if name in cards.WRITE or name == "write_to_file":
        content = next((args[k] for k in _WRITE_KEYS if isinstance(args.get(k), str)), None)
        return [Op("write", path, new=content)] if content is not None else []
    if name in cards.EDIT:
        edits = args.get("edits") if isinstance(args.get("edits"), list) else [args]
        out = []
        for e in edits:
            if not isinstance(e, dict):
                continue
            old, new = e.get("old_string", e.get("old_str")), e.get("new_string", e.get("new_str"))
            if isinstance(old, str) and isinstance(new, str):
                every = bool(e.get("replace_all") or e.get("allow_multiple") or
                             (isinstance(e.get("expected_replacements"), int) and e["expected_replacements"] > 1))
                out.append(Op("write", path, new=new) if old == "" else Op("replace", path, old, new, every))
        return out
    return []


def _openhands(args: dict, path: str) -> list[Op]:
    """OpenHands' editor: its arguments, or (an action event) the `file_editor(**{…})` call it ran."""
    code = args.get("translated_ipython_code")
    if isinstance(code, str) and "file_editor(**" in code:
        try:
            inner = code[code.index("file_editor(**") + len("file_editor(**"):code.rindex(")")]
            inner = inner[:inner.rindex("}") + 1]
            parsed = ast.literal_eval(inner)
            if isinstance(parsed, dict):
                args, path = parsed, str(parsed.get("path") or path)
        except (ValueError, SyntaxError):
            pass
    command = args.get("command")
    if not path:
        return []
    if command == "create" and isinstance(args.get("file_text"), str):
        return [Op("write", path, new=args["file_text"])]
    if command == "str_replace" and isinstance(args.get("old_str"), str):
        return [Op("replace", path, args["old_str"], str(args.get("new_str") or ""))]
    if command == "insert" and isinstance(args.get("new_str"), str) and isinstance(args.get("insert_line"), int):
        return [Op("insert", path, new=args["new_str"], insert_line=args["insert_line"])]
    if command is None and isinstance(args.get("content"), str) and args["content"] and \
            str(args.get("start", "1")) == "1" and str(args.get("end", "-1")) == "-1":
        return [Op("write", path, new=args["content"])]
    return []


def patch_ops(text: str) -> list[Op]:
    """A Codex patch (`*** Begin Patch` … `*** End Patch`) as operations: Add File a write, Update File its hunks
    (and `*** Move to:` a rename after them), Delete File a delete."""
    out: list[Op] = []
    current: Op | None = None
    before: list[str] = []
    after: list[str] = []

    def close_hunk() -> None:
        if current is not None and current.kind == "patch" and (before or after):
            current.hunks.append((list(before), list(after)))
        before.clear()
        after.clear()

    for line in text.splitlines():
        if line.startswith("*** "):
            close_hunk()
            head = line[4:]
            if head.startswith(("Add File: ", "Update File: ", "Delete File: ")):
                verb, path = head.split(": ", 1)
                current = Op({"Add File": "write", "Update File": "patch", "Delete File": "delete"}[verb], path.strip())
                out.append(current)
            elif head.startswith("Move to: ") and current is not None:
                out.append(Op("rename", current.path, to=head[len("Move to: "):].strip()))
            continue
        if current is None:
            continue
        if current.kind == "write":
            if line.startswith("+"):
                current.new += line[1:] + "\n"
        elif current.kind == "patch":
            if line.startswith("@@"):
                close_hunk()
            elif line.startswith("+"):
                after.append(line[1:])
            elif line.startswith("-"):
                before.append(line[1:])
            elif line.startswith(" ") or line == "":
                before.append(line[1:])
                after.append(line[1:])
    close_hunk()
    return out


def _moves(command: str) -> list[Op]:
    out = []
    for m in _MOVE.finditer(command):
        try:
            src, dst = shlex.split(f"{m.group(1)} {m.group(2)}")
        except ValueError:
            continue
        if not src.startswith("-") and "*" not in src:
            out.append(Op("rename", src, to=dst))
    return out


def aider_ops(reply: str) -> list[Op]:
    """Aider's SEARCH/REPLACE blocks in a reply (the file's name on the line before the fence); an empty SEARCH makes
    a new file."""
    out = []
    for path, old, new in _AIDER_BLOCK.findall(reply):
        path = path.strip().strip("`*")
        if path:
            new = new + "\n" if new else new
            out.append(Op("write", path, new=new) if not old.strip() else Op("replace", path, old + "\n", new))
    return out


def file_changed_by(event, source_kind: str, cwd: str = "") -> str:
    """The file an event's edit changed (its first; a rename's new name), absolute from the session's folder; ''
    for an event that changes none. `event` is an EventView (kind, payload, text)."""
    from sessionscope.history import cards
    if event.kind == "tool_call":
        ops = [op for c in cards.calls(event.payload or "") for op in ops_of(c)]
    elif event.kind == "message" and source_kind == "aider":
        ops = aider_ops(event.text or "")
    else:
        return ""
    op = next((op for op in ops if op.kind != "rename"), ops[0] if ops else None)
    if op is None:
        return ""
    return absolute(op.to if op.kind == "rename" else op.path, cwd)
