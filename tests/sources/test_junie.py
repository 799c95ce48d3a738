"""JetBrains Junie (#64): a real session's event stream (tests/sources/public/SOURCES.md) read as its prompt, reasoning,
commands, file changes, answer and each model call's tokens; a block still running waits, with what follows it, until
it is settled, and is then added after what was stored, not beside it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sessionscope.sources import importing, junie

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere

PUBLIC = Path(__file__).parent / "public" / "junie" / "sessions"
SESSION = "session-260816-220304-lrfz"


def _home(tmp_path: Path) -> Path:
    root = tmp_path / ".junie" / "sessions"
    shutil.copytree(PUBLIC, root)
    return root


def _file_lines() -> list[dict]:
    return [json.loads(line) for line in (PUBLIC / SESSION / "events.jsonl").read_text().splitlines()]


def test_the_real_session_reads_as_its_work(store, tmp_path):
    root = _home(tmp_path)
    report = importing.import_paths(store, [root])
    assert report.problems == [] and len(report.sessions) == 1  # (the index beside the folders is no session)
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.tool_id, s.title, s.cwd) == (
        "junie", SESSION, "Python Hello World Program Creation and File Management", "/home/marmutapp/parking-game")
    assert s.model == "gpt-5.6-luna"  # the model that wrote the most
    # every model call's tokens, as the file counts them (input with the cache's reads and writes)
    usage = [u for o in _file_lines() for u in o.get("event", {}).get("agentEvent", {}).get("modelUsage", [])]
    assert s.tokens_in == sum(u["inputTokens"] + u["cacheInputTokens"] + u["cacheCreateTokens"] for u in usage)
    assert s.tokens_out == sum(u["outputTokens"] for u in usage)
    work = [e for e in store.branch(s.id) if e.kind != "meta"]
    assert [e.kind for e in work] == ["message", "thinking", "tool_call", "tool_result", "thinking",
                                      "tool_call", "tool_result", "tool_call", "tool_result", "tool_call",
                                      "tool_result", "tool_call", "tool_result", "message"]
    prompt, answer = work[0], work[-1]
    assert prompt.role == "user" and prompt.text.startswith("Give me a quick summary of this project.")
    assert answer.role == "assistant" and answer.text.startswith("### Summary")
    calls = [json.loads(e.payload) for e in work if e.kind == "tool_call"]
    assert [c["name"] for c in calls] == ["terminal", "write_file", "terminal", "edit_file", "terminal"]
    assert calls[1]["input"] == {"file_path": "/home/marmutapp/parking-game/hello_world.py",
                                 "content": 'print("Hello World")'}
    assert calls[3]["input"]["old_string"] == 'print("Hello World")' and \
        calls[3]["input"]["new_string"] == 'print("hello Junie")'
    results = [e for e in work if e.kind == "tool_result"]
    failed = json.loads(results[0].payload)
    assert failed["is_error"] and "No such file or directory" in results[0].text
    assert [r.text for r in results[2::2]] == ["Hello World", "hello Junie"]
    # a command's result is when it ended, not when the finished task showed it once more
    assert results[0].ts == pytest.approx(1786898020.282)
    assert junie.import_paths(store, [root]).events_added == 0


def test_a_block_still_running_waits_with_what_follows_and_comes_after_what_was_stored(store, tmp_path):
    root = _home(tmp_path)
    events = root / SESSION / "events.jsonl"
    lines = events.read_text().splitlines(keepends=True)
    running = next(i for i, line in enumerate(lines) if '"TerminalBlockUpdatedEvent"' in line)
    events.write_text("".join(lines[:running + 2]))  # the command started, a model call after it
    first = junie.import_paths(store, [root])
    sid = next(iter(first.sessions))
    before = [e.kind for e in store.branch(sid)]
    assert "tool_call" not in before and before[-1] == "thinking"  # neither the command nor the call after it
    events.write_text("".join(lines))
    junie.import_paths(store, [root])
    branch = store.branch(sid)
    assert [e.kind for e in branch][:len(before)] == before
    with store.reader() as conn:
        parents = [r[0] for r in conn.exec_driver_sql("SELECT parent_id FROM event WHERE session_id = ?", (sid,))]
    assert len(parents) == len(set(parents))  # one chain (no event has two children): nothing stored beside
    assert sum(1 for e in branch if e.kind == "tool_call") == 5


def test_a_junie_log_is_recognised_by_its_lines_and_a_kind_it_does_not_know_is_kept(store, tmp_path):
    folder = tmp_path / "copied" / "some-session"
    folder.mkdir(parents=True)
    shutil.copy(PUBLIC / SESSION / "events.jsonl", folder / "events.jsonl")
    with open(folder / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"kind": "SessionA2uxEvent", "timestampMs": 1786898040000, "event": {
            "state": "COMPLETED", "agentEvent": {"kind": "HologramBlockUpdatedEvent", "stepId": "x"}}}) + "\n")
    assert importing.classify(folder / "events.jsonl") == "junie"
    report = importing.import_paths(store, [tmp_path / "copied"])
    s = store.session(next(iter(report.sessions)))
    assert s.title == "Python Hello World Program Creation and File Management"  # its own task name, no index
    opaque = [e for e in store.events(s.id) if e.kind == "opaque"]
    assert [e.text for e in opaque] == ["HologramBlockUpdatedEvent"]


def test_junie_is_found_in_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    assert junie.default_roots() == []
    root = _home(tmp_path)
    assert junie.default_roots() == [root] and junie.session_files(root) == [root / SESSION / "events.jsonl"]


def test_a_folder_the_index_names_is_kept_on_one_line_without_control_characters(store, tmp_path):
    root = _home(tmp_path)
    entry = json.loads((root / "index.jsonl").read_text())
    entry["projectDir"] = "/home/x/evil\x1b[2J\nproject"
    (root / "index.jsonl").write_text(json.dumps(entry) + "\n")
    s = store.session(next(iter(junie.import_paths(store, [root]).sessions)))
    assert s.cwd == "/home/x/evil[2Jproject"


def test_a_command_a_new_task_overtook_is_said_not_to_have_finished(store, tmp_path):
    root = _home(tmp_path)
    events = root / SESSION / "events.jsonl"
    lines = events.read_text().splitlines(keepends=True)
    running = next(i for i, line in enumerate(lines) if '"TerminalBlockUpdatedEvent"' in line)
    later = json.dumps({"kind": "UserPromptEvent", "requestId": "prompt-2", "prompt": "never mind, stop",
                        "timestampMs": 1786898100000}) + "\n"
    events.write_text("".join(lines[:running + 1]) + later)
    sid = next(iter(junie.import_paths(store, [root]).sessions))
    branch = store.branch(sid)
    result = next(e for e in branch if e.kind == "tool_result")
    assert result.text == junie.importer.UNFINISHED and json.loads(result.payload)["is_error"]
    assert branch[-1].text == "never mind, stop"

