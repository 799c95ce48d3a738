"""What a reader sees of an event, shared by the Markdown and HTML writers.

An event becomes an `Item`: who speaks, the prose, and the code to highlight (a
tool call's input, a command, a file written, a tool's output). Items are
taken from the raw payload where it holds more than the stored text (tool text
is kept to 16 KB in the store's text column; an export gives all of it).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, replace
from typing import Any

import orjson

from sessionscope.history import pairing
from sessionscope.history.read_models import EventView
from sessionscope.history.richtext import editor_context

# kinds shown at each detail level
LEVELS = {
    "prompts": frozenset({"prompt"}),
    "conversation": frozenset({"prompt", "reply", "compaction"}),
    "full": frozenset({"prompt", "reply", "compaction", "thinking", "tool_call", "tool_result", "fact", "system"}),
}


@dataclass(frozen=True)
class Item:
    kind: str  # prompt, reply, thinking, tool_call, tool_result, compaction, fact, system, other
    label: str
    text: str = ""
    code: str = ""
    language: str = "text"
    error: bool = False


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if ts else ""


def _payload(e: EventView) -> Any:
    if not e.payload or e.payload[0] not in "{[":
        return None
    try:
        return orjson.loads(e.payload)
    except orjson.JSONDecodeError:
        return None


def _content(p: Any) -> Any:
    msg = p.get("message") if isinstance(p, dict) else None
    return msg.get("content") if isinstance(msg, dict) else None


def _blocks_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    out = []
    for b in content if isinstance(content, list) else ():
        if isinstance(b, dict):
            if b.get("type") == "text":
                out.append(str(b.get("text", "")))
            elif b.get("type") == "image":
                out.append("[image]")
            elif b.get("type") == "tool_result":
                out.append(_blocks_text(b.get("content", "")))
    return "\n".join(out)


def _language_for(path: str) -> str:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound
    try:
        return get_lexer_for_filename(path).aliases[0]
    except (ClassNotFound, IndexError):
        return "text"


def _tool_call(name: str, args: Any) -> Item:
    if name.lower() == "exitplanmode" and isinstance(args, dict) and isinstance(args.get("plan"), str):
        return Item("tool_call", "Plan", args["plan"])  # the plan is Markdown: written as prose, not as JSON
    if isinstance(args, dict):
        if isinstance(args.get("command"), str):
            return Item("tool_call", f"Tool call · {name}", args.get("description", "") or "", args["command"], "bash")
        if isinstance(args.get("file_path"), str) and isinstance(args.get("content"), str):
            return Item("tool_call", f"Tool call · {name} · {args['file_path']}", "", args["content"],
                        _language_for(args["file_path"]))
    code = json.dumps(args, indent=2, ensure_ascii=False) if args is not None else ""
    return Item("tool_call", f"Tool call · {name}", "", code, "json")


def describe(e: EventView) -> Item:
    """The event as a reader sees it."""
    k = e.kind
    if k == "message":
        if e.role == "user":
            chips, rest = editor_context(e.text)  # the IDE's context and reminders: a line of labels, not tags
            said = " ".join(f"[{label}]" for label, _body in chips)
            # "You", as the app's reader says it (the export is the user's own record)
            return Item("prompt", "You", f"{said}\n\n{rest.strip()}" if chips else e.text)
        return Item("reply", "Assistant" if e.role == "assistant" else (e.role or "Message").title(), e.text)
    if k == "thinking":
        return Item("thinking", "Thinking", e.text)
    if k in ("compaction", "compaction_summary"):
        return Item("compaction", "Compaction", e.text)
    if k in ("fact.set", "fact.delete"):
        return Item("fact", "Fact", e.text)
    if k == "system":
        return Item("system", "System", e.text)
    if k == "checkpoint":
        return Item("system", "Checkpoint", e.text)
    if k in ("step", "interrupt"):  # a graph's checkpoint, and what it paused on (LangGraph)
        return Item("system", k.title(), e.text)
    p = _payload(e)
    if k == "tool_call":
        content = _content(p)
        if isinstance(content, list):
            uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
            if uses:
                item = _tool_call(str(uses[0].get("name", "")), uses[0].get("input"))
                if len(uses) > 1:  # several calls on one line: the rest as JSON
                    rest = json.dumps([{"name": u.get("name"), "input": u.get("input")} for u in uses[1:]],
                                      indent=2, ensure_ascii=False)
                    item = Item(item.kind, item.label + f" (+{len(uses) - 1})", item.text, item.code + "\n" + rest,
                                item.language)
                return item
        if isinstance(p, dict) and "name" in p:
            return _tool_call(str(p["name"]), p.get("input", p.get("arguments")))
        return Item("tool_call", "Tool call", "", e.text)
    if k == "tool_result":
        content = _content(p)
        error = False
        if isinstance(content, list):
            error = any(isinstance(b, dict) and b.get("is_error") for b in content)
            output = _blocks_text(content)
        elif isinstance(p, dict) and isinstance(p.get("output"), str):
            output = p["output"]
            error = p.get("is_error") is True  # the tools read as documents say it so (documents.Transcript.result)
        else:
            output = e.text
        language = "json" if output.lstrip()[:1] in ("{", "[") else "text"
        return Item("tool_result", "Tool error" if error else "Tool result", "", output, language, error)
    return Item("other", k.title(), e.text)


def shown(item: Item, detail: str) -> bool:
    return item.kind in LEVELS[detail]


def fence(code: str) -> str:
    """A Markdown code fence longer than any run of backticks inside `code`."""
    longest, run = 0, 0
    for ch in code:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def note_author(note) -> str:
    """Who wrote a note, as the exports and the reader say it: the user, or the model Summarize asked."""
    if not note.generated_by:
        return "Your note"
    # the model's name as written (an imported export's could be anything: only a model id's characters pass)
    name = note.generated_by if re.fullmatch(r"[\w.:@/-]{1,80}", note.generated_by) else "a model"
    return f"Summary by {name} (generated)"


@dataclass(frozen=True)
class Step:
    """One thing a reading format writes, in order: a session boundary on the branch, the
    start or end of a subagent run, a shown event, or a note on branches leaving an event."""

    what: str  # "boundary", "run_start", "run_end", "pair_start", "pair_end" (a call and its results), "event", "mark",
    # "note" (the user's, #33: after its event, or with no event first, on the whole session)
    event: EventView | None = None
    item: Item | None = None
    text: str = ""  # the session id (boundary), the agent (run), the note (mark, note)
    by: str = ""  # a note's author, said above it: "Your note", or the model's summary (Summarize, #33)

    @property
    def tokens(self) -> str:
        e = self.event
        return f" · {e.tokens_in + e.tokens_out:,} tokens" if e and (e.tokens_in or e.tokens_out) else ""


# what the reader never draws as a card: the outline leaves them out (a Claude Code checkpoint line is the
# files of the prompt before it, shown with that prompt in the app, not a card of its own)
NOT_CARDS = frozenset({"progress", "meta", "checkpoint", "context"})


def empty_reply(e: EventView) -> bool:
    """A reply with nothing to read (its tool calls are cards of their own): the reader draws nothing."""
    from sessionscope.history.cards import images
    return e.kind == "message" and e.role != "user" and not e.text.strip() and not images(e.payload)


def reading_order(store, ids: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The branch's events in the order the reader's cards show them: each in its place, except a tool result
    whose call is on the branch, which comes right after that call (and its earlier results), as the reader
    puts it in the call's card; and {call: its results}. Reads every event's kind and the tool events'
    payloads (to pair them by the tools' own ids, sessionscope.history.pairing), keeping only the ids they name."""
    import sqlalchemy as sa

    from sessionscope.store.schema import EVENT
    info: dict[str, tuple[str, bool]] = {}
    said: dict[str, dict] = {}  # a tool event's payload cut down to the ids it names (payloads are not kept)
    with store.reader() as conn:
        for n in range(0, len(ids), 500):
            chunk = ids[n:n + 500]
            for eid, kind, side in conn.execute(sa.select(EVENT.c.id, EVENT.c.kind, EVENT.c.sidechain)
                                                .where(EVENT.c.id.in_(chunk))):
                info[eid] = (kind, bool(side))
            tools = [i for i in chunk if info.get(i, ("",))[0] in (pairing.CALL, pairing.RESULT)]
            for eid, payload in conn.execute(sa.select(EVENT.c.id, EVENT.c.payload).where(EVENT.c.id.in_(tools))) \
                    if tools else ():
                if info[eid][0] == pairing.CALL:
                    blocks = [{"type": "tool_use", "id": c} for c in pairing.call_ids(payload)]
                else:
                    blocks = [{"type": "tool_result", "tool_use_id": c} for c in pairing.answered(payload)]
                said[eid] = {"message": {"content": blocks}}
    owner = pairing.pair((i, info[i][0], said.get(i), info[i][1]) for i in ids if i in info)
    answers: dict[str, list[str]] = {}
    for i in ids:
        if i in owner:
            answers.setdefault(owner[i], []).append(i)
    return [x for i in ids if i not in owner for x in (i, *answers.get(i, ()))], answers


def steps(store, stream, index: int, detail: str):
    """The reading of part `index` at `detail`: what Markdown and HTML both write, in the reader's card
    order (`reading_order`: a tool call is followed by the results the reader puts in its card, even where
    calls run in parallel, a subagent runs between a call and its result, or a note comes between them);
    the lines the reader does not draw (empty replies, checkpoint and progress lines) are not written."""
    part = stream.parts[index]
    lineage = store.lineage(part.session.id)
    marks = store.branch_points(part.session.id)
    state = {"current": lineage[0].id, "agent": None}
    called: dict[str, str] = {}  # a call's id → what its output is labelled with
    order, answers = (None, {}) if part.whole_log else reading_order(store, stream.ids(index))
    held: dict[str, EventView | None] = {}  # read before their turn (None: not written)
    at = 0
    card: set[str] = set()  # the results still to come in the open card of a call and its results
    thinking: list[tuple[EventView, Item]] = []  # a reply's thinking, held for the card of what it led to
    notes: dict[str | None, list] = {}
    for n in store.notes(part.session.id):
        notes.setdefault(n.event_id, []).append(n)

    def after(e: EventView):
        """What follows an event written: the notes on branches leaving it, and the user's notes on it."""
        for note in marks.get(e.id, ()):
            yield Step("mark", e, text=stream.text(note, "a branch note"))
        for note in notes.get(e.id, ()):
            yield Step("note", e, text=stream.text(note.text, "your note"), by=note_author(note))

    def thought():
        for t, t_item in thinking:
            yield Step("event", t, t_item)
            yield from after(t)
        thinking.clear()

    for note in notes.get(None, ()):
        yield Step("note", text=stream.text(note.text, "your note on the session"), by=note_author(note))

    def step(e: EventView):
        if e.kind in NOT_CARDS or empty_reply(e):
            return
        if card and e.id not in card:  # (a result that is not written: the card ends all the same)
            card.clear()
            yield Step("pair_end")
        # as in the reader: thinking opens the card of the reply or tool call it led to; else its own
        joins = not e.sidechain and (e.kind == pairing.CALL or e.kind == "message" and e.role != "user")
        if thinking and not joins and e.kind != "thinking":
            yield from thought()
        if e.session_id != state["current"] and not e.sidechain:
            state["current"] = e.session_id
            yield Step("boundary", text=e.session_id)
        item = _labelled(e, called)
        if not shown(item, detail) or (detail == "prompts" and e.sidechain):
            return
        run = e.agent_id or "?" if e.sidechain else None
        if run != state["agent"]:
            if state["agent"] is not None:
                yield Step("run_end", text=state["agent"])
            if run is not None:
                yield Step("run_start", text=run)
            state["agent"] = run
        if e.kind == "thinking" and not e.sidechain:
            thinking.append((e, item))
            return
        grouped = bool(thinking)
        if grouped:
            yield Step("pair_start", e)
            yield from thought()
        if e.kind == pairing.CALL and answers.get(e.id):
            card.update(answers[e.id])
            if not grouped:
                yield Step("pair_start", e)
            grouped = False  # (the card ends with the call's last result)
        yield Step("event", e, item)
        yield from after(e)
        if grouped:
            yield Step("pair_end")
        if card and e.id in card:
            card.discard(e.id)
            if not card:
                yield Step("pair_end")

    for e in stream.events(index):
        if order is None:
            yield from step(e)
            continue
        held[e.id] = e  # (events come in branch order; a result the reader moves up waits here for its turn)
        while at < len(order) and order[at] in held:
            if (turn := held.pop(order[at])) is not None:
                yield from step(turn)
            at += 1
    for eid in order[at:] if order is not None else ():  # (an id the stream did not give: nothing to write)
        if held.get(eid) is not None:
            yield from step(held.pop(eid))
    if card:
        yield Step("pair_end")
    yield from thought()  # (thinking nothing followed: its own card)
    if state["agent"] is not None:
        yield Step("run_end", text=state["agent"])


def _labelled(e: EventView, called: dict[str, str]) -> Item:
    """An event's item, a tool result labelled with the call it answers (`called`: each call's id → its label, kept
    up as the calls go by)."""
    item = describe(e)
    if e.kind == "tool_call":
        for cid in pairing.call_ids(e.payload):
            called[cid] = item.label.removeprefix("Tool call · ")
    elif e.kind == "tool_result":
        name = next((called[c] for c in pairing.answered(e.payload) if c in called), None)
        if name and name != "Tool call":
            item = replace(item, label=f"{item.label} · {name}")
    return item


def titled_lineage(store, stream, part) -> list[tuple[str, str]]:
    """(id, title) from the oldest origin to this session, titles redacted when asked."""
    return [(x.id, stream.text(x.title, f"session {x.id[:8]} · title")) for x in store.lineage(part.session.id)]


def tool_name(kind: str) -> str:
    """The tool's name ("Claude Code") for the store's kind of source ("claude_code"), as exports say it."""
    from sessionscope import sources
    return sources.of(kind).label if kind in sources.kinds() else kind
