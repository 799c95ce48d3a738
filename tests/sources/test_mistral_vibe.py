"""Mistral Vibe (#36 item 3): the corpus session with its meta.json (title, folder, model, branch, the session's token
totals counted once), the empty session's 0-byte file left alone, and new messages read again without doubling."""

from __future__ import annotations

import json
import shutil

import pytest

from sessionscope.sources import importing, mistral_vibe

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere


def test_the_corpus_session_and_more_messages(store, corpus, tmp_path):
    root = tmp_path / ".vibe" / "logs" / "session"
    shutil.copytree(corpus / "mistral-vibe" / "agentsview__vibe", root)
    report = importing.import_paths(store, [root])
    assert not report.problems and len(report.sessions) == 1  # the empty session has nothing to read
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.title, s.cwd, s.model, s.git_branch, s.tool_id) == (
        "mistral_vibe", "Create a Python function to sort a list", "/home/user/projects/myapp", "mistral-medium-3.5",
        "main", "abc123def-0000-0000-0000-000000000000")
    assert [e.role for e in store.branch(s.id) if e.kind == "message"] == ["user", "assistant", "assistant", "user",
                                                                           "assistant"]
    assert (s.tokens_in, s.tokens_out) == (100, 50)
    with open(root / "session_basic" / "messages.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"role": "user", "content": "Thanks!", "message_id": "msg_006"}) + "\n")
    meta = json.loads((root / "session_basic" / "meta.json").read_text())
    meta["stats"]["session_prompt_tokens"] = 130
    (root / "session_basic" / "meta.json").write_text(json.dumps(meta))
    again = mistral_vibe.import_paths(store, [root])
    assert again.events_added == 2  # the message, and what the totals grew by
    s = store.session(s.id)
    assert (s.tokens_in, s.tokens_out) == (130, 50)
    assert [e.text for e in store.branch(s.id) if e.kind == "message"][-1] == "Thanks!"


def test_a_change_to_the_meta_alone_is_read(store, corpus, tmp_path):
    root = tmp_path / ".vibe" / "logs" / "session"
    shutil.copytree(corpus / "mistral-vibe" / "agentsview__vibe", root)
    sid = next(iter(importing.import_paths(store, [root]).sessions))
    meta = json.loads((root / "session_basic" / "meta.json").read_text())
    meta["title"], meta["stats"]["session_completion_tokens"] = "Sorting, renamed", 75
    (root / "session_basic" / "meta.json").write_text(json.dumps(meta))
    assert mistral_vibe.import_paths(store, [root]).events_added == 1  # what the totals grew by
    s = store.session(sid)
    assert (s.title, s.tokens_out) == ("Sorting, renamed", 75)
