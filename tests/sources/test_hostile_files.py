"""What lies in a scanned folder cannot stop a scan (#29 items 6 and 8): a FIFO or a link to /dev/zero named
like a transcript is never opened, a line without end is a bad line held to MAX_LINE_BYTES, and a first
line of any JSON value (`"type": {}`) is a problem of its file, never of the scan; the good file beside each
of them imports."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope import sources
from sessionscope.sources import jsonl
from sessionscope.sources.importing import import_paths
from tests.conftest import REPO
from tests.sources.claude_factory import Transcript
from tests.sources.test_fuzz_importers import _fresh, template  # noqa: F401 (a fixture)

UUID_NAME = "0f000000-0000-4000-8000-0000000000{:02d}.jsonl"


def _good(folder) -> Transcript:
    t = Transcript(cwd="/work/app")
    t.user("the good file beside them")
    t.assistant("imported")
    t.write(folder)
    return t


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # /dev/zero read whole would pass this at once


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_and_a_link_to_dev_zero_are_never_read_and_the_good_file_imports(tmp_path):
    project = tmp_path / "projects" / "-work-app"
    project.mkdir(parents=True)
    os.mkfifo(project / UUID_NAME.format(1))
    (project / UUID_NAME.format(2)).symlink_to("/dev/zero")
    os.mkfifo(project / "chat.json")
    t = _good(project)
    env = {**os.environ, "SESSIONSCOPE_STORE": str(tmp_path / "s.db")}
    for command in (["import", str(tmp_path / "projects")], ["scan"]):
        run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--json", *command], cwd=REPO,
                             env={**env, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path)},
                             capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                             preexec_fn=_limit_memory)
        assert run.returncode in (0, 1), run.stderr
    listed = json.loads(subprocess.run([sys.executable, "-m", "sessionscope.cli", "--json", "list"], cwd=REPO,
                                       env=env, capture_output=True, text=True, timeout=60).stdout)
    assert [s["id"] for s in listed if s["id"] == t.session_id] == [t.session_id]


def test_a_line_longer_than_the_cap_is_one_bad_line_and_the_next_line_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 1 << 16)
    path = tmp_path / "big.jsonl"
    good = orjson.dumps({"type": "user", "n": 2})
    path.write_bytes(b'{"type":"user","n":1}\n' + b"x" * (1 << 18) + b"\n" + good + b"\n")
    state = jsonl.ReadState()
    lines = [line for batch in jsonl.read_lines(path, state, chunk_bytes=1 << 14) for line in batch]
    assert [line.obj["n"] for line in lines] == [1, 2]
    assert state.bad_lines == 1 and "longer than" in state.problems[0]["problem"]
    assert state.offset == path.stat().st_size and state.line_count == 3
    with pytest.raises(OSError, match="not a regular file"):
        jsonl.open_binary("/dev/zero")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=8)
KEYS = st.sampled_from(["type", "payload", "sessionId", "projectHash", "history", "message", "uuid", "parentUuid",
                        "timestamp", "id", "role", "content", "messages", "metrics", "cwd", "snapshot"])
ANY_LINE = st.one_of(JSON, st.dictionaries(KEYS, JSON, max_size=6))
FIRST_LINES = {  # every JSON-line tool's real first line, a field of which the fuzzing replaces
    "claude_code": {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s1", "cwd": "/w",
                    "timestamp": "2026-03-01T09:00:00Z", "message": {"role": "user", "content": "hi"}},
    "codex": {"timestamp": "2026-02-23T12:00:00.000Z", "type": "session_meta", "payload": {
        "id": "00000000-0000-0000-0000-000000000063", "timestamp": "2026-02-23T12:00:00.000Z", "cwd": "/w",
        "originator": "codex_cli_rs", "cli_version": "0.1", "instructions": None}},
    "gemini": {"sessionId": "00000000-0000-0000-0000-000000000001", "projectHash": "ab", "startTime":
               "2026-02-23T12:00:00.000Z", "lastUpdated": "2026-02-23T12:00:00.000Z", "kind": "main"},
}
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(obj=ANY_LINE)
def test_every_sniff_takes_any_json_value(obj):
    for tool in sources.tools():
        assert tool.sniff(obj) in (True, False)


def _damaged(data, tool: str):
    line = json.loads(json.dumps(FIRST_LINES[tool]))
    inner = line.get("payload") if isinstance(line.get("payload"), dict) else line
    for target in (line, inner):
        key = data.draw(st.sampled_from(sorted(target)), label="key")
        target[key] = data.draw(JSON, label="value")
    return line


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_first_line_of_any_shape_never_stops_the_import_of_the_file_beside_it(data, tmp_path_factory,
                                                                              template):  # noqa: F811 (the fixture)
    case = tmp_path_factory.mktemp("case")
    project = case / "projects" / "-work-app"
    project.mkdir(parents=True)
    for n, tool in enumerate(sorted(FIRST_LINES)):
        (project / UUID_NAME.format(n + 10)).write_text(json.dumps(_damaged(data, tool)) + "\n" + json.dumps(
            FIRST_LINES[tool]) + "\n")  # (json: a huge integer is JSON too)
    (project / UUID_NAME.format(20)).write_text(json.dumps(data.draw(ANY_LINE, label="any")) + "\n")
    t = _good(project)
    store = _fresh(template, case, "s.db")
    try:
        import_paths(store, [case / "projects"])  # raises nothing
        assert any(e.text == "the good file beside them" for e in store.events(t.session_id))
    finally:
        store.close()


def test_files_of_no_known_format_are_said_and_left_alone(store, tmp_path):
    """#29 item 29: a pretty-printed SWE-agent .traj is not read as hundreds of bad transcript lines, and a
    chat saved as {"history": [...]} in a scanned folder is reported, not skipped in silence."""
    traj = tmp_path / "run.traj"
    traj.write_text(json.dumps({"trajectory": [{"action": "ls", "observation": "a.py", "response": "look"}] * 3,
                                "history": [{"role": "system", "content": "You are"}]}, indent=2))
    folder = tmp_path / "gemini"
    folder.mkdir()
    (folder / "checkpoint-mytag.json").write_text(json.dumps({"history": [
        {"role": "user", "parts": [{"text": "hello"}]}, {"role": "model", "parts": [{"text": "hi"}]}]}, indent=2))
    (folder / "settings.json").write_text(json.dumps({"theme": "dark"}, indent=2))  # not a conversation: quiet
    pretty = tmp_path / "pretty.jsonl"
    pretty.write_text(json.dumps({"theme": "dark", "size": 3}, indent=2))
    report = import_paths(store, [traj, folder, pretty])
    said = {p["path"]: p["problem"] for p in report.problems}
    assert report.bad_lines == 0 and report.events_added == 0
    assert "does not read yet" in said[str(traj)] and "does not read yet" in said[str(folder / "checkpoint-mytag.json")]
    assert "not a session format" in said[str(pretty)] and str(folder / "settings.json") not in said
