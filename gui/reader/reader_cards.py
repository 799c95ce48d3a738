"""The reader's cards: which events make which card, and what each card says (as rich text).

A branch of events becomes a list of cards: a message, a tool call with the results that
answer it (one card), a subagent run (one foldable card under the call that spawned it,
its own cards inside when opened), a compaction (a divider). A reply's thinking is part of
the reply's card or its tool call's (a line that opens it), never a card of its own, unless
nothing of that reply follows it. Building the list reads
only the outline (ids, kinds, sidechain flags): the events themselves are fetched for
the cards on screen.
"""

from __future__ import annotations

import html
from itertools import repeat
from typing import NamedTuple

from sessionscope.export.render import describe, note_author
from sessionscope.gui.reader.timeline_model import ANSI, clock, command_output, readable
from sessionscope.gui.sessions.session_model import tokens_text
from sessionscope.history import cards as said
from sessionscope.history.richtext import chips_html, code_html, editor_context, markdown_html, plain_html
from sessionscope.safety.untrusted import printable
from sessionscope.store import gcpause

RUN_LOOKBACK = 40  # events before a subagent run searched for the call that spawned it (parallel Tasks are near)

BODY_MAX = 20_000  # characters of a message drawn in its card (the detail pane has all of it)
OUTPUT_LINES = 60  # lines of a tool's output in an opened card
CARD_KIND = {"tool_call": "tool", "thinking": "thinking", "compaction": "divider", "compaction_summary": "summary"}
FOLDABLE = {"tool", "run", "thinking", "summary"}


class Card(NamedTuple):  # a tuple: 200,000 of them are made in a blink
    at: int  # index in the branch (the outline) of the card's event
    kind: str  # event, tool, run, thinking, summary (of a compaction), divider (the compaction itself)
    depth: int = 0  # 1 inside an opened subagent run
    results: tuple[int, ...] = ()  # a tool card: the results answering its call
    size: int = 0  # a run card: how many events the run holds
    thoughts: tuple[int, ...] = ()  # the thinking the card's reply or tool call came from


def folds(card: Card) -> bool:
    """Whether the card opens and shuts (a reply's card does for the thinking it came from)."""
    return card.kind in FOLDABLE or bool(card.thoughts)


def plain(kinds: list[str], sidechain: list[bool], owner: dict[str, str]) -> bool:
    """Whether `build` makes one card an event, in order (no runs, no pairs, no thinking to fold)."""
    return True not in sidechain and not owner and "thinking" not in kinds


def build(ids: list[str], kinds: list[str], sidechain: list[bool], owner: dict[str, str],
          open_runs: set[str], prompts=frozenset()) -> list[Card]:
    """The cards of a branch. `owner` maps a result's id to the call it answers; a result whose call
    is on the branch joins the call's card. A run of subagent events is one card, opened when its
    first event's id is in `open_runs`. Thinking joins the card of the reply or tool call after it
    (`prompts`, the user's prompts, are not replies); thinking nothing follows keeps a card.

    Built on the UI thread as the reader opens, with the collector paused (cards make no cycles: its passes
    over the window's heap, every 700 cards made, were most of the 0.3 s of 200,000 cards)."""
    with gcpause.paused():
        if plain(kinds, sidechain, owner):  # a plain conversation: one card an event, made in C loops
            made = list(map(tuple.__new__, repeat(Card), zip(range(len(kinds)), map(CARD_KIND.get, kinds,
                            repeat("event")), repeat(0), repeat(()), repeat(0), repeat(()))))
        else:
            made = _build(ids, kinds, sidechain, owner, open_runs, prompts)
    gcpause.keep()  # (they live while the reader shows the branch: no full collector pass over them as it scrolls)
    return made


def _build(ids, kinds, sidechain, owner, open_runs, prompts) -> list[Card]:
    index = {eid: i for i, eid in enumerate(ids)}
    results: dict[int, list[int]] = {}
    for result, call in owner.items():
        r, c = index.get(result), index.get(call)
        if r is not None and c is not None:
            results.setdefault(c, []).append(r)
    attached = {r for rs in results.values() for r in rs}

    def card(i: int, depth: int) -> Card:
        found = results.get(i)
        return Card(i, CARD_KIND.get(kinds[i], "event"), depth, tuple(sorted(found)) if found else ())

    out: list[Card] = []
    thinking: list[int] = []  # thinking of the main line, waiting for the card of its reply
    i, n = 0, len(ids)
    while i < n:
        if thinking and (sidechain[i] or kinds[i] != "thinking" and i not in attached):
            if not sidechain[i] and kinds[i] in ("message", "tool_call") and ids[i] not in prompts:
                out.append(card(i, 0)._replace(thoughts=tuple(thinking)))
                thinking.clear()
                i += 1
                continue
            out.extend(card(t, 0) for t in thinking)  # (nothing of its reply came after it)
            thinking.clear()
        if kinds[i] == "thinking" and not sidechain[i] and i not in attached:
            thinking.append(i)
            i += 1
            continue
        if sidechain[i]:
            j = i
            while j < n and sidechain[j]:
                j += 1
            out.append(Card(i, "run", 0, size=j - i))
            if ids[i] in open_runs:
                out.extend(card(k, 1) for k in range(i, j) if k not in attached)
            i = j
            continue
        if i not in attached:
            out.append(card(i, 0))
        i += 1
    out.extend(card(t, 0) for t in thinking)
    return out


def who(e) -> tuple[str, str]:
    """The speaker's name and its colour role: user, assistant, agent, tool, system."""
    if e.sidechain and e.agent_id:
        return f"agent {e.agent_id}", "agent"
    if e.kind == "message":
        return ("You", "user") if e.role == "user" else ((e.role or "assistant").title(), "assistant")
    if e.kind in ("tool_call", "tool_result"):
        return "Tool", "tool"
    if e.kind in ("fact.set", "fact.delete"):
        return ("Fact" if e.kind == "fact.set" else "Fact removed"), "system"
    return e.kind.replace("_", " ").title(), "system"


def tokens_label(e) -> str:
    """What a reply cost, labelled: the context it read and what it wrote (never an unlabelled sum)."""
    parts = []
    if e.tokens_in:
        parts.append(f"ctx {tokens_text(e.tokens_in)}")
    if e.tokens_out:
        parts.append(f"out {tokens_text(e.tokens_out)}")
    return " · ".join(parts)


def is_empty(card: Card, e) -> bool:
    """A reply with nothing to read (its tool calls have their own cards): drawn as nothing."""
    return card.kind == "event" and e.kind == "message" and e.role != "user" and not e.text.strip() \
        and not said.images(e.payload) and not card.thoughts


def _head(name: str, color: str, e, extra: str = "", arrow: str = "") -> str:
    bits = [b for b in (said.model_of(e.payload) if e.kind == "message" else "", clock(e.ts), tokens_label(e)) if b]
    meta = " · ".join(html.escape(b) for b in bits)
    return (f'<p style="margin:0 0 4px 0"><span style="color:{color}"><b>{arrow}{html.escape(name)}</b></span>'
            f'{html.escape(extra)} <span style="color:#888">{meta}</span></p>')


def _body(text: str, dark: bool) -> str:
    output = command_output(text)
    if output is not None:  # a `!` command's or a slash command's output: a terminal's text, not Markdown
        return _output(output, dark)
    chips, text = editor_context(text)  # the IDE's context and reminders: chips, not raw tags
    if chips:
        return chips_html(chips, dark) + (_body(text, dark) if text.strip() else "")
    text = readable(ANSI.sub("", text))
    more = len(text) - BODY_MAX
    text = text[:BODY_MAX] if more > 0 else text
    body = markdown_html(text, dark)
    if more > 0:
        body += f'<p style="color:#888">… {more:,} more characters: the detail pane shows all of it</p>'
    return body


def _output(text: str, dark: bool) -> str:
    lines = ANSI.sub("", text).rstrip("\n").split("\n")
    more = len(lines) - OUTPUT_LINES
    body = code_html("\n".join(lines[:OUTPUT_LINES]), "json" if text.lstrip()[:1] in "{[" else "text", dark)
    return body + (f'<p style="color:#888">… {more:,} more lines (in the detail pane)</p>' if more > 0 else "")


def card_html(card: Card, events: dict, ids: list[str], opened: bool, colors: dict[str, str],
              dark: bool, pinned: bool = False, notes: tuple = ()) -> str | None:
    """The card's rich text, or None while its events are still being read; a pinned card's head is
    marked ⚑, and the notes on its event (NoteViews) follow it, each a tinted block of its Markdown, headed by
    who wrote it (the user, or the model a summary was asked of)."""
    text = _card_html(card, events, ids, opened, colors, dark)
    if text is None:
        return None
    if pinned:
        text = text.replace("<b>", "<b>⚑ ", 1)
    tint = "#4a4020" if dark else "#fff3c4"
    for note in notes:
        by = html.escape(printable(note_author(note)))
        text += (f'<table width="100%" cellpadding="6" style="margin-top:6px; background-color:{tint}"><tr><td>'
                 f'<span style="color:#b08000"><b>✍ {by}</b></span>{markdown_html(note.text[:BODY_MAX], dark)}'
                 "</td></tr></table>")
    return text


def _spawned_as(first, events: dict, ids: list[str], at: int) -> str | None:
    """A subagent run's name from the call that spawned it: the nearest Task (or Agent) call before the run among
    the events read, the one whose prompt or description is the run's first message when several are near."""
    near = []
    for k in range(at - 1, max(-1, at - RUN_LOOKBACK), -1):
        e = events.get(ids[k])
        if e is None or e.sidechain or e.kind != "tool_call":
            continue
        for call in said.calls(e.payload):
            name = said.subagent_name(call)
            if name is None:
                continue
            if first.text.strip() in (str(call.args.get(k, "")).strip() for k in ("prompt", "description", "message", "content")):
                return name
            near.append(name)
    return near[0] if near else None


def _card_html(card: Card, events: dict, ids: list[str], opened: bool, colors: dict[str, str],
               dark: bool) -> str | None:
    e = events.get(ids[card.at])
    if e is None:
        return None
    arrow = ("▾ " if opened else "▸ ") if card.kind in FOLDABLE else ""
    name, role = who(e)
    color = colors[role]
    if card.kind == "run":
        runs = f" · {card.size:,} events · subagent run" + ("" if opened else " (open to read it here)")
        named = _spawned_as(e, events, ids, card.at)  # the Task's own words, not the agent's hex id
        return _head(named or (name if e.agent_id else "subagent"), colors["agent"], e, runs, arrow)
    if card.kind == "divider":
        first = " ".join(e.text.split())[:160]
        return (f'<p align="center" style="color:{colors["system"]}">── compacted here: the conversation before '
                f'was summarised ──{("<br>" + html.escape(first)) if first else ""}</p>')
    if card.kind == "summary":
        words = f" · {len(e.text.split()):,} words"
        head = _head("Summary of the earlier conversation", colors["system"], e, words, arrow)
        return head + (_body(e.text, dark) if opened else "")
    if card.kind == "thinking":
        words = f" · {len(e.text.split()):,} words" if e.text else ""
        head = _head("Thinking", colors["system"], e, words, arrow)
        return head + (f'<p style="color:#888"><i>{plain_html(e.text[:BODY_MAX])}</i></p>' if opened and e.text else "")
    thought, thinking = _thoughts(card, events, ids, opened)
    if card.kind == "tool":
        return _tool_html(card, e, events, ids, opened, colors, dark, arrow, thought, thinking)
    if e.kind == "message" or e.kind in ("system", "fact.set", "fact.delete", "step", "interrupt", "checkpoint"):
        return _head(name, color, e, thought) + thinking + _body(e.text, dark) + _thumbs(e)
    item = describe(e)
    return _head(item.label, color, e) + (_body(item.text, dark) if item.text else "") + \
        (code_html(item.code[:BODY_MAX], item.language, dark) if item.code else "")


def _thoughts(card: Card, events: dict, ids: list[str], opened: bool) -> tuple[str, str]:
    """A card's thinking: what its head says of it (" · ▸ thought · 310 words", the arrow on a card that
    folds for it alone) and, when the card is open, the thinking itself."""
    if not card.thoughts:
        return "", ""
    found = [t for t in (events.get(ids[i]) for i in card.thoughts) if t is not None]
    words = sum(len(t.text.split()) for t in found)
    arrow = "" if card.kind in FOLDABLE else ("▾ " if opened else "▸ ")
    said_of = f" · {arrow}thought" + (f" · {words:,} words" if words else "")
    text = "\n\n".join(t.text for t in found if t.text.strip())
    if not opened or not text:
        return said_of, ""
    return said_of, f'<p style="color:#888"><i>{plain_html(text[:BODY_MAX])}</i></p>'


def _tool_html(card: Card, e, events: dict, ids: list[str], opened: bool, colors: dict, dark: bool,
               arrow: str, thought: str = "", thinking: str = "") -> str:
    results = [events.get(ids[r]) for r in card.results]
    output = "\n".join(r.text for r in results if r is not None)
    calls = said.calls(e.payload)
    plans = [p for c in calls if (p := said.plan_of(c)) is not None]
    # (a plan the user turned down comes back flagged as an error: it is a decision, not a failure)
    error = not plans and any(describe(r).error for r in results if r is not None)
    line = "; ".join(said.summary(c, output, error) for c in calls) if calls else (e.text.split("\n")[0][:120]
                                                                                    or "Tool call")
    color = colors["error"] if error else colors["tool"]
    head = (f'<p style="margin:0"><span style="color:{color}"><b>{arrow}{html.escape(line)}</b></span>'
            f' <span style="color:#888">{html.escape(clock(e.ts))}'
            f'{" · " + str(len(results)) + " results" if len(results) > 1 else ""}'
            f'{" · no result" if not card.results else ""}{html.escape(thought)}</span></p>')
    if not opened:
        return head
    parts = [head, thinking]
    # a plan as the Markdown it is; any other call as its diff, or its input
    parts += [markdown_html(plan[:BODY_MAX], dark) for plan in plans]
    for c in [] if plans else calls or [None]:
        change = said.diff(c) if c is not None else ""
        if change:
            parts.append(code_html(change, "diff", dark))
        else:
            item = describe(e)
            if item.code:
                parts.append(code_html(item.code[:BODY_MAX], item.language, dark))
            break
    for r in results:
        if r is not None and r.text.strip():
            label = "error" if describe(r).error else "output"
            parts.append(f'<p style="margin:4px 0 0 0; color:#888">{label}</p>' + _output(r.text, dark))
    return "".join(parts)


def _thumbs(e) -> str:
    found = said.images(e.payload)
    return "".join(f'<img src="img:{html.escape(e.id)}:{n}">' for n in range(len(found)))


def plain_text(card: Card, events: dict, ids: list[str]) -> str:
    """The card as plain text (Copy without a selection)."""
    e = events.get(ids[card.at])
    if e is None:
        return ""
    out = [readable(ANSI.sub("", e.text))]
    if card.kind == "tool":
        out = ["; ".join(said.summary(c) for c in said.calls(e.payload)) or e.text]
        out += [events[ids[r]].text for r in card.results if ids[r] in events]
    return "\n\n".join(t for t in out if t)
