"""Grok Build (#36 item 3): the corpus sessions (both layouts) with their summary.json, context Grok adds kept apart
from prompts, calls paired with results, server-side web searches, and a chat appended read from where it stopped."""

from __future__ import annotations

import json
import shutil

import pytest

from sessionscope.sources import grok, importing

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere


def test_the_corpus_sessions(store, corpus):
    report = importing.import_paths(store, [corpus / "grok"])
    assert not report.problems and len(report.sessions) == 3
    by_title = {store.session(s).title: store.session(s) for s in report.sessions}
    s = by_title["Read hello.py and summarize what it prints"]
    assert (s.source_kind, s.tool_id, s.cwd, s.model) == ("grok", "019f6851-7ec4-7ef0-97d3-03f3eee38755",
                                                          "/tmp/as-agent-lab/grok/project", "grok-4.5")
    events = store.branch(s.id)
    prompts = [e.text for e in events if e.kind == "message" and e.role == "user"]
    assert prompts == ["Read hello.py and summarize what it prints without editing files.",
                       "[image]\nHere is a screenshot for reference."]  # the environment context is not a prompt
    calls = [e for e in events if e.kind == "tool_call"]
    assert [c.text.split(" ")[0] for c in calls] == ["read_file", "web_search", "run_terminal_cmd"]
    pairs = store.tool_pairs([e.id for e in events], [e.kind for e in events])
    assert len(pairs) == 3 and set(pairs.values()) == {c.id for c in calls}
    audit = by_title["Audit Grok compatibility"]
    assert audit.meta["grok_parent_session_id"] == "019f5000-0000-7000-8000-000000000000"
    assert audit.git_branch == "feature/parser-audit"


def test_an_appended_chat_is_read_from_where_it_stopped(store, corpus, tmp_path):
    folder = tmp_path / ".grok" / "sessions" / "%2Ftmp%2Fp" / "019f0000-0000-7000-8000-0000000000aa"
    shutil.copytree(corpus / "grok" / "agent-sessions__grok" / "subagent", folder)
    first = grok.import_paths(store, [tmp_path / ".grok" / "sessions"])
    sid = next(iter(first.sessions))
    before = len(store.events(sid))
    with open(folder / "chat_history.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "user", "content": [{"type": "text", "text": "And the tests?"}], "prompt_index": 1}) + "\n")
    again = grok.import_paths(store, [tmp_path / ".grok" / "sessions"])
    assert again.events_added == 1 and again.bytes_read < 200
    assert store.branch(sid)[-1].text == "And the tests?" and len(store.events(sid)) == before + 1
    assert grok.import_paths(store, [tmp_path / ".grok" / "sessions"]).events_added == 0
