"""GitHub Copilot: VS Code's chat sessions (whole JSON and the newer patch log), the Copilot CLI's event
logs and Visual Studio's traces, each recognised by content, calls paired with their results by
Copilot's own ids. Corpus counts were checked by hand against the raw files."""

from __future__ import annotations

import collections
import json

import orjson
import pytest

from sessionscope import sources
from sessionscope.errors import Refused
from sessionscope.history.pairing import pair
from sessionscope.sources import importing

# reading a tool's files is the same on both engines; the store's own writes are tested on both elsewhere
pytestmark = pytest.mark.sqlite_only


def _kinds(store, sid):
    return collections.Counter(e.kind for e in store.branch_view(sid))


def _pairs_by_id(store, sid) -> int:
    view = store.branch_view(sid)
    by_id = {e.id: e for e in view}
    pairs = pair((e.id, e.kind, e.payload, e.sidechain) for e in view)
    return sum(1 for r, c in pairs.items()
               if orjson.loads(by_id[c].payload)["id"] == orjson.loads(by_id[r].payload)["tool_use_id"])


def test_copilot_chat_sessions_from_the_corpus(store, corpus):
    """Three chatSessions files (a token tracker's fixtures: only `requests`): 4, 3 and 2 requests."""
    report = importing.import_paths(store, [corpus / "copilot-chat"])
    assert (len(report.sessions), report.bad_lines, report.problems) == (3, 0, [])
    by_file = {store.session(s).tool_id: store.session(s) for s in report.sessions}
    today = by_file["session-01-today"]
    # 5 requests: 5 prompts, 5 replies; tokens are the requests' own result counts
    assert _kinds(store, today.id) == {"message": 10}
    assert (today.tokens_in, today.tokens_out) == (226, 1983)
    assert today.title.startswith("Can you explain how the token estimation")
    assert _kinds(store, by_file["session-03-twelve-days-ago"].id) == {"message": 6, "thinking": 1}
    with pytest.raises(Refused, match="chat history"):
        sources.of("copilot").resume_line(today)


def _request(rid, prompt, items, **extra):
    return {"requestId": rid, "message": {"text": prompt, "parts": []}, "response": items,
            "modelId": "copilot/claude-sonnet-4.5", "timestamp": 1_760_000_000_000, **extra}


def test_a_workspace_chat_with_tools_edits_and_a_refusal(store, tmp_path):
    storage = tmp_path / "Code" / "User" / "workspaceStorage" / "9d1e"
    (storage / "chatSessions").mkdir(parents=True)
    (storage / "workspace.json").write_text(json.dumps({"folder": "file:///home/me/web"}))
    doc = {"version": 3, "sessionId": "s-1", "creationDate": 1_760_000_000_000, "customTitle": "Port the build",
           "requesterUsername": "me", "requests": [
               _request("r1", "run the tests", [
                   {"kind": "thinking", "value": "tests first"},
                   {"value": "Running "}, {"kind": "inlineReference", "name": "pytest"}, {"value": " now."},
                   {"kind": "toolInvocationSerialized", "toolId": "run_in_terminal", "toolCallId": "tc1",
                    "invocationMessage": {"value": "Running pytest"}, "pastTenseMessage": {"value": "Ran pytest"},
                    "isComplete": True, "toolSpecificData": {"command": "pytest -q"}},
                   {"kind": "textEditGroup", "uri": {"path": "/home/me/web/app.py"}, "edits": [[{"text": "x = 1"}]]},
                   {"kind": "toolInvocationSerialized", "toolId": "delete_file", "toolCallId": "tc2",
                    "isConfirmed": False, "isComplete": False},
                   {"kind": "aNewKindOfItem", "value": "?"}],
                        result={"metadata": {"promptTokens": 900, "outputTokens": 40}})]}
    (storage / "chatSessions" / "s-1.json").write_text(json.dumps(doc))
    report = importing.import_paths(store, [tmp_path / "Code" / "User" / "workspaceStorage"])
    sid = next(iter(report.sessions))
    s = store.session(sid)
    assert (s.source_kind, s.title, s.cwd, s.tokens_in, s.tokens_out) == ("copilot", "Port the build", "/home/me/web",
                                                                          900, 40)
    view = store.branch_view(sid)
    assert [e.kind for e in view] == ["message", "thinking", "message", "tool_call", "tool_result", "tool_call",
                                      "tool_result", "tool_call", "tool_result"]
    assert view[2].text == "Running `pytest` now."
    refused = orjson.loads(view[-1].payload)
    assert (refused["tool_use_id"], refused["is_error"]) == ("tc2", True)
    assert _pairs_by_id(store, sid) == 3
    assert any("aNewKindOfItem" in p["problem"] for p in report.problems)  # said, the rest kept


def test_the_patch_log_form_is_replayed(store, tmp_path):
    folder = tmp_path / "chatSessions"
    folder.mkdir()
    log = folder / "s-2.jsonl"
    lines = [{"kind": 0, "v": {"version": 3, "sessionId": "s-2", "creationDate": 1_760_000_000_000, "requests": []}},
             {"kind": 2, "k": ["requests"], "v": [_request("r1", "hello", [])]},
             {"kind": 2, "k": ["requests", 0, "response"], "v": [{"value": "Hi there."}]},
             {"kind": 1, "k": ["customTitle"], "v": "Greeting"}]
    log.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = importing.import_paths(store, [folder])
    s = store.session(next(iter(report.sessions)))
    assert s.title == "Greeting" and [e.text for e in store.branch_view(s.id)] == ["hello", "Hi there."]
    with log.open("a") as fh:  # the next request arrives
        fh.write(json.dumps({"kind": 2, "k": ["requests"], "v": [_request("r2", "bye", [{"value": "Bye."}])]}) + "\n")
    assert importing.import_paths(store, [folder]).events_added == 2
    assert [e.text for e in store.branch_view(s.id)][-2:] == ["bye", "Bye."]


def test_copilot_cli_sessions_from_the_corpus(store, corpus):
    """A real Copilot CLI log (1.0.34): 2 prompts (one the CLI's own reminder), 6 replies, 13 calls run, 13 results."""
    f = corpus / "other" / "VibeCodingTracker__copilot-cli-events.jsonl"
    report = importing.import_paths(store, [f])
    assert (report.bad_lines, report.problems) == (0, [])
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.tool_id, s.cwd, s.model, s.git_branch) == (
        "copilot", "96ef38f0-9d09-45c3-8124-6448c36090ed", "/home/wei/repo/VibeCodingTracker", "claude-sonnet-4.6",
        "refactor/gemini-copilot-new-formats")
    kinds = _kinds(store, s.id)
    assert (kinds["tool_call"], kinds["tool_result"], kinds["thinking"]) == (13, 13, 4)
    assert _pairs_by_id(store, s.id) == 13
    # the session's input from its end (modelMetrics), the replies' own output tokens
    assert (s.tokens_in, s.tokens_out) == (186_809, 311 + 170 + 141 + 153 + 1379 + 694)
    assert sources.of("copilot").resume_line(s).endswith("copilot --resume 96ef38f0-9d09-45c3-8124-6448c36090ed")


def test_a_copilot_cli_subagent_runs_under_its_call(store, tmp_path):
    state = tmp_path / "session-state" / "abc"
    state.mkdir(parents=True)
    ev = lambda i, t, d: {"type": t, "data": d, "id": f"e{i}", "timestamp": f"2026-01-01T00:00:0{i}Z",  # noqa: E731
                          "parentId": f"e{i - 1}" if i else None}
    lines = [ev(0, "session.start", {"sessionId": "abc", "context": {"cwd": "/w"}}),
             ev(1, "user.message", {"content": "explore"}),
             ev(2, "assistant.message", {"content": "", "toolRequests": [{"toolCallId": "t1", "name": "task",
                                                                        "arguments": {"prompt": "look"}}]}),
             ev(3, "assistant.message", {"content": "looking", "parentToolCallId": "t1"}),
             ev(4, "tool.execution_complete", {"toolCallId": "t1", "success": True, "result": {"content": "found"}}),
             ev(5, "assistant.message", {"content": "done"})]
    (state / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = importing.import_paths(store, [tmp_path / "session-state"])
    s = store.session(next(iter(report.sessions)))
    assert s.tool_id == "abc"
    run = [e for e in store.events(s.id) if e.sidechain]
    call = next(e for e in store.events(s.id) if e.kind == "tool_call")
    assert [e.text for e in run] == ["looking"] and run[0].parent_id == call.id and run[0].agent_id == "t1"
    assert [e.text for e in store.branch_view(s.id) if e.kind == "message"] == ["explore", "done"]


def test_visual_studio_traces_from_the_corpus_are_one_conversation(store, corpus):
    """Two trace files of one conversation: 2 turns, 5 tool calls with their results, in time order."""
    report = importing.import_paths(store, [corpus / "visualstudio-copilot"])
    assert len(report.sessions) == 1 and not report.problems
    s = store.session(next(iter(report.sessions)))
    assert (s.tool_id, s.model) == ("4a8f63f6-7626-4416-a874-fc7bd2c3f005", "gpt-5.5")
    view = store.branch_view(s.id)
    assert collections.Counter(e.kind for e in view) == {"system": 2, "tool_call": 5, "tool_result": 5}
    assert [orjson.loads(e.payload)["name"] for e in view if e.kind == "tool_call"] == [
        "code_search", "create_file", "run_build", "run_command_in_terminal", "get_errors"]
    assert _pairs_by_id(store, s.id) == 5
