"""`show --all` and the timeline say what each line beside the conversation is (sessionscope.history.cards
.beside_label): on the corpus's real Claude Code and Codex files, no such line is left blank."""
from __future__ import annotations

import json
from collections import Counter

from sessionscope.cli.output import HIDDEN_KINDS, show_text
from sessionscope.history.cards import beside_label
from sessionscope.sources.importing import import_paths


def test_no_line_beside_the_conversation_is_left_blank_on_the_corpus(corpus, store):
    import_paths(store, [corpus / "claude-code", corpus / "codex"])
    said: Counter = Counter()
    for s in store.sessions(include_archived=True, limit=10_000):
        events = store.events(s.id)
        for line, e in zip(show_text(s, events, every=True).splitlines()[-len(events):], events):
            if e.kind in HIDDEN_KINDS and not e.text:
                label = beside_label(e.payload)
                # (a line of JSON that names its type: said as its tool says it; else the kind alone, as before)
                named = json.loads(e.payload).get("type") if e.payload.startswith("{") else None
                assert bool(label) == bool(named), (e.kind, e.payload[:200])
                assert not label or line.endswith(f"[{label}]")
                said[label.split(":")[0]] += 1
    # Claude Code's hooks' progress, its queue and its own context; Codex's events and turn contexts
    assert {"progress", "event_msg", "turn_context", "attachment"} <= set(said), said


def test_a_label_is_one_short_line_whatever_the_line_holds():
    line = json.dumps({"type": "attachment\x1b[31m", "attachment": {"type": "x" * 500 + "\n" + "y"}})
    label = beside_label(line)
    assert len(label) <= 80 and "\n" not in label
    assert beside_label("not json") == beside_label("[1, 2]") == beside_label(None) == ""
