"""Roo Code and Kilo Code, Cline's forks, named as themselves (#64 item 1): their task folders are Cline's files
in their own extension's folder, Kilo's CLI keeps OpenCode's tables in `kilo.db`; each imports as its own tool
(the list, `list --json`, the sidebar's tools), with Roo Code's history item (workspace, mode, cost, subtasks),
from its default places and from a folder given by hand; a store that read them as Cline's or OpenCode's names
them on its upgrade."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from sessionscope import open_store, sources
from sessionscope.sources import importing

PUBLIC = Path(__file__).parent / "public"


def _editor_home(tmp_path: Path, monkeypatch) -> Path:
    """A home whose VS Code keeps Roo Code's, Kilo Code's and Cline's tasks where they do (Linux)."""
    home = tmp_path / "home"
    storage = home / ".config" / "Code" / "User" / "globalStorage"
    shutil.copytree(PUBLIC / "roo_code" / "tasks", storage / "rooveterinaryinc.roo-cline" / "tasks")
    shutil.copytree(PUBLIC / "kilo_code" / "tasks", storage / "kilocode.kilo-code" / "tasks")
    cline = storage / "saoudrizwan.claude-dev" / "tasks" / "1760000000000"
    cline.mkdir(parents=True)
    (cline / "ui_messages.json").write_text(json.dumps([
        {"ts": 1_760_000_000_000, "type": "say", "say": "text", "text": "a Cline task"},
        {"ts": 1_760_000_001_000, "type": "say", "say": "text", "text": "Done."}]))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    return storage


def _by_title(store) -> dict:
    return {s.title: s for s in store.sessions()}


def test_each_fork_is_found_in_its_own_place_and_named_as_itself(tmp_path, monkeypatch, store):
    storage = _editor_home(tmp_path, monkeypatch)
    assert sources.of("roo_code").default_roots() == [storage / "rooveterinaryinc.roo-cline" / "tasks"]
    assert sources.of("kilo_code").default_roots() == [storage / "kilocode.kilo-code" / "tasks"]
    assert sources.of("cline").default_roots() == [storage / "saoudrizwan.claude-dev" / "tasks"]
    for kind in ("cline", "roo_code", "kilo_code"):
        report = sources.of(kind).import_paths(store, sources.of(kind).default_roots())
        assert report.files_read >= 1 and not report.problems, report.problems
    found = _by_title(store)
    assert {t: s.source_kind for t, s in found.items()} == {  # (Roo's subtask: a run in "Do the thing")
        "Do the thing": "roo_code", "Review the new parser implementation": "kilo_code", "a Cline task": "cline"}
    assert (sources.of("roo_code").label, sources.of("kilo_code").label) == ("Roo Code", "Kilo Code")


def test_roo_codes_history_item_gives_the_workspace_mode_cost_and_subtasks(store):
    report = importing.import_paths(store, [PUBLIC / "roo_code"])  # given by hand: its history item says Roo Code
    assert len(report.sessions) == 1 and report.bad_lines == 0 and not report.problems
    (parent,) = store.sessions()
    assert parent.title == "Do the thing" and parent.source_kind == "roo_code"
    assert (parent.cwd, parent.project, parent.tool_id) == ("/Users/test/project", "project", "test-task-parent")
    assert parent.meta["mode"] == "orchestrator" and parent.meta["provider_profile"] == "claude-sonnet"
    assert parent.meta["cost"] == 0.05 and parent.meta["subtasks"] == ["child-task-uuid-1111"]
    assert (parent.tokens_in, parent.tokens_out) == (150, 270)  # the subtask's request counts in its orchestration
    view = store.branch_view(parent.id)
    assert [(e.kind, e.role) for e in view] == [("message", "user"), ("message", "assistant"),
                                                ("tool_call", "assistant"), ("tool_result", "tool")]
    assert json.loads(view[2].payload)["input"]["tool"] == "newTask" and view[3].text == "Feature A done"
    _the_subtask_runs_between_its_call_and_its_result(store, parent)


def _the_subtask_runs_between_its_call_and_its_result(store, parent) -> None:
    """Roo's subtask: a run in its orchestration's session (as a subagent's is), after the `newTask` call that started
    it and before the result it handed back, named by that call; its task, mode and cost on the run."""
    from sessionscope.history import cards
    run = parent.meta["subagents"]["child-task-uuid-1111"]
    assert run["kind"] == "subtask" and run["task"] == "Implement feature A" and run["mode"] == "code"
    assert run["parent_task"] == "test-task-parent" and run["cost"] == 0.01
    walk = store.events_by_ids(store.branch_ids(parent.id, include_subagents=True))
    assert [(e.kind, e.text[:20], e.agent_id) for e in walk] == [
        ("message", "Do the thing", None), ("message", "I will delegate.", None),
        ("tool_call", '{"tool": "newTask", ', None),
        ("message", "Implement feature A", "child-task-uuid-1111"), ("tool_call", "go test ./...", "child-task-uuid-1111"),
        ("tool_result", "ok  \tproject\t0.012s", "child-task-uuid-1111"),
        ("message", "Feature A done", "child-task-uuid-1111"), ("tool_result", "Feature A done", None)]
    assert all(e.sidechain for e in walk if e.agent_id)
    (call,) = cards.calls(walk[2].payload)
    assert cards.subagent_name(call) == "Code · Implement feature A"
    # (the orchestrator's conversation, where Roo keeps one, calls the same tool `new_task`)
    assert cards.subagent_name(cards.Call("new_task", {"mode": "code", "message": "Implement feature A"})) == \
        "code · Implement feature A"


def test_a_subtask_read_before_its_orchestration_is_a_run_in_it_all_the_same(store, tmp_path):
    """Roo writes a subtask's files before its orchestrator's last ones (an import reads the older first): the run
    waits in the session the orchestration's files then fill, and nothing is stored twice when either is read again."""
    import os
    tasks = tmp_path / "tasks"
    shutil.copytree(PUBLIC / "roo_code" / "tasks", tasks)
    child = tasks / "child-task-uuid-1111"
    importing.import_paths(store, [child])  # the subtask alone first
    (parent,) = store.sessions()
    assert parent.tool_id == "test-task-parent" and "child-task-uuid-1111" in parent.meta["subagents"]
    importing.import_paths(store, [tasks])
    (parent,) = store.sessions()
    assert parent.title == "Do the thing" and parent.event_count == 8
    _the_subtask_runs_between_its_call_and_its_result(store, parent)
    for f in child.iterdir():  # its files rewritten as they were: read again, nothing added
        os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 1_000_000_000))
    report = importing.import_paths(store, [tasks])
    assert report.files_read >= 1 and report.events_added == 0


def test_a_subtask_whose_orchestration_is_not_beside_it_stays_a_session(store, tmp_path):
    """A subtask folder copied alone, or one naming its parent with anything but a plain folder name (the file is the
    tool's, so untrusted): a session of its own, as before."""
    for name, parent in (("alone", "test-task-parent"), ("climbing", "../tasks"), ("absolute", str(tmp_path))):
        task = tmp_path / name / "tasks" / "child-task-uuid-1111"
        shutil.copytree(PUBLIC / "roo_code" / "tasks" / "child-task-uuid-1111", task)
        item = json.loads((task / "history_item.json").read_text())
        (task / "history_item.json").write_text(json.dumps(item | {"parentTaskId": parent, "rootTaskId": parent}))
        importing.import_paths(store, [task.parent])
    found = store.sessions()
    assert [s.title for s in found] == ["Implement feature A"] * 3
    assert all(s.meta["parent_task"] and "subagents" not in s.meta for s in found)


def test_kilo_codes_cli_keeps_opencodes_tables_and_is_kilo_code(corpus, store, tmp_path, monkeypatch):
    """Kilo's CLI (and its rebuilt extension) is OpenCode's fork: `kilo.db` holds OpenCode's tables, an older
    install a storage tree. Each is found in Kilo's place and named Kilo Code (OpenCode's own stay OpenCode's:
    tests/sources/test_editor_and_cli_agents.py)."""
    from tests.sources.test_editor_and_cli_agents import opencode_db

    storage = _editor_home(tmp_path, monkeypatch)
    data = tmp_path / "home" / ".local" / "share" / "kilo"
    opencode_db(data / "kilo.db")
    assert sources.of("kilo_code").default_roots() == [storage / "kilocode.kilo-code" / "tasks", data]
    report = sources.of("kilo_code").import_paths(store, sources.of("kilo_code").default_roots())
    assert not report.problems, report.problems
    found = _by_title(store)
    assert found["Review"].source_kind == found["Review the new parser implementation"].source_kind == "kilo_code"
    assert (found["Review"].cwd, found["Review"].tokens_in) == ("/w", 550)
    # a real OpenCode storage tree (the corpus's) in Kilo's data folder, given by hand
    tree = corpus / "opencode" / "agent-sessions__storage_v2"
    if not tree.is_dir():
        pytest.skip("no OpenCode storage tree in the corpus")
    shutil.copytree(tree, tmp_path / "elsewhere" / "kilo" / "storage")
    report = importing.import_paths(store, [tmp_path / "elsewhere"])
    assert report.sessions and not report.problems
    assert {store.session(s).source_kind for s in report.sessions} == {"kilo_code"}


def test_a_store_that_read_them_as_cline_names_them_on_its_upgrade(tmp_path, monkeypatch):
    storage = _editor_home(tmp_path, monkeypatch)
    path = tmp_path / "s.db"
    with open_store(path) as store:
        for root in sorted(storage.glob("*/tasks")):  # as the last version read them: all three as Cline's
            sources.of("cline").import_paths(store, [root])
        assert {s.source_kind for s in store.sessions()} == {"cline"}
        before = {s.id for s in store.sessions()}
    con = sqlite3.connect(path)  # back to the revision before, as that version left the store
    con.execute("UPDATE alembic_version SET version_num = '0024'")
    con.commit()
    con.close()
    with open_store(path) as store:
        found = _by_title(store)
        assert {s.id for s in store.sessions()} == before  # the same sessions, nothing read again
        assert found["Do the thing"].source_kind == "roo_code"
        assert found["Review the new parser implementation"].source_kind == "kilo_code"
        assert found["a Cline task"].source_kind == "cline"


def test_a_task_is_in_the_folder_cline_names_to_the_model(corpus, store):
    """Cline's files keep no folder field, but every turn's environment details name it ("Current Working
    Directory (…)"; its UI log, "Current Workspace Directory"): that is the session's folder and project (before, the
    task's id stood for its project). On the corpus's real Cline files."""
    folder = corpus / "cline"
    if not folder.is_dir():
        pytest.skip("no cline corpus")
    importing.import_paths(store, [folder])
    where = {s.cwd for s in store.sessions()}
    assert {"/workspaces/Online-Card-Architecture", "e:/devWorkSpace/mcp-vscode-server"} <= where
    assert all(s.project == s.cwd for s in store.sessions() if s.cwd)


def test_a_subtask_stored_as_a_session_before_is_not_stored_twice(store, tmp_path, monkeypatch):
    """A store of the version before holds a subtask as a session of its own: its files read again (Roo rewrote
    them) add none of its events to the orchestration's session; the session it was stays as it was."""
    import os

    from sessionscope.sources.cline import importer
    tasks = tmp_path / "tasks"
    shutil.copytree(PUBLIC / "roo_code" / "tasks", tasks)
    with monkeypatch.context() as before:  # as the version before read them
        before.setattr(importer, "_orchestration", lambda _folder, _item: None)
        importing.import_paths(store, [tasks])
    assert sorted(s.title for s in store.sessions()) == ["Do the thing", "Implement feature A"]
    child = tasks / "child-task-uuid-1111"
    for f in child.iterdir():
        os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 1_000_000_000))
    report = importing.import_paths(store, [tasks])
    assert report.files_read >= 1 and report.events_added == 0
    assert {s.title: s.event_count for s in store.sessions()} == {"Do the thing": 4, "Implement feature A": 4}
