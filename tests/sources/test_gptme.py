"""gptme (#36 item 3): the corpus conversation (prompts, replies with usage, tool output, the hidden system prompt),
its recognition by gptme's own keys and timestamp only, and a log appended read from where it stopped."""

from __future__ import annotations

import json
import shutil

import pytest

from sessionscope.sources import gptme, importing

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere


def test_the_corpus_conversation_and_an_appended_line(store, corpus, tmp_path):
    logs = tmp_path / ".local" / "share" / "gptme" / "logs"
    shutil.copytree(corpus / "gptme" / "agentsview__2026-06-13-write-hello-world", logs / "2026-06-13-write-hello-world")
    report = importing.import_paths(store, [logs])
    assert not report.problems and len(report.sessions) == 1
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.title, s.tool_id, s.model) == ("gptme", "Write a hello world program in Python.",
                                                             "2026-06-13-write-hello-world",
                                                             "openrouter/anthropic/claude-sonnet-4-6")
    assert (s.tokens_in, s.tokens_out) == (120 + 80 + 200 + 120, 42 + 15)  # input counts cache reads, as everywhere
    assert [(e.kind, e.role) for e in store.branch(s.id)] == [
        ("system", "system"), ("message", "user"), ("message", "assistant"), ("tool_result", "tool"),
        ("message", "user"), ("message", "assistant"), ("tool_result", "tool")]
    with open(logs / "2026-06-13-write-hello-world" / "conversation.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"role": "user", "content": "Thanks", "timestamp": "2026-06-13T10:01:00.000000"}) + "\n")
    assert gptme.import_paths(store, [logs]).events_added == 1
    assert store.branch(s.id)[-1].text == "Thanks"


def test_only_gptme_lines_are_taken(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text(json.dumps({"role": "user", "content": "hi", "timestamp": "2026-06-13T10:00:01.000000"}) + "\n")
    assert importing.classify(f) == "gptme"
    for other in ({"role": "user", "content": "hi", "timestamp": "2026-06-13T10:00:01Z"},  # a zone: not gptme's
                  {"role": "user", "content": "hi", "timestamp": "2026-06-13T10:00:01.000000", "message_id": "m1"}):
        f.write_text(json.dumps(other) + "\n")
        assert importing.classify(f) != "gptme"
