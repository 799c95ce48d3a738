"""Summarize (#33, optional: the `[managed]` extra and an Anthropic key): a title and a short summary of a
session, written by a model the user asks, kept as a note marked generated (`note.generated_by`).

Nothing is sent unless the user asks, and what is sent is shown first: `summary_request` builds the text (the
branch shown as prompts, replies and one line per tool call, redacted with the export's redaction rules:
the same patterns and placeholders), the front end shows it, and `summarize` sends exactly that text through
Anthropic's own client (the key from ANTHROPIC_API_KEY or the system keyring, as managed agents use it).

The title becomes the session's title unless the user named it: a rename the user made always wins (one
recorded in the audit log by anyone but Summarize itself), and is never overwritten.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from sessionscope.errors import InvalidInput, Refused
from sessionscope.history.cards import calls, summary
from sessionscope.history.read_models import Action, Changes
from sessionscope.ops.sessions import act, rename
from sessionscope.recall import notes

if TYPE_CHECKING:
    from sessionscope.history.read_models import SessionView
    from sessionscope.sources.base import Source
    from sessionscope.store.api import Store

DEFAULT_MODEL = "claude-haiku-4-5"
SEND_BUDGET = 40_000  # characters of the session sent at most: its start and its end when it is longer
REPLY_TOKENS = 600
SUMMARIZER = "summarize"  # the actor its own renames are recorded under (a user's rename is anyone else's)
SYSTEM = (
    "You summarize a session of an AI coding agent for the person who ran it, who has hundreds of them and "
    "wants to recognise this one. Answer with one JSON object and nothing else: "
    '{"title": "at most 8 words, what the session was for", '
    '"summary": "2 to 4 sentences: what was asked, what was done, how it ended or where it stopped"}. '
    "Secrets in the text were replaced by placeholders such as [REDACTED:aws-key:1a2b3c]; leave them as they are."
)


def summary_request(store: Store, session_id: str, budget: int = SEND_BUDGET) -> str:
    """The text Summarize would send for the session, redacted; show it to the user before `summarize`."""
    from sessionscope.export.core import redactor_for

    s = store.session(session_id)
    lines = []
    for e in store.branch(session_id):
        if e.kind == "message" and e.role in ("user", "assistant") and e.text.strip():
            lines.append(f"{'User' if e.role == 'user' else 'Agent'}: {e.text.strip()}")
        elif e.kind == "tool_call":
            said = [summary(c) for c in calls(e.payload)] or [e.text[:200]]
            lines += [f"Agent used a tool: {x}" for x in said]
        elif e.kind == "compaction" and e.text.strip():
            lines.append(f"(Earlier part of the session, summarized by the agent: {e.text.strip()})")
    body = "\n\n".join(lines)
    if len(body) > budget:  # its start (what was asked) and its end (where it stopped)
        head = budget * 2 // 3
        body = body[:head] + f"\n\n[… {len(body) - budget:,} characters left out …]\n\n" + body[-(budget - head):]
    header = f"Session title so far: {s.title or '(none)'}\nProject: {s.project or s.cwd or '(unknown)'}\n\n"
    return redactor_for(store).redact_text(header + body, f"session {session_id[:8]}")


def _parsed(reply: str) -> tuple[str, str]:
    """(title, summary) from the model's answer: JSON, possibly fenced; or, failing that, its first line and
    the rest."""
    text = reply.strip()
    found = re.search(r"\{.*\}", text, re.S)
    if found:
        try:
            data = json.loads(found.group(0))
            title, said = str(data.get("title") or "").strip(), str(data.get("summary") or "").strip()
            if title or said:
                return " ".join(title.split())[:120], said
        except (json.JSONDecodeError, AttributeError):
            pass
    first, _, rest = text.partition("\n")
    return " ".join(first.strip("# *").split())[:120], rest.strip()


def user_named(store: Store, session_id: str) -> bool:
    """Whether the user renamed the session (a rename recorded by anyone but Summarize)."""
    return any(a["action"] == Action.RENAME and a["outcome"] == "ok"
               and not (a.get("actor") or "").endswith(f" via {SUMMARIZER}") for a in store.audit_log(session_id))


def summarize(store: Store, session_id: str, sent: str, *, model: str = DEFAULT_MODEL, location: str | None = None,
              actor: str | None = None) -> Changes:
    """Send `sent` (what `summary_request` gave and the user saw) to Anthropic's Messages API; the answer
    becomes a generated note on the session (`changes.detail["note"]`) and, unless the user named the session,
    its title. Recorded as summarize with the model, what was sent (its size) and the note."""
    from sessionscope.sources.managed_agents.client import api_errors, connect, location_of

    if not sent.strip():
        raise InvalidInput("there is nothing to send: the session has no prompt or reply yet")

    def work(_src: Source, s: SessionView) -> Changes:
        client = connect(location or location_of(None))
        with api_errors("summarize the session"):
            reply = client.messages.create(model=model, max_tokens=REPLY_TOKENS, system=SYSTEM,
                                           messages=[{"role": "user", "content": sent}])
        text = "".join(getattr(b, "text", "") for b in reply.content if getattr(b, "type", "") == "text")
        title, said = _parsed(text)
        if not (title or said):
            raise Refused("the model answered with nothing to keep")
        body = f"**{title}**\n\n{said}".strip() if title else said
        note = store.write(notes.add, s.id, body, None, model)
        renamed = False
        if title and not user_named(store, s.id):
            try:
                rename(store, s.id, title, actor=SUMMARIZER)
                renamed = True
            except (Refused, InvalidInput):
                pass  # a tool that keeps no title (its rule): the note holds it
        usage = getattr(reply, "usage", None)
        return Changes(Action.SUMMARIZE, session_ids=frozenset({s.id}), session_list=True, session=store.session(s.id),
                       detail={"model": model, "sent_chars": len(sent), "note": note.as_dict(), "title": title,
                               "renamed": renamed,
                               "tokens": [getattr(usage, "input_tokens", 0), getattr(usage, "output_tokens", 0)]})
    return act(store, "summarize", session_id, work, actor=actor)
