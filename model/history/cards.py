"""What a reader's card says of a tool call: one line (`Read src/app.py`, `Bash: pytest -q → exit 1`,
`Edit tests/helpers.py (+12 −3)`), and the change it made as a unified diff.

The tools name things differently (Claude Code's `Edit{file_path, old_string, new_string}`,
Codex's `apply_patch` patch text and `shell{command: [...]}`, Gemini's `read_file`,
`run_shell_command`); the names below map them onto a few verbs a reader knows.
Pure Python: the reader draws it, an export may print it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

import orjson

READ = {"read", "read_file", "view", "readfile", "read_many_files", "notebookread"}
SHELL = {"bash", "shell", "exec_command", "run_shell_command", "local_shell", "exec", "execute_command", "terminal"}
EDIT = {"edit", "multiedit", "str_replace", "str_replace_editor", "replace", "edit_file", "notebookedit"}
WRITE = {"write", "write_file", "create_file", "write_to_file"}
SEARCH = {"grep", "glob", "search", "search_file_content", "find_files", "list_directory", "ls", "codebase_search"}
PATCH = {"apply_patch"}
AGENT = {"task", "agent", "new_task"}  # (new_task: Roo Code's orchestrator handing work to a subtask)
_EXIT = re.compile(r"(?:[Ee]xit code|exit_code|Exit status)\W{0,3}(-?\d+)")


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any]


def _load(payload: str) -> Any:
    if not payload or payload[0] not in "{[":
        return None
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None


def _args(value: Any) -> dict[str, Any]:
    """A call's arguments as a dict: Codex and the Agents SDK keep them as a JSON string,
    a custom tool (apply_patch) as plain text."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        parsed = _load(value.strip())
        return parsed if isinstance(parsed, dict) else {"input": value}
    return {} if value is None else {"input": value}


def calls(payload: str) -> list[Call]:
    """The calls a tool-call event makes, whichever tool wrote it."""
    p = _load(payload)
    if not isinstance(p, dict):
        return []
    msg = p.get("message")
    content = msg.get("content") if isinstance(msg, dict) else p.get("content")
    if isinstance(content, list):
        uses = [Call(str(b.get("name", "")), _args(b.get("input")))
                for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
        if uses:
            return uses
    if isinstance(p.get("toolCalls"), list):  # Gemini CLI
        return [Call(str(c.get("name", "")), _args(c.get("args"))) for c in p["toolCalls"] if isinstance(c, dict)]
    inner = p.get("payload") if isinstance(p.get("payload"), dict) else p  # Codex's envelope
    if isinstance(inner.get("name"), str):
        return [Call(inner["name"], _args(inner.get("input", inner.get("arguments", inner.get("args")))))]
    if isinstance(inner.get("action"), dict) and inner.get("type") == "local_shell_call":
        return [Call("local_shell", _args(inner["action"]))]
    return []


def path_of(args: dict) -> str:
    # (absolutePath: Cline's write_to_file and replace_in_file, whose cards had no file name)
    for key in ("file_path", "path", "absolute_path", "absolutePath", "notebook_path", "filename", "target_file"):
        if isinstance(args.get(key), str):
            return args[key]
    return ""


def command_of(args: dict) -> str:
    """A shell call's command line, as one string (Codex's argv joined)."""
    cmd = args.get("command", args.get("cmd", args.get("input", "")))
    if isinstance(cmd, list):  # Codex: ["bash", "-lc", "pytest -q"]
        cmd = cmd[-1] if len(cmd) == 3 and cmd[1] in ("-lc", "-c") else " ".join(map(str, cmd))
    return " ".join(str(cmd).split())


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def patched_files(call: Call) -> list[str]:
    """The files a Codex patch adds, updates or deletes."""
    return re.findall(r"\*\*\* (?:Update|Add|Delete) File: (\S+)", patch_text(call))


def exit_code(output: str, error: bool) -> str:
    """`exit N` when the output says so, `error` when only the flag does, else nothing."""
    m = _EXIT.search(output[:400])
    if m:
        return f"exit {m.group(1)}"
    return "error" if error else ""


def patch_text(call: Call) -> str:
    """The patch an apply_patch call carries (its input, or the shell command's heredoc)."""
    text = call.args.get("input") or call.args.get("patch") or ""
    if not text and isinstance(call.args.get("command"), list):
        text = next((c for c in call.args["command"] if isinstance(c, str) and "*** Begin Patch" in c), "")
    return str(text)


def diff(call: Call) -> str:
    """The change an edit or write makes, as a unified diff ('' when the call changes no file)."""
    name, args, path = call.name.lower(), call.args, path_of(call.args)
    if name in PATCH:
        return patch_text(call)
    pairs: list[tuple[str, str]] = []
    if name in EDIT:
        edits = args.get("edits") if isinstance(args.get("edits"), list) else [args]
        pairs = [(str(e.get("old_string", e.get("old_str", ""))), str(e.get("new_string", e.get("new_str", ""))))
                 for e in edits if isinstance(e, dict)]
    elif name in WRITE and isinstance(args.get("content"), str):
        pairs = [("", args["content"])]
    out: list[str] = []
    shown = path.lstrip("/")  # an absolute path reads `a/Users/…`, as git writes it (never `a//Users/…`)
    for old, new in pairs:
        out.extend(difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{shown}", f"b/{shown}", lineterm="",
                                        n=2))
    return "\n".join(out)


def subagent_name(call: Call) -> str | None:
    """What a subagent is called, as its spawning call says it ("Explore · find the cookie races": the Task's type
    and description); None for a call that spawns none, or says nothing of it."""
    name, args = call.name.lower(), call.args
    if name == "tool" and args.get("tool") == "newTask":  # Roo Code's UI log: the orchestrator's `newTask`
        name = "new_task"
    if name not in AGENT:
        return None
    if name == "new_task":  # the subtask's mode and what it was asked
        kind, what = args.get("mode"), args.get("message", args.get("content"))
    else:
        kind, what = args.get("subagent_type"), args.get("description")
    said = [" ".join(str(v).split())[:80] for v in (kind, what) if isinstance(v, str) and v.strip()]
    return " · ".join(said) or None


def plan_of(call: Call) -> str | None:
    """The plan a plan-mode exit proposes (Claude Code's ExitPlanMode: Markdown), or None for another call."""
    if call.name.lower() == "exitplanmode" and isinstance(call.args.get("plan"), str):
        return call.args["plan"]
    return None


def counts(diff_text: str) -> tuple[int, int]:
    """Lines added and removed by a unified diff or a Codex patch."""
    added = removed = 0
    for line in diff_text.splitlines():
        if line.startswith("+") and not line.startswith(("+++", "+** ")):
            added += 1
        elif line.startswith("-") and not line.startswith(("---", "-** ")):
            removed += 1
    return added, removed


def summary(call: Call, output: str = "", error: bool = False) -> str:
    """One line saying what the call did, and how it ended where that is known."""
    name, args = call.name, call.args
    low = name.lower()
    path = path_of(args)
    if low in SHELL:
        code = exit_code(output, error)
        return f"{name}: {_short(command_of(args))}" + (f" → {code}" if code else "")
    if low in READ and path:
        return f"Read {path}"
    if low in EDIT | WRITE | PATCH:
        added, removed = counts(diff(call))
        what = path or ", ".join(patched_files(call)[:3])
        verb = "Write" if low in WRITE else "Patch" if low in PATCH else "Edit"
        return f"{verb} {what} (+{added} −{removed})" + (" → error" if error else "")
    if low in SEARCH:
        pattern = args.get("pattern", args.get("query", args.get("glob", "")))
        where = path or args.get("dir_path", "") or args.get("directory", "")
        return f"{name} {_short(str(pattern), 60)}" + (f" in {where}" if where else "")
    if low in AGENT:
        return f"{name}: {_short(str(args.get('description') or args.get('prompt') or args.get('message') or ''), 80)}"
    if (plan := plan_of(call)) is not None:  # the plan's first line (its title), never its JSON
        first_line = next((line.strip("# ").strip() for line in plan.splitlines() if line.strip()), "")
        return f"Plan: {_short(first_line, 80)}" if first_line else "Plan"
    if low == "todowrite" and isinstance(args.get("todos"), list):
        done = sum(1 for t in args["todos"] if isinstance(t, dict) and t.get("status") == "completed")
        return f"Todo list: {done}/{len(args['todos'])} done"
    first = next((v for v in args.values() if isinstance(v, str) and v.strip()), "")
    return f"{name}: {_short(first, 80)}" if first else name or "Tool call"


def summary_of_text(text: str) -> str:
    """A tool call's one line from its stored text alone (`Name {"arg": …}`, as the importers write a call):
    what the timeline and the tree show, as the reader's card does; the text itself when it is no such call."""
    name, _sep, rest = text.partition(" ")
    if not rest.startswith("{") or not name.isidentifier():
        return text
    try:
        args = orjson.loads(rest)
    except orjson.JSONDecodeError:  # (a long input is cut in the stored text: the reader has the payload)
        return text
    return summary(Call(name, args)) if isinstance(args, dict) else text


def beside_label(payload: str | None) -> str:
    """A line beside the conversation (progress, metadata, a tool's own context, a line not understood) said in its
    tool's own words, for where it has no text of its own (`show --all`, the timeline): its type and the kind of it
    the line names (`attachment: skill_listing`, `progress: hook_progress`, Codex's `event_msg: token_count`,
    `system: turn_duration`); '' where the payload names none."""
    p = _load(payload or "")
    if not isinstance(p, dict):
        return ""
    parts = [p.get("type")]
    for holder, key in ((p.get("attachment"), "type"), (p.get("data"), "type"), (p.get("payload"), "type"),
                        (p, "subtype"), (p, "operation")):
        if isinstance(holder, dict) and isinstance(holder.get(key), str):
            parts.append(holder[key])
            break
    return _short(": ".join(x for x in parts if isinstance(x, str) and x), 80)


def model_of(payload: str) -> str:
    """The model that wrote a reply, where the line names it."""
    if '"model"' not in payload:
        return ""
    p = _load(payload)
    if not isinstance(p, dict):
        return ""
    msg = p.get("message")
    for holder in (msg, p, p.get("payload")):
        if isinstance(holder, dict) and isinstance(holder.get("model"), str):
            return holder["model"]
    return ""


def images(payload: str, limit: int = 4) -> list[tuple[str, str]]:
    """(media type, base64 data) of the images a message carries (Claude's content blocks)."""
    if '"image"' not in payload:
        return []
    p = _load(payload)
    msg = p.get("message") if isinstance(p, dict) else None
    content = msg.get("content") if isinstance(msg, dict) else None
    found = []
    for b in content if isinstance(content, list) else ():
        blocks = b.get("content") if isinstance(b, dict) and b.get("type") == "tool_result" else [b]
        for x in blocks if isinstance(blocks, list) else ():
            src = x.get("source") if isinstance(x, dict) and x.get("type") == "image" else None
            if isinstance(src, dict) and src.get("type") == "base64" and isinstance(src.get("data"), str):
                found.append((str(src.get("media_type", "image/png")), src["data"]))
    return found[:limit]
