"""The older and thinner layouts tools have written (#57): OpenCode's flat `part/` folder, pi's first files, Kimi Code
sessions kept as their state alone; and a folder a tool recognises but reads nothing from says so."""

from __future__ import annotations

import json

from sessionscope.sources import importing


def _flat_opencode_tree(storage, parts_flat: bool = True) -> None:
    """OpenCode's older storage tree: sessions under session/<project>/, a message folder a session, and every part
    directly under part/ (each naming its message)."""
    (storage / "session" / "global").mkdir(parents=True)
    (storage / "session" / "global" / "ses_old.json").write_text(json.dumps(
        {"id": "ses_old", "projectID": "global", "directory": "/w/old", "title": "An older session",
         "time": {"created": 1_720_000_000_000, "updated": 1_720_000_100_000}}))
    (storage / "message" / "ses_old").mkdir(parents=True)
    (storage / "part").mkdir()
    for m, role in enumerate(("user", "assistant")):
        mid = f"msg_{m}"
        (storage / "message" / "ses_old" / f"{mid}.json").write_text(json.dumps(
            {"id": mid, "sessionID": "ses_old", "role": role, "time": {"created": 1_720_000_001_000 + m}}))
        if parts_flat:
            (storage / "part" / f"prt_{m}.json").write_text(json.dumps(
                {"id": f"prt_{m}", "sessionID": "ses_old", "messageID": mid, "type": "text", "text": f"said {m}"}))


def test_opencode_older_tree_with_parts_directly_under_part(store, tmp_path):
    _flat_opencode_tree(tmp_path / "opencode" / "storage")
    report = importing.import_paths(store, [tmp_path / "opencode"])
    assert (len(report.sessions), report.problems) == (1, [])
    s = store.session(next(iter(report.sessions)))
    assert (s.title, s.cwd) == ("An older session", "/w/old")
    assert [(e.role, e.text) for e in store.branch_view(s.id)] == [("user", "said 0"), ("assistant", "said 1")]


def test_a_tree_recognised_but_holding_nothing_says_so(store, tmp_path):
    """An OpenCode tree whose messages have no parts: before, "1 file read, 0 sessions, no problems"."""
    _flat_opencode_tree(tmp_path / "opencode" / "storage", parts_flat=False)
    report = importing.import_paths(store, [tmp_path / "opencode"])
    assert report.sessions == set()
    assert len(report.problems) == 1 and "ses_old" in report.problems[0]["problem"]
    assert "no message" in report.problems[0]["problem"]


def test_pi_first_files_without_a_version_read_as_a_list(store, tmp_path):
    """pi's version 1 files: a header with no version, entries with no id or parentId, each after the one before
    (pi migrates them so on load)."""
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--w-app--"
    folder.mkdir(parents=True)
    lines = [
        {"type": "session", "id": "5f0e4c1a-0000-4000-8000-000000000001", "timestamp": "2025-08-01T10:00:00Z",
         "cwd": "/w/app"},
        {"type": "message", "timestamp": "2025-08-01T10:00:01Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "read the readme"}]}},
        {"type": "message", "timestamp": "2025-08-01T10:00:02Z", "message": {
            "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "README.md"}}]}},
        {"type": "message", "timestamp": "2025-08-01T10:00:03Z", "message": {
            "role": "toolResult", "toolCallId": "call_1", "content": [{"type": "text", "text": "# App"}]}},
        {"type": "message", "timestamp": "2025-08-01T10:00:04Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "It is about App."}]}},
    ]
    path = folder / "2025-08-01T10-00-00-000Z_5f0e4c1a-0000-4000-8000-000000000001.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = importing.import_paths(store, [tmp_path / ".pi"])
    assert (len(report.sessions), report.bad_lines, report.problems) == (1, 0, [])
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.title, s.cwd) == ("pi", "read the readme", "/w/app")
    assert [e.kind for e in store.branch_view(s.id)] == ["message", "tool_call", "tool_result", "message"]
    # appended to later, the list goes on from its last entry
    with open(path, "a") as fh:
        fh.write(json.dumps({"type": "message", "timestamp": "2025-08-01T10:01:00Z",
                             "message": {"role": "user", "content": "thanks"}}) + "\n")
    importing.import_paths(store, [tmp_path / ".pi"])
    assert [e.text for e in store.branch_view(s.id)][-2:] == ["It is about App.", "thanks"]


def test_kimi_code_session_of_its_state_alone(store, tmp_path):
    """A Kimi Code session folder that kept only `state.json` (its shape: the corpus's
    agent-sessions__kimi-assistant_tools.state.json): a session with its title, folder and last prompt."""
    folder = tmp_path / ".kimi-code" / "sessions" / "wd_project_ac3bb318f98e" / \
        "session_1bcbe023-4f7e-4971-9dc9-43b8756045b0"
    folder.mkdir(parents=True)
    home = str(folder / "agents")
    (folder / "state.json").write_text(json.dumps({
        "createdAt": "2026-08-01T19:33:23.256Z", "updatedAt": "2026-08-01T21:16:08.967Z", "title": "hi",
        "isCustomTitle": False, "agents": {"main": {"homedir": f"{home}/main", "type": "main", "parentAgentId": None}},
        "custom": {}, "workDir": "/private/tmp/as-agent-lab/kimi/project",
        "lastPrompt": 'read README.md then grep for "Kimi"'}, indent=2))
    report = importing.import_paths(store, [tmp_path / ".kimi-code"])
    assert (len(report.sessions), report.problems) == (1, [])
    s = store.session(next(iter(report.sessions)))
    assert (s.source_kind, s.title, s.cwd, s.tool_id) == (
        "kimi", "hi", "/private/tmp/as-agent-lab/kimi/project", "1bcbe023-4f7e-4971-9dc9-43b8756045b0")
    assert [(e.role, e.text) for e in store.branch_view(s.id)] == [("user", 'read README.md then grep for "Kimi"')]
