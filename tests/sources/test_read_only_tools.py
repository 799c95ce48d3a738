"""Cline, Aider and OpenHands: read only, each file recognised by its content, tool calls paired with
their results, tokens as the tool counted them, and a file rewritten or appended read again without
losing what was seen before."""

from __future__ import annotations

import json

import orjson
import pytest

from sessionscope import sources
from sessionscope.errors import Refused
from sessionscope.sources import importing


def _payload(e):
    return orjson.loads(e.payload)


# -- Cline ------------------------------------------------------------------------------------------

def _cline_task(folder, extra=()):
    folder.mkdir(parents=True, exist_ok=True)
    api = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nrename the helper\n</task>"},
                                     {"type": "text", "text": "<environment_details>\n# Files\na.py\n</environment_details>"}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "look first", "signature": "sig"},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}},
            {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b.py"}}],
         "modelInfo": {"modelId": "claude-sonnet-4-5", "providerId": "anthropic", "mode": "act"},
         "metrics": {"tokens": {"prompt": 10, "completion": 50, "cached": 900}}},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'a.py'] Result:\ndef helper(): pass"},
                                     {"type": "text", "text": "[read_file for 'b.py'] Result:\nimport a"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Renamed."}],
         "metrics": {"tokens": {"prompt": 5, "completion": 7, "cached": 1000}}},
        *extra,
    ]
    ui = [{"ts": 1_760_000_000_000, "type": "say", "say": "text", "text": "rename the helper"},
          {"ts": 1_760_000_001_000, "type": "say", "say": "api_req_started",
           "text": json.dumps({"request": "<task>", "tokensIn": 10, "tokensOut": 50, "cacheReads": 900})},
          {"ts": 1_760_000_009_000, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 5})}]
    meta = {"files_in_context": [{"path": "a.py", "record_state": "active", "record_source": "read_tool"},
                                 {"path": "b.py", "record_state": "active", "record_source": "read_tool"}]}
    (folder / "api_conversation_history.json").write_text(json.dumps(api))
    (folder / "ui_messages.json").write_text(json.dumps(ui))
    (folder / "task_metadata.json").write_text(json.dumps(meta))
    return folder


def test_a_cline_task_folder_is_one_session_with_calls_paired_in_order(store, tmp_path):
    folder = _cline_task(tmp_path / "tasks" / "1760000000000")
    report = importing.import_paths(store, [tmp_path / "tasks"])
    assert len(report.sessions) == 1 and report.bad_lines == 0 and not report.problems
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.tool_id, s.title, s.model) == ("cline", "1760000000000", "rename the helper",
                                                             "claude-sonnet-4-5")
    assert (s.tokens_in, s.tokens_out) == (10 + 900 + 5 + 1000, 57)  # Cline's own metrics, cache included
    view = [e for e in store.branch_view(s.id) if e.kind != "meta"]
    assert [e.kind for e in view] == ["message", "thinking", "tool_call", "tool_call", "tool_result", "tool_result",
                                      "message"]
    calls = [_payload(e)["id"] for e in view if e.kind == "tool_call"]
    results = [_payload(e)["tool_use_id"] for e in view if e.kind == "tool_result"]
    assert calls == results == ["toolu_1", "toolu_2"]
    assert view[4].text == "def helper(): pass"
    assert store.head_facts(s.id)["files"] == ["a.py", "b.py"]
    assert view[0].ts == 1_760_000_000  # times from the UI log
    with pytest.raises(Refused):
        sources.of("cline").resume_line(s)  # Cline resumes from its own task history only
    assert not sources.of("cline").allows("copy_resume", s.status)
    # Cline rewrites the file whole: one more message adds one event; nothing before is duplicated
    _cline_task(folder, extra=[{"role": "user", "content": [{"type": "text", "text": "<feedback>thanks</feedback>"}]}])
    again = importing.import_paths(store, [tmp_path / "tasks"])
    assert again.events_added == 1 and store.branch_view(s.id)[-1].text == "thanks"


def test_a_cline_ui_log_alone_is_the_session_as_the_user_saw_it(store, tmp_path):
    ui = [{"ts": 1_760_000_000_000, "type": "say", "say": "text", "text": "make a server"},
          {"ts": 1_760_000_001_000, "type": "say", "say": "api_req_started", "text": json.dumps({"tokensIn": 3, "tokensOut": 4})},
          {"ts": 1_760_000_002_000, "type": "say", "say": "text", "text": "Sure."},
          {"ts": 1_760_000_003_000, "type": "ask", "ask": "command", "text": "npm init -y"},
          {"ts": 1_760_000_004_000, "type": "ask", "ask": "command_output", "text": "Wrote package.json"},
          {"ts": 1_760_000_005_000, "type": "say", "say": "checkpoint_created", "lastCheckpointHash": "abc"}]
    f = tmp_path / "ui_messages.json"
    f.write_text(json.dumps(ui))
    report = importing.import_paths(store, [f])
    s = store.session(next(iter(report.sessions)))
    view = store.branch_view(s.id)
    assert [(e.kind, e.role) for e in view] == [("message", "user"), ("message", "assistant"),
                                                ("tool_call", "assistant"), ("tool_result", "tool")]
    assert _payload(view[3])["tool_use_id"] == _payload(view[2])["id"]
    assert (s.tokens_in, s.tokens_out) == (3, 4) and s.title == "make a server"


# -- Aider ------------------------------------------------------------------------------------------

AIDER = """
# aider chat started at 2025-12-03 14:43:45

> /venv/bin/aider --model gpt-4o-mini .  
> Aider v0.86.1  
> Model: openrouter/openai/gpt-4o-mini with diff edit format  

#### create a license file  

Here is the *SEARCH/REPLACE* block:

LICENSE
```
<<<<<<< SEARCH
=======
MIT
>>>>>>> REPLACE
```

> Tokens: 10,332 sent, 2.4k received. Cost: $0.04 message, $0.04 session.  
> Applied edit to LICENSE  
> Commit 1b2614a feat: add the MIT license  

# aider chat started at 2025-12-04 09:00:00

#### /add README.md  
"""


def test_an_aider_history_is_a_session_per_run_with_tokens_files_and_commits(store, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# My project\n\nNot a chat.\n")  # Markdown that is not aider's: left alone
    history = repo / ".aider.chat.history.md"
    history.write_text(AIDER)
    report = importing.import_paths(store, [repo])
    assert len(report.sessions) == 2 and not report.problems
    first = next(s for s in store.sessions() if s.title == "create a license file")
    assert (first.source_kind, first.cwd, first.model) == ("aider", str(repo), "openrouter/openai/gpt-4o-mini")
    assert (first.tokens_in, first.tokens_out) == (10_332, 2_400)
    view = store.branch_view(first.id)
    assert [(e.kind, e.role) for e in view] == [("system", "tool"), ("message", "user"), ("message", "assistant"),
                                                ("system", "tool")]
    assert view[2].tokens_in == 10_332  # on the reply the line was printed after
    facts = store.head_facts(first.id)
    assert facts["files"] == ["LICENSE"] and facts["commits"] == ["1b2614a feat: add the MIT license"]
    assert sources.of("aider").resume_line(first) == f"cd {repo} && aider --restore-chat-history"
    # aider appends: the next prompt adds one event to the last run
    history.write_text(AIDER + "\n#### and a changelog  \n")
    again = importing.import_paths(store, [repo])
    assert again.events_added == 1


# -- OpenHands --------------------------------------------------------------------------------------

def _response(rid, prompt, completion):
    return {"id": rid, "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


TRAJECTORY = [
    {"id": 0, "timestamp": "2025-01-20T20:29:13", "source": "environment", "message": "", "observation":
        "agent_state_changed", "content": "", "extras": {"agent_state": "loading"}},
    {"id": 1, "timestamp": "2025-01-20T20:29:32", "source": "user", "message": "make a todo app", "action": "message",
     "args": {"content": "make a todo app"}},
    {"id": 2, "timestamp": "2025-01-20T20:29:35", "source": "agent", "message": "Running command: mkdir app",
     "action": "run", "args": {"command": "mkdir app", "thought": "I'll start with a folder."},
     "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "toolu_a", "total_calls_in_response": 2,
                            "model_response": _response("r1", 3000, 100)}},
    {"id": 3, "timestamp": "2025-01-20T20:29:36", "source": "agent", "message": "", "action": "edit",
     "args": {"path": "/w/app/index.html", "content": "<html>", "thought": ""},
     "tool_call_metadata": {"function_name": "str_replace_editor", "tool_call_id": "toolu_b",
                            "total_calls_in_response": 2, "model_response": _response("r1", 3000, 100)}},
    {"id": 4, "timestamp": "2025-01-20T20:29:37", "source": "agent", "message": "I edited the file", "cause": 3,
     "observation": "edit", "content": "--- index.html", "extras": {}},
    {"id": 5, "timestamp": "2025-01-20T20:29:37", "source": "agent", "message": "Command executed", "cause": 2,
     "observation": "run", "content": "", "extras": {"metadata": {"exit_code": 0}}},
]


def test_an_openhands_trajectory_pairs_observations_by_cause_and_counts_a_response_once(store, tmp_path):
    f = tmp_path / "basic.json"
    f.write_text(json.dumps(TRAJECTORY))
    report = importing.import_paths(store, [f])
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.title, s.tokens_in, s.tokens_out) == ("openhands", "make a todo app", 3000, 100)
    view = [e for e in store.branch_view(s.id) if e.kind != "meta"]
    assert [e.kind for e in view] == ["message", "message", "tool_call", "tool_call", "tool_result", "tool_result"]
    calls = {_payload(e)["id"]: e for e in view if e.kind == "tool_call"}
    results = [_payload(e)["tool_use_id"] for e in view if e.kind == "tool_result"]
    assert results == ["toolu_b", "toolu_a"]  # by cause, whatever their order
    assert set(calls) == {"toolu_a", "toolu_b"}
    assert store.head_facts(s.id)["files"] == ["/w/app/index.html"]
    assert not sources.of("openhands").allows("resume", s.status)


def test_an_openhands_output_file_is_a_session_a_line_and_a_bad_line_is_counted(store, tmp_path):
    f = tmp_path / "output.jsonl"
    run = {"instance_id": "repo__1", "instruction": "fix it", "history": [
        {"action": "message", "content": "fix the bug", "wait_for_response": False},
        {"action": "run", "command": "ls", "thought": "look"},
        {"observation": "run", "command": "ls", "content": "a.py", "exit_code": 0},
        {"action": "finish", "outputs": {}, "thought": "done"}], "metrics": {"accumulated_cost": 0.1},
           "success": True}
    f.write_text(json.dumps(run) + "\n{not json\n" + json.dumps({**run, "instance_id": "repo__2"}) + "\n")
    report = importing.import_paths(store, [f])
    assert len(report.sessions) == 2 and report.bad_lines == 1 and "line 2" in report.problems[0]["problem"]
    s = next(x for x in store.sessions() if x.tool_id == "repo__1")
    view = store.branch_view(s.id)
    assert [e.kind for e in view] == ["message", "message", "tool_call", "tool_result", "message", "tool_call"]
    assert view[0].role == "user" and _payload(view[3])["tool_use_id"] == _payload(view[2])["id"]
    assert store.head_facts(s.id)["success"] is True


# -- the corpus -------------------------------------------------------------------------------------

@pytest.mark.parametrize("folder, kind", [("cline", "cline"), ("aider", "aider"), ("openhands", "openhands")])
def test_the_corpus_files_import(corpus, store, folder, kind):
    path = corpus / folder
    if not path.is_dir():
        pytest.skip(f"no {folder} corpus")
    report = importing.import_paths(store, [path])
    assert report.files_read >= 1 and report.bad_lines == 0 and not report.problems
    sessions = store.sessions()
    assert sessions and {s.source_kind for s in sessions} == {kind}
    assert any(s.tokens_in + s.tokens_out > 0 for s in sessions)
    for s in sessions:
        store.branch_view(s.id)  # every session reads back
