"""Claude Code checkpoints in the window: files marked per prompt, the Files tab, restore and undo."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog, QLabel, QMessageBox

from sessionscope.sources.claude_code import import_paths
from tests.gui.pages import loaded
from tests.sources.checkpoint_home import build


@pytest.fixture
def checkpoint_window(window, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home = build(tmp_path)
    import_paths(window.store, [home.claude / "projects"])
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(home.t.session_id) >= 0, timeout=10000)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(home.t.session_id)
    return window, home


def _select(window, qtbot, event_id):
    model = window.branch.timeline_model
    qtbot.waitUntil(lambda: model.row_of(event_id) >= 0, timeout=5000)
    window.branch.timeline.selectRow(model.row_of(event_id))
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None and window.branch.detail.current_event.id == event_id,
                    timeout=5000)


def test_prompts_show_the_files_their_turn_changed(checkpoint_window, qtbot):
    window, home = checkpoint_window
    model = window.branch.timeline_model
    qtbot.waitUntil(lambda: bool(model.changed_files), timeout=5000)
    row = model.row_of(home.prompts["p1"])
    loaded(model, qtbot, row)
    assert model.data(model.index(row, 1)).endswith("✎2")
    from PySide6.QtCore import Qt
    assert "a.py" in model.data(model.index(row, 1), Qt.ItemDataRole.ToolTipRole)
    assert window.branch.tree.tree_model.changed_files == model.changed_files


def test_files_tab_shows_the_checkpoint(checkpoint_window, qtbot):
    window, home = checkpoint_window
    _select(window, qtbot, home.prompts["p1"])
    tab = window.branch.detail.files_tab
    window.branch.detail.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.files.count() == 6, timeout=5000)
    row = next(i for i in range(tab.files.count()) if tab.files.item(i).text() == "a.py")
    tab.files.setCurrentRow(row)
    assert "a v1" in tab.view.toPlainText()
    tab.mode.setCurrentIndex(2)  # against the file on disk now
    assert "+a v3" in tab.view.toPlainText() and "-a v1" in tab.view.toPlainText()
    tab.mode.setCurrentIndex(1)  # against the next checkpoint
    assert "+a v2" in tab.view.toPlainText()


def test_restore_code_to_here_and_undo(checkpoint_window, qtbot, monkeypatch):
    window, home = checkpoint_window
    _select(window, qtbot, home.prompts["p1"])
    seen = {}

    def accept(dialog):
        seen["ticked"] = dialog.selected()
        seen["rows"] = len(dialog.items)
        dialog.tree.setCurrentItem(dialog.items["a.py"])
        seen["diff"] = dialog.diff.toPlainText()
        seen["intro"] = dialog.findChildren(QLabel)[0].text()
        return QDialog.DialogCode.Accepted
    from sessionscope.gui.dialogs.restore_dialog import RestoreDialog
    monkeypatch.setattr(RestoreDialog, "exec", accept)
    prompt = window.store.event(home.prompts["p1"])
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        window.qactions["session.restore_files"].trigger()
    assert seen["ticked"] == {"a.py", "b.py", "new.py"} and seen["rows"] == 6 and "+a v1" in seen["diff"]
    # the prompt is named by its words and time, not by a hash
    assert " ".join(prompt.text.split())[:40] in seen["intro"] and home.prompts["p1"][:8] not in seen["intro"]
    assert (home.project / "a.py").read_bytes() == b"a v1\n" and not (home.project / "new.py").exists()
    assert "Undo Last Restore" in window.statusBar().currentMessage()
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        window.qactions["session.undo_restore"].trigger()
    assert (home.project / "a.py").read_bytes() == b"a v3\n" and (home.project / "new.py").exists()


def test_restore_code_and_conversation(checkpoint_window, qtbot, monkeypatch):
    window, home = checkpoint_window
    reply = next(e for e in window.store.events(home.t.session_id) if e.text == "edited them all")
    _select(window, qtbot, reply.id)
    from sessionscope.gui.dialogs.restore_dialog import RestoreDialog
    monkeypatch.setattr(RestoreDialog, "exec", lambda d: QDialog.DialogCode.Accepted)
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
        window.qactions["session.restore_all"].trigger()
    ch = blocker.args[0]
    assert ch.session.forked_from_event == home.prompts["p2"]  # rewound to the turn's prompt
    assert (home.project / "b.py").read_bytes() == b"b v1\n" and (home.project / "a.py").read_bytes() == b"a v2\n"
