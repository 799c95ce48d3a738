"""Hermes Agent (#36 item 3): the corpus sessions (CLI and Telegram), reasoning, a call paired with its result, the
folder from model_config, and a session rewritten with a new message read again without doubling."""

from __future__ import annotations

import json
import shutil

import pytest

from sessionscope.sources import hermes, importing

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere


def test_the_corpus_sessions_and_a_rewrite(store, corpus, tmp_path):
    report = importing.import_paths(store, [corpus / "hermes"])
    assert not report.problems and len(report.sessions) == 2
    by_title = {store.session(s).title: store.session(s) for s in report.sessions}
    large = by_title["Check the current directory."]
    assert (large.source_kind, large.tool_id, large.cwd, large.model, large.meta["hermes_platform"]) == (
        "hermes", "20260429_hermes_large", "~/Repository/Codex-History", "gpt-5.2", "telegram")
    events = store.branch(large.id)
    assert [e.kind for e in events if e.kind != "system"] == ["message", "thinking", "message", "tool_call",
                                                              "tool_result", "message"]
    pairs = store.tool_pairs([e.id for e in events], [e.kind for e in events])
    assert len(pairs) == 1
    folder = tmp_path / ".hermes" / "sessions"
    folder.mkdir(parents=True)
    shutil.copy(corpus / "hermes" / "agent-sessions__hermes-small.json", folder / "s.json")
    sid = next(iter(hermes.import_paths(store, [folder]).sessions))
    doc = json.loads((folder / "s.json").read_text())
    doc["messages"].append({"role": "user", "content": "And the tests?"})
    (folder / "s.json").write_text(json.dumps(doc))
    assert hermes.import_paths(store, [folder]).events_added == 1
    assert [e.text for e in store.branch(sid)][-1] == "And the tests?"
