"""Markdown: a readable transcript at one of three detail levels.

Prompts only; the conversation; or everything, with tool calls, results and
thinking. Subagent runs are nested (as block quotes) under the call that spawned
them. Prose is written as the agent and the user wrote it (it is Markdown
already); code and tool output go in fences longer than any backticks inside.
"""

from __future__ import annotations

from typing import IO

from .core import EventStream
from .render import fence, steps, titled_lineage, when


def write(store, stream: EventStream, fh: IO[str], request) -> None:
    for index, part in enumerate(stream.parts):
        s = stream.session(part)
        if index:
            fh.write("\n---\n\n")
        fh.write(f"# {s.title or 'Untitled session'}\n\n")
        facts = [("Session", f"`{s.id}`"), ("Source", s.source_kind), ("Project", s.project or s.cwd),
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
                fh.write(f"- **{k}:** {v}\n")
        fh.write("\n")
        for step in steps(store, stream, index, request.detail):
            quote = "> " if step.event is not None and step.event.sidechain else ""
            if step.what == "boundary":
                fh.write(f"*— the branch continues in session `{step.text[:8]}` (forked here) —*\n\n")
            elif step.what == "run_start":
                fh.write(f"> **Subagent run** `{step.text}`\n>\n")
            elif step.what == "mark":
                _block(fh, quote, f"*⎇ {step.text}*")
            elif step.what == "event":
                item = step.item
                _block(fh, quote, f"**{item.label}** · {when(step.event.ts)}{step.tokens}")
                if item.text:
                    _block(fh, quote, item.text)
                if item.code:
                    f = fence(item.code)
                    _block(fh, quote, f"{f}{item.language if item.language != 'text' else ''}\n{item.code}\n{f}")


def _block(fh: IO[str], quote: str, text: str) -> None:
    if quote:
        text = "\n".join(quote + line if line else quote.rstrip() for line in text.split("\n"))
    fh.write(text + "\n" + (quote.rstrip() + "\n" if quote else "\n"))
