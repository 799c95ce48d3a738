"""Markdown: a readable transcript at one of three detail levels.

Prompts only; the conversation; or everything, with tool calls, results and
thinking. Subagent runs are nested (as block quotes) under the call that spawned
them. Prose is written as the agent and the user wrote it (it is Markdown
already); code and tool output go in fences longer than any backticks inside.
"""

from __future__ import annotations

from typing import IO

from .core import EventStream
from .render import describe, fence, shown, when


def write(store, stream: EventStream, fh: IO[str], request) -> None:
    for index, part in enumerate(stream.parts):
        s = stream.session(part)
        if index:
            fh.write("\n---\n\n")
        fh.write(f"# {s.title or 'Untitled session'}\n\n")
        facts = [("Session", f"`{s.id}`"), ("Source", s.source_kind), ("Project", s.project or s.cwd),
                 ("Model", s.model), ("Started", when(s.created_at)), ("Last activity", when(s.updated_at)),
                 ("Tokens", f"{s.tokens_in:,} in / {s.tokens_out:,} out" if s.tokens_in or s.tokens_out else "")]
        chain = [(x.id, stream.text(x.title, f"session {x.id[:8]} · title"))
             for x in store.lineage(part.session.id)]
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
        marks = {k: [stream.text(n, "a branch note") for n in v]
             for k, v in store.branch_points(part.session.id).items()}
        current_session, agent = part.session.id if len(chain) == 1 else chain[0][0], None
        for e in stream.events(index):
            if e.session_id != current_session and not e.sidechain:
                current_session = e.session_id
                fh.write(f"*— the branch continues in session `{e.session_id[:8]}` (forked here) —*\n\n")
            item = describe(e)
            if not shown(item, request.detail) or (request.detail == "prompts" and e.sidechain):
                continue
            quote = "> " if e.sidechain else ""
            if e.sidechain and e.agent_id != agent:
                fh.write(f"> **Subagent run** `{e.agent_id or '?'}`\n>\n")
            agent = e.agent_id if e.sidechain else None
            tokens = f" · {e.tokens_in + e.tokens_out:,} tokens" if e.tokens_in or e.tokens_out else ""
            _block(fh, quote, f"**{item.label}** · {when(e.ts)}{tokens}")
            if item.text:
                _block(fh, quote, item.text)
            if item.code:
                f = fence(item.code)
                _block(fh, quote, f"{f}{item.language if item.language != 'text' else ''}\n{item.code}\n{f}")
            for note in marks.get(e.id, ()):
                _block(fh, quote, f"*⑂ {note}*")


def _block(fh: IO[str], quote: str, text: str) -> None:
    if quote:
        text = "\n".join(quote + line if line else quote.rstrip() for line in text.split("\n"))
    fh.write(text + "\n" + (quote.rstrip() + "\n" if quote else "\n"))
