"""Markdown: a readable transcript at one of three detail levels.

Prompts only; the conversation; or everything, with tool calls, results and
thinking. Subagent runs are nested (as block quotes) under the call that spawned
them. Prose is written as the agent and the user wrote it (it is Markdown
already); code and tool output go in fences longer than any backticks inside. What a transcript holds is
untrusted: raw HTML in prose (`<script>`, `<img onerror>`) is escaped so any Markdown renderer shows it as
text, and control characters (ESC) are written visibly escaped, in prose and code alike.
"""

from __future__ import annotations

import re
from typing import IO

from sessionscope.export.core import EventStream
from sessionscope.export.render import fence, steps, titled_lineage, tool_name, when
from sessionscope.history.addresses import link
from sessionscope.safety.untrusted import printable


def write(store, stream: EventStream, fh: IO[str], request) -> None:
    for index, part in enumerate(stream.parts):
        s = stream.session(part)
        if index:
            fh.write("\n---\n\n")
        fh.write(f"# {prose(s.title or 'Untitled session')}\n\n")
        facts = [("Session", f"`{s.id}`"), ("Starred", "★" if s.starred else ""), ("Tool", tool_name(s.source_kind)),
                 ("Project", s.project or s.cwd),
                 ("Model", s.model), ("Started", when(s.created_at)), ("Last activity", when(s.updated_at)),
                 ("Tokens", f"{s.tokens_in:,} in / {s.tokens_out:,} out" if s.tokens_in or s.tokens_out else "")]
        chain = titled_lineage(store, stream, part)
        if len(chain) > 1:
            facts.append(("Forked from", " → ".join(f"“{t or i[:8]}”" for i, t in chain)))
        if part.head:
            facts.append(("Branch", f"root → `{part.head}`"))
        facts.append(("Detail", {"prompts": "user prompts only", "conversation": "conversation",
                                 "full": "full (tool calls, results, thinking)"}[request.detail]))
        for k, v in facts:
            if v:
                fh.write(f"- **{k}:** {prose(str(v))}\n")
        fh.write(f"- [Open in Sessionscope](<{link(s.id)}>)\n\n")
        for step in steps(store, stream, index, request.detail):
            quote = "> " if step.event is not None and step.event.sidechain else ""
            if step.what == "boundary":
                fh.write(f"*— the branch continues in session `{step.text[:8]}` (forked here) —*\n\n")
            elif step.what == "run_start":
                fh.write(f"> **Subagent run** `{step.text}`\n>\n")
            elif step.what == "mark":
                _block(fh, quote, f"*⎇ {step.text}*")
            elif step.what == "note":
                _block(fh, quote, f"> ✍ **{step.by}:** " + prose(step.text).replace("\n", "\n> "))
            elif step.what == "event":
                item = step.item
                _block(fh, quote, f"**{item.label}** · {when(step.event.ts)}{step.tokens}")
                if item.text:
                    _block(fh, quote, prose(item.text))
                if item.code:
                    code = _visible(item.code)
                    f = fence(code)
                    _block(fh, quote, f"{f}{item.language if item.language != 'text' else ''}\n{code}\n{f}")


def _block(fh: IO[str], quote: str, text: str) -> None:
    if quote:
        text = "\n".join(quote + line if line else quote.rstrip() for line in text.split("\n"))
    fh.write(text + "\n" + (quote.rstrip() + "\n" if quote else "\n"))


_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_SPAN_RE = re.compile(r"(`+)(?:.+?)\1", re.S)
_TAG_RE = re.compile(r"<(?=[A-Za-z/!?])")


def _visible(text: str) -> str:
    """Control characters escaped (ESC as \\e), tabs and line breaks kept."""
    return printable(text, keep_newlines=True, keep_tabs=True)


def prose(text: str) -> str:
    """Markdown as the agent wrote it, except what a renderer would run or obey: a `<` that opens a tag is
    written `&lt;` outside code spans and fences (where a renderer shows it as it is), and control
    characters are escaped."""
    out, fenced = [], None
    for line in _visible(text).split("\n"):
        opened = _FENCE_RE.match(line)
        if fenced is not None:
            if opened and opened.group(1)[0] == fenced[0] and len(opened.group(1)) >= len(fenced):
                fenced = None
            out.append(line)
        elif opened:
            fenced = opened.group(1)
            out.append(line)
        else:
            out.append(_escape_tags(line))
    return "\n".join(out)


def _escape_tags(line: str) -> str:
    parts, at = [], 0
    for code in _CODE_SPAN_RE.finditer(line):
        parts += [_TAG_RE.sub("&lt;", line[at:code.start()]), code.group()]
        at = code.end()
    parts.append(_TAG_RE.sub("&lt;", line[at:]))
    return "".join(parts)
