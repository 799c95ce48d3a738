"""Managed-agent sessions in the window: pulled in the background from a workspace (the loopback API),
status, usage and resources in the list and the Session tab, the composer sends and interrupts, and
Delete goes to Anthropic first."""

from __future__ import annotations

import pytest

pytest.importorskip("anthropic")

from tests.managed.api_server import KEY, Workspace, sample, serve  # noqa: E402


@pytest.fixture
def workspace(demo, monkeypatch):
    from sessionscope.sources.managed_agents import location_of
    from sessionscope.sources.scan import source_row

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    store, _ = demo
    ws = Workspace()
    ids = sample(ws)
    with serve(ws) as url:
        store.write(source_row, "managed_agents", location_of(url))  # as Settings ▸ Add Workspace does
        yield ws, ids


def _select(window, qtbot, sid):
    window.imports.managed_sync.pull()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(sid) >= 0, timeout=10000)
    window.sessions.view.selectRow(window.sessions.model.row_of(sid))
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == sid, timeout=5000)
    title = window.session.title
    qtbot.waitUntil(lambda: title in window.branch.timeline_label.text(), timeout=5000)  # the timeline shows it


def test_pulled_sessions_show_status_usage_and_resources(window, qtbot, workspace):
    from sessionscope.gui.sessions.session_model import COLUMNS
    ws, ids = workspace
    _select(window, qtbot, ids["idle"])
    row = window.sessions.model.row_of(ids["idle"])
    cell = {key: window.sessions.model.index(row, i).data() for i, (key, *_rest) in enumerate(COLUMNS)}
    assert (cell["source"], cell["status"], cell["tokens"]) == ("Managed", "idle", "2.2k")
    from PySide6.QtCore import Qt
    tip = window.sessions.model.index(row, [c[0] for c in COLUMNS].index("status")).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.splitlines() == ["idle at Anthropic", "1,200 in, 900 cache reads, 80 out",
                                "resources: file incidents.csv, memory store team-notes, github repository ops"]
    running = window.sessions.model.row_of(ids["running"])
    assert window.sessions.model.index(running, [c[0] for c in COLUMNS].index("status")).data() == "running"
    info = window.branch.detail.session_info.toPlainText()
    for text in ("Cache reads", "900", "Researcher v3", "/mnt/data/incidents.csv", "team-notes",
                 "https://github.com/acme/ops @ main", "Active time"):
        assert text in info, text
    assert window.branch.composer.isVisible() and window.branch.composer.edit.isEnabled()
    assert not window.branch.composer.interrupt_button.isEnabled()  # idle: nothing to interrupt
    assert not window.qactions["session.rewind"].isEnabled() and not window.qactions["session.unarchive"].isEnabled()


def test_the_composer_sends_and_interrupts(window, qtbot, workspace):
    ws, ids = workspace
    sid = ids["idle"]
    _select(window, qtbot, sid)
    rows = window.branch.timeline_model.rowCount()
    window.branch.composer.edit.setPlainText("Now draft the postmortem")
    assert window.branch.composer.send_button.isEnabled()
    window.branch.composer.send_button.click()
    qtbot.waitUntil(lambda: window.branch.composer.edit.toPlainText() == "", timeout=10000)
    assert ws.events[sid][-2]["content"] == [{"type": "text", "text": "Now draft the postmortem"}]
    qtbot.waitUntil(lambda: window.session.status == "running" and window.branch.composer.interrupt_button.isEnabled(),
                    timeout=10000)
    qtbot.waitUntil(lambda: window.branch.timeline_model.rowCount() > rows, timeout=10000)
    # a running session is followed closely: by the API's event stream
    qtbot.waitUntil(lambda: (window.imports.managed_sync.following or ("",))[0] == sid, timeout=10000)
    ws.reply(sid, "Draft ready: see postmortem.md")  # the agent answers at Anthropic
    window.imports.managed_sync.pull()
    qtbot.waitUntil(lambda: window.session.status == "idle", timeout=10000)
    assert window.imports.managed_sync.timer.interval() == 30000
    window.branch.composer.edit.setPlainText("one more")
    window.branch.composer.send_button.click()
    qtbot.waitUntil(lambda: window.branch.composer.interrupt_button.isEnabled(), timeout=10000)
    window.branch.composer.interrupt_button.click()
    qtbot.waitUntil(lambda: window.session.status == "idle" and not window.branch.composer.interrupt_button.isEnabled(),
                    timeout=10000)
    assert ws.events[sid][-2]["type"] == "user.interrupt"


def test_the_composer_is_only_for_managed_sessions(window, qtbot, workspace, demo):
    ws, ids = workspace
    _select(window, qtbot, ids["terminated"])
    assert window.branch.composer.isVisible() and not window.branch.composer.edit.isEnabled()
    assert "takes no more messages" in window.branch.composer.state.text()
    store, demo_ids = demo
    other = next(s for s in store.sessions() if s.source_kind != "managed_agents")
    window.sessions.view.selectRow(window.sessions.model.row_of(other.id))
    qtbot.waitUntil(lambda: window.session.id == other.id, timeout=5000)
    assert not window.branch.composer.isVisible()


def test_delete_goes_to_anthropic_first_and_keeps_the_copy(window, qtbot, workspace, dialogs, monkeypatch):
    from PySide6.QtWidgets import QMessageBox
    ws, ids = workspace
    sid = ids["idle"]
    _select(window, qtbot, sid)
    asked = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(
        lambda parent, title, text, *a, **k: asked.append(text) or QMessageBox.StandardButton.Yes))
    window.qactions["session.delete"].trigger()
    qtbot.waitUntil(lambda: sid not in ws.sessions, timeout=10000)
    assert "at Anthropic?" in asked[0]
    qtbot.waitUntil(lambda: "deleted (noticed" in window.branch.detail.session_info.toPlainText(), timeout=10000)
    assert window.sessions.model.row_of(sid) >= 0 and not window.branch.composer.edit.isEnabled()


def test_settings_add_a_workspace_and_stop_pulling_it(qtbot, store, monkeypatch):
    from sessionscope.gui.dialogs.settings_dialog import SettingsDialog
    from sessionscope.gui.views.managed_panel import WorkspaceDialog
    from sessionscope.sources.managed_agents import importer

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    dialog = SettingsDialog(store)
    qtbot.addWidget(dialog)
    box = dialog.workspaces
    monkeypatch.setattr(WorkspaceDialog, "exec", lambda self: True)
    monkeypatch.setattr(WorkspaceDialog, "values", lambda self: ("http://127.0.0.1:9/", "wrkspc_01", ""))
    with qtbot.waitSignal(box.sig_added, timeout=5000):
        box._add()
    assert importer.workspaces(store) == ["http://127.0.0.1:9#wrkspc_01"]
    qtbot.waitUntil(lambda: box.list.count() == 1, timeout=5000)
    assert "key from the environment" in box.list.item(0).text()
    box.list.setCurrentRow(0)
    assert box.stop_button.isEnabled()
    box._stop()
    qtbot.waitUntil(lambda: box.list.count() == 0, timeout=5000)
    assert importer.workspaces(store) == []
    # stopped, after it was added (newest first)
    assert [a["detail"]["enabled"] for a in store.audit_log() if a["action"] == "managed.workspace"] == [False, True]


def test_settings_lists_openai_projects_beside_anthropic_workspaces(qtbot, store, monkeypatch):
    """Each source behind an API has its own box; OpenAI's asks for a project, with OpenAI's placeholders."""
    pytest.importorskip("openai")
    from sessionscope.gui.dialogs.settings_dialog import SettingsDialog
    from sessionscope.gui.views.managed_panel import WorkspaceDialog
    from sessionscope.sources import api_workspaces

    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-test")
    dialog = SettingsDialog(store)
    qtbot.addWidget(dialog)
    titles = [b.title() for b in dialog.workspace_boxes]
    assert any(t.startswith("Anthropic managed agents") for t in titles)
    box = next(b for b in dialog.workspace_boxes if b.title().startswith("OpenAI hosted agents"))
    add = WorkspaceDialog(box, title=box.workspaces.add_title, hints=box.workspaces)
    qtbot.addWidget(add)
    assert add.base.placeholderText() == "https://api.openai.com/v1" and add.workspace.placeholderText().startswith("proj_")
    monkeypatch.setattr(WorkspaceDialog, "exec", lambda self: True)
    monkeypatch.setattr(WorkspaceDialog, "values", lambda self: ("http://127.0.0.1:9/v1", "proj_01", ""))
    with qtbot.waitSignal(box.sig_added, timeout=5000):
        box._add()
    assert api_workspaces.locations(store, "openai_hosted") == ["http://127.0.0.1:9/v1#proj_01"]
    qtbot.waitUntil(lambda: box.list.count() == 1, timeout=5000)
    assert "key from the environment (OPENAI_API_KEY)" in box.list.item(0).text()


def test_a_running_session_shown_is_followed_as_the_api_streams_it(window, qtbot, workspace, monkeypatch):
    """The session shown, while it runs, follows the API's event stream: what the agent does reaches the timeline
    as it happens (here with the 3 s pull put out of reach), and following ends once it goes idle."""
    from sessionscope.gui.views import managed_panel
    monkeypatch.setattr(managed_panel, "FAST_MS", 600_000)
    ws, ids = workspace
    sid = ids["running"]
    _select(window, qtbot, sid)
    sync = window.imports.managed_sync
    qtbot.waitUntil(lambda: any(p.endswith(f"/v1/sessions/{sid}/events/stream") for _m, p in ws.requests),
                    timeout=10000)
    assert sync.following is not None and sync.following[0] == sid
    rows = window.branch.timeline_model.rowCount()
    ws.event(sid, "agent.message", content=[{"type": "text", "text": "Streamed as it happened."}])
    qtbot.waitUntil(lambda: window.branch.timeline_model.rowCount() > rows, timeout=5000)
    composer = window.branch.composer  # its pieces, shown as they came
    assert composer.said.isVisible() and composer.said.text().endswith("Streamed as it happened.")
    ws.reply(sid, "Done: the report is in report.md.")
    qtbot.waitUntil(lambda: window.session.status == "idle", timeout=10000)
    qtbot.waitUntil(lambda: sync.following is None, timeout=10000)
