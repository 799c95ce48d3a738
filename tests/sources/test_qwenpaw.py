"""QwenPaw (#36 item 3): the corpus sessions (the agent's root sessions and a console channel's, prompts, thinking,
replies, a tool use paired with the result a system message carries), and a session rewritten with a new turn."""

from __future__ import annotations

import json
import shutil

import orjson
import pytest

from sessionscope.sources import importing, qwenpaw

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere


def test_the_corpus_sessions_and_a_new_turn(store, corpus, tmp_path):
    root = tmp_path / ".qwenpaw" / "workspaces"
    shutil.copytree(corpus / "qwenpaw" / "agentsview__qwenpaw", root)
    report = importing.import_paths(store, [root])
    assert not report.problems and report.bad_lines == 0 and len(report.sessions) == 3
    by_id = {s.tool_id: s for s in (store.session(x) for x in report.sessions)}
    assert set(by_id) == {"default_1700000000000", "default_1700000000001", "main_main"}
    assert {s.source_kind for s in by_id.values()} == {"qwenpaw"} and {s.project for s in by_id.values()} == {"default"}
    assert by_id["default_1700000000001"].meta["qwenpaw_channel"] == "console"
    first = store.branch(by_id["default_1700000000000"].id)
    assert [(e.kind, e.role) for e in first] == [("message", "user"), ("thinking", "assistant"),
                                                 ("message", "assistant")]
    tool = store.branch(by_id["main_main"].id)
    assert [e.kind for e in tool] == ["message", "tool_call", "tool_result", "message"]
    call, result = orjson.loads(tool[1].payload), orjson.loads(tool[2].payload)
    assert (call["name"], call["input"], result["tool_use_id"]) == ("read_file", {"file_path": "NOTES.md"},
                                                                     "call_aaaaaaaaaaaa")
    assert result["output"].startswith("# NOTES")
    assert by_id["main_main"].title == "读一下 NOTES.md 的内容"
    f = root / "default" / "sessions" / "main_main.json"
    doc = json.loads(f.read_text())
    doc["agent"]["memory"]["content"].append([{"id": "msg_0011", "name": "user", "role": "user", "content": [
        {"type": "text", "text": "谢谢"}], "metadata": {}, "timestamp": "2026-03-16 09:01:00.000"}, []])
    f.write_text(json.dumps(doc, ensure_ascii=False))
    assert qwenpaw.import_paths(store, [root]).events_added == 1
    assert store.branch(by_id["main_main"].id)[-1].text == "谢谢"
