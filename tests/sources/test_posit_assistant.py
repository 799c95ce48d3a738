"""Posit Assistant (#36 item 3): the corpus conversation (its tree: the active branch the head, the abandoned reply
kept as a branch; reasoning, a call paired with its result, each reply's tokens; folder, branch, model, title) with
its subagent as a run inside it, a new turn read again without doubling, and model messages alone said, not guessed."""

from __future__ import annotations

import json
import shutil

import orjson
import pytest

from sessionscope.sources import importing, posit_assistant

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere


def _copy(corpus, tmp_path):
    root = tmp_path / ".posit" / "assistant" / "workspaces"
    shutil.copytree(corpus / "posit-assistant" / "agentsview__workspaces", root)
    return root


def test_the_corpus_conversation_with_its_branch_and_subagent(store, corpus, tmp_path):
    root = _copy(corpus, tmp_path)
    report = importing.import_paths(store, [root])
    assert not report.problems and report.bad_lines == 0 and len(report.sessions) == 1  # the subagent: a run in it
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.tool_id, s.title, s.cwd, s.git_branch, s.model) == (
        "posit_assistant", "11111111", "Sales data loading", "/home/dev/projects/sales-dashboard",
        "feature/quarterly-report", "claude-sonnet-4-6")
    branch = store.branch(s.id)
    assert [(e.kind, e.role) for e in branch] == [
        ("message", "user"), ("thinking", "assistant"), ("message", "assistant"), ("tool_call", "assistant"),
        ("tool_result", "tool"), ("message", "assistant"), ("message", "user"), ("message", "assistant")]
    assert branch[2].text == "Let me look at the data folder."  # Posit's own summary marker is not shown
    assert branch[-1].text == "You're welcome!"  # the active reply is the head
    call, result = orjson.loads(branch[3].payload), orjson.loads(branch[4].payload)
    assert (call["name"], call["input"], result["tool_use_id"]) == ("read", {"file_path": "data/sales.csv"}, "toolu_01")
    abandoned = [e for e in store.events(s.id) if e.text == "This branch was abandoned."]
    assert len(abandoned) == 1 and abandoned[0].parent_id == branch[6].id  # a sibling of the active reply
    # tokens: input counts cache reads and writes (12 + 100 + 100, 50, 80; the subagent's 40), output 34 + 20 + 5 + 15
    assert (s.tokens_in, s.tokens_out) == (212 + 50 + 80 + 40, 34 + 20 + 5 + 15)
    run = [e for e in store.events(s.id) if e.sidechain]
    assert {e.agent_id for e in run} == {"22222222"} and [e.role for e in run] == ["user", "assistant"]
    assert s.meta["subagents"]["22222222"]["task"] == "Explore the data folder and report its layout"
    walk = [e.text for e in store.events_by_ids(store.branch_ids(s.id, include_subagents=True))]
    assert walk.index("The data folder contains one CSV file: sales.csv.") == walk.index("region,amount\nwest,100\n") + 2


def test_a_new_turn_is_read_without_doubling(store, corpus, tmp_path):
    root = _copy(corpus, tmp_path)
    sid = next(iter(importing.import_paths(store, [root]).sessions))
    conv = root / "a1b2c3d4" / "11111111"
    doc = json.loads((conv / "conversation.json").read_text())
    doc["messages"].append({"id": "aaaaaaa1-0000-4000-8000-000000000006", "parentId": doc["messages"][3]["id"],
                            "isActive": True, "lmMessageIds": [7], "timestamp": 1735689700000})
    (conv / "conversation.json").write_text(json.dumps(doc))
    with open(conv / "lm-messages.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": 7, "message": {"role": "user", "content": "One more thing"}}) + "\n")
    assert posit_assistant.import_paths(store, [root]).events_added == 1
    assert store.branch(sid)[-1].text == "One more thing"
    assert posit_assistant.import_paths(store, [root]).events_added == 0


def test_model_messages_alone_are_said(store, corpus, tmp_path):
    f = tmp_path / "lm-messages.jsonl"
    shutil.copy(corpus / "posit-assistant" / "agentsview__workspaces" / "a1b2c3d4" / "11111111" / "lm-messages.jsonl", f)
    assert importing.classify(f) == "posit_assistant"
    report = importing.import_paths(store, [f])
    assert not report.sessions and "no conversation.json" in report.problems[0]["problem"]
