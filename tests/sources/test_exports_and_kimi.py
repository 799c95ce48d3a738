"""ChatGPT's and claude.ai's data exports (a file or the export's zip; every branch of ChatGPT's message tree
kept, the branch shown as the head) and Kimi's logs (Kimi CLI's wire log, Kimi Code's event log), read
as appended. Corpus counts were checked by hand against the raw files."""

from __future__ import annotations

import collections
import json
import zipfile

import orjson
import pytest

from sessionscope.sources import importing

# reading a tool's files is the same on both engines; the store's own writes are tested on both elsewhere
pytestmark = pytest.mark.sqlite_only


def test_a_chatgpt_export_from_the_corpus_keeps_every_branch(store, corpus):
    """A real 2023 export: 39 conversations, 1,502 nodes (39 roots without a message, 39 empty system prompts)."""
    report = importing.import_paths(store, [corpus / "chatgpt-export" / "filesxo__conversations.json"])
    assert (len(report.sessions), report.bad_lines, report.problems) == (39, 0, [])
    sessions = [store.session(s) for s in report.sessions]
    assert {s.source_kind for s in sessions} == {"chatgpt"}
    assert sum(s.event_count for s in sessions) == 1502 - 39 - 39
    kinds = collections.Counter(e.kind for s in sessions for e in store.events(s.id))
    # browsing: 80 messages to the browser are calls; the tool's 97 answers their results (51 of them errors)
    assert (kinds["tool_call"], kinds["tool_result"]) == (80, 97)
    errors = sum(1 for s in sessions for e in store.events(s.id)
                 if e.kind == "tool_result" and orjson.loads(e.payload)["is_error"])
    assert errors == 51


def test_the_branch_chatgpt_showed_is_the_head_and_the_other_stays(store, corpus):
    f = corpus / "chatgpt-export" / "chatgpt-export-parser__example-conversation.json"
    s = store.session(next(iter(importing.import_paths(store, [f]).sessions)))
    view = [e.text[:20] for e in store.branch_view(s.id)]
    assert view == ["Hello! Can you help ", "Of course! I'd be ha", "How do I write a fun", "Here's how to write "]
    other = [e for e in store.events(s.id) if e.text.startswith("Actually, can you help me with Python")]
    assert len(other) == 1 and other[0].parent_id == store.branch_view(s.id)[1].id  # a branch off the same reply


def test_a_claude_ai_export_in_its_zip(store, tmp_path):
    conv = {"uuid": "c-1", "name": "Plan a trip", "created_at": "2026-03-01T10:00:00Z", "chat_messages": [
        {"uuid": "m1", "sender": "human", "text": "plan a trip", "created_at": "2026-03-01T10:00:00Z",
         "parent_message_uuid": "00000000-0000-4000-8000-000000000000", "content": [{"type": "text", "text": "plan a trip"}]},
        {"uuid": "m2", "sender": "assistant", "created_at": "2026-03-01T10:00:05Z", "parent_message_uuid": "m1",
         "content": [{"type": "text", "text": "Where to?"}]},
        {"uuid": "m3", "sender": "assistant", "created_at": "2026-03-01T10:01:00Z", "parent_message_uuid": "m1",
         "content": [{"type": "text", "text": "Sure, where would you like to go?"}]}]}
    export = tmp_path / "data-2026-03-02.zip"
    with zipfile.ZipFile(export, "w") as z:
        z.writestr("conversations.json", json.dumps([conv]))
        z.writestr("users.json", "[]")
    report = importing.import_paths(store, [export])
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.title, s.event_count) == ("claude_ai", "Plan a trip", 3)
    assert [e.text for e in store.branch_view(s.id)] == ["plan a trip", "Sure, where would you like to go?"]  # the retry


def test_kimi_logs_from_the_corpus(store, corpus):
    """Kimi CLI: the end of a real session (5 prompts, 4 of them interrupted, a call and 2 results of which one
    answers a call made before the log begins); Kimi Code: 8 prompts, 19 calls and 19 results, 22 steps' tokens."""
    report = importing.import_paths(store, [corpus / "kimi"])
    assert (len(report.sessions), report.bad_lines, report.problems) == (2, 0, [])
    by_id = {store.session(s).tool_id: store.session(s) for s in report.sessions}
    cli = by_id["0be84c98-0aeb-48c3-aa42-0fb8330914ef"]
    assert cli.cwd == "/home/teacherchris37"  # kimi.json's work folder whose MD5 names the session's folder
    assert (cli.tokens_in, cli.tokens_out) == (544 + 55_808 + 275 + 56_320, 216 + 818)
    code = by_id["agent-sessions__kimi-assistant_tools"]
    kinds = collections.Counter(e.kind for e in store.events(code.id))
    assert (kinds["tool_call"], kinds["tool_result"], kinds["compaction"]) == (19, 19, 1)
    assert code.model == "moonshot-ai/kimi-k2.7-code"
