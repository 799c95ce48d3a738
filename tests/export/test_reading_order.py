"""One rendering: the Markdown and HTML exports read as the app's reader does. For sessions of every tool in
the corpus, the events a full export writes are the reader's cards in order, each tool call followed by the
results the reader puts in its card (paired by the tools' own ids), and nothing the reader leaves out (an
empty reply, a checkpoint or a progress line)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("PySide6.QtWidgets")

from sessionscope.export.core import EventStream, ExportRequest, export, plan  # noqa: E402
from sessionscope.export.render import NOT_CARDS, describe, empty_reply, shown, steps  # noqa: E402


def _reader_sequence(store, sid: str) -> list[str]:
    """The event ids the reader shows for a session's head branch, card by card (every subagent run opened),
    a tool card's results right after its call; the kinds a full export shows."""
    from sessionscope.gui.reader.branch_pane import HIDDEN_KINDS
    from sessionscope.gui.reader.reader_cards import build
    outline = store.branch_outline(sid, None, HIDDEN_KINDS, include_subagents=True)
    ids, kinds, side = outline.ids, outline.kinds, outline.sidechain
    owner = store.tool_pairs(ids, kinds, side)
    runs = {ids[i] for i in range(len(ids)) if side[i] and (i == 0 or not side[i - 1])}
    order = []
    for card in build(ids, kinds, side, owner, runs, outline.turn_tokens.keys()):
        if card.kind == "run":
            continue  # opened: its events are the cards after it
        # (a reply's thinking is in its card, before it: the export writes it as its own block, before it)
        order += [*(ids[t] for t in card.thoughts), ids[card.at], *(ids[r] for r in card.results)]
    events = {e.id: e for e in store.events_by_ids(order)}
    return [i for i in order if i in events and shown(describe(events[i]), "full") and not empty_reply(events[i])
            and events[i].kind not in NOT_CARDS]


def _export_sequence(store, sid: str) -> list[str]:
    parts = plan(store, ExportRequest("md", (sid,), detail="full"))
    stream = EventStream(store, parts, None, None, None)
    return [s.event.id for s in steps(store, stream, 0, "full") if s.what == "event"]


@pytest.mark.sqlite_only
def test_exports_follow_the_readers_cards_for_every_tool_in_the_corpus(corpus, store, tmp_path):
    from sessionscope.sources import importing
    importing.import_paths(store, [corpus])
    by_tool: dict[str, list] = {}
    for s in store.sessions(limit=1000):
        by_tool.setdefault(s.source_kind, []).append(s)
    assert len(by_tool) >= 6, sorted(by_tool)
    paired = 0
    for kind, sessions in sorted(by_tool.items()):
        for s in sorted(sessions, key=lambda s: -s.event_count)[:4]:  # each tool's four longest
            want = _reader_sequence(store, s.id)
            got = _export_sequence(store, s.id)
            assert got == want, f"{kind} {s.id} {s.title!r}: the export's order is not the reader's"
            owner = store.tool_pairs(got, [e.kind for e in store.events_by_ids(got)])
            paired += len(owner)
            # both writers write exactly those, one block each
            md, page = tmp_path / "x.md", tmp_path / "x.html"
            export(store, ExportRequest("md", (s.id,), detail="full"), md)
            export(store, ExportRequest("html", (s.id,), detail="full"), page)
            header = re.compile(r"^(> )?\*\*[^*\n]+\*\* · (\d{4}-\d\d-\d\d [\d:]+ UTC)?( · [\d,]+ tokens)?$", re.M)
            assert len(header.findall(md.read_text())) == len(want), (kind, s.title)
            text = page.read_text()
            assert re.findall(r'<div class="ev [^"]*" id="e-([^"]+)"', text) == want, (kind, s.title)
            # a call and its results are one card: the call opens it (or the thinking it came from, as in
            # the reader), its last result closes it
            kinds = {e.id: e.kind for e in store.events_by_ids(want)}
            cards = [re.findall(r'id="e-([^"]+)"', card) for card in text.split('<div class="pair">\n')[1:]]
            opened = [next((i for i in ids if kinds.get(i) != "thinking"), None) for ids in cards]
            calls = set(owner.values())
            assert [i for i in opened if i in calls] == [i for i in want if i in calls], (kind, s.title)
    assert paired > 50  # the corpus has tool calls answered out of order: the pairing above was exercised
