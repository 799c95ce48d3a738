"""Aider's chat history (`.aider.chat.history.md` in the repository's root), read only (FORMATS.md §6).

Markdown, appended: each `# aider chat started at …` begins a session. `#### ` lines
are the user's prompt, `> ` lines what aider printed (its command line, the model,
`Tokens: 2.4k sent, 104 received.`, `Applied edit to …`, `Commit <sha> <msg>`), and
the rest the model's reply. There are no ids, no tree and no tool calls: events are
derived from position and content, tokens go to the reply they were printed after,
and edited files and commits are facts. The file is read whole when it changes.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import uuid
from pathlib import Path

from sessionscope.sources import jsonl
from sessionscope.sources.documents import Transcript, read_whole
from sessionscope.sources.scan import importer

KIND = "aider"
NS = uuid.UUID("c4b3a2d1-5e6f-4a7b-8c9d-0e1f2a3b4c5d")
STARTED = "# aider chat started at "
_TOKENS = re.compile(r"Tokens: ([\d.,]+)([km]?) sent,.*?([\d.,]+)([km]?) received", re.I)
_MODEL = re.compile(r"^Model: (\S+)")
_APPLIED = re.compile(r"^Applied edit to (.+)$")
_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40}) (.*)$")


def default_roots() -> list[Path]:
    return []  # the history lives in each repository: add the repository (or the file)


def claims(path: Path) -> bool:
    """Whether a Markdown file is an Aider chat history, by its content: a session header, or aider's
    prompt (`#### `) and output (`> `) lines."""
    if path.suffix != ".md" or not jsonl.is_regular(path):
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192).decode("utf-8", "replace")
    except OSError:
        return False
    lines = head.splitlines()
    if any(line.startswith(STARTED) for line in lines):
        return True
    return any(line.startswith("#### ") for line in lines) and any(line.startswith("> ") for line in lines)


def session_files(root: Path) -> list[Path]:
    found = [Path(d) / n for d, dirs, names in os.walk(root) for n in names
             if n.endswith(".md") and claims(Path(d) / n)]
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))



def _count(number: str, unit: str) -> int:
    return int(float(number.replace(",", "")) * {"": 1, "k": 1_000, "m": 1_000_000}[unit.lower()])


def _started(line: str) -> float | None:
    try:
        return dt.datetime.strptime(line[len(STARTED):].strip(), "%Y-%m-%d %H:%M:%S").timestamp()
    except ValueError:
        return None


def build(path: Path, data: bytes) -> list[Transcript]:
    text = data.decode("utf-8", "replace")
    out: list[Transcript] = []
    mtime = path.stat().st_mtime
    runs: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        if line.startswith(STARTED):
            runs.append((line, []))
        else:
            runs[-1][1].append(line)
    for n, (header, lines) in enumerate(runs):
        if not any(x.strip() for x in lines):
            continue
        t = Transcript(NS, str(uuid.uuid5(NS, f"{path.absolute()}:{n}:{header}")), ts=_started(header) or mtime)
        t.tool_id = header[len(STARTED):].strip() if header else None
        t.fields |= {"cwd": str(path.parent.absolute()), "project": path.parent.name}
        t.meta["history_file"] = str(path)
        _session(t, lines)
        out.append(t)
    return out


def _session(t: Transcript, lines: list[str]) -> None:
    block: list[str] = []
    kind = ""
    last_reply = None
    files: list[str] = []
    commits: list[str] = []

    def flush() -> None:
        nonlocal last_reply
        body = "\n".join(block).strip("\n")
        if not body.strip():
            return
        if kind == "prompt":
            t.add("message", "user", body, {"markdown": body})
            t.title(body)
        elif kind == "output":
            # what aider printed (edits applied, commits) belongs to the session as it stands: a head
            t.add("system", "tool", body, {"markdown": body, "aider_output": True}, head=True)
            for line in body.splitlines():
                if (m := _TOKENS.search(line)) and last_reply is not None:
                    last_reply.tokens_in, last_reply.tokens_out = _count(m[1], m[2]), _count(m[3], m[4])
                elif m := _MODEL.match(line):
                    t.fields["model"] = m[1]
                elif (m := _APPLIED.match(line)) and m[1] not in files:
                    files.append(m[1])
                    t.fact("files", list(files))
                elif m := _COMMIT.match(line):
                    commits.append(f"{m[1]} {m[2]}")
                    t.fact("commits", list(commits))
        else:
            last_reply = t.add("message", "assistant", body, {"markdown": body})

    fenced = False  # inside a reply's ``` block (an edit's `>>>>>>> REPLACE` is not aider's output)
    for line in lines:
        if kind == "reply" and line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            what, content = "reply", line
        elif line.startswith("#### "):
            what, content = "prompt", line[5:].rstrip()
        elif line.startswith("> ") or line.rstrip() == ">":
            what, content = "output", line[2:].rstrip()
        else:
            what, content = "reply", line
        if what != kind:
            flush()
            block, kind = [], what
        block.append(content)
    flush()


import_paths = importer(KIND, session_files, read_whole(build), "Aider chat histories")
