"""File ▸ Who Wrote This… (#37 item 3): a file's lines, each with the session whose edit wrote it (coloured by
session, explained in its tooltip), its history across sessions, the file as a change left it, and a line or a change
opening its session at that edit."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QPlainTextEdit

pytestmark = pytest.mark.sqlite_only


def _edited(store, folder):
    path = folder / "calc.py"
    first = "def add(a, b):\n    return a + b\n"
    sid = store.open_session(title="calculator", cwd=str(folder)).id
    store.append(sid, "message", role="user", text="write calc.py", ts=1_780_000_000)
    w = store.append(sid, "tool_call", role="assistant", text="Write", ts=1_780_000_001,
                     payload={"id": "w", "name": "Write", "input": {"file_path": "calc.py", "content": first}})
    other = store.open_session(title="subtraction", cwd=str(folder)).id
    e = store.append(other, "tool_call", role="assistant", text="Edit", ts=1_780_000_100,
                     payload={"id": "e", "name": "Edit", "input": {"file_path": str(path), "old_string": "    return a + b\n",
                              "new_string": "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"}})
    path.write_text(first + "\n\ndef sub(a, b):\n    return a - b\n# by hand\n")
    return path, (sid, w.id), (other, e.id)


def test_who_wrote_each_line_and_its_history(window, qtbot, tmp_path, monkeypatch):
    path, (a, w), (b, e) = _edited(window.store, tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    window.qactions["app.blame"].trigger()  # Ctrl+Shift+W: a file is asked for
    view = window.openers.blame_view
    qtbot.waitUntil(lambda: view.result is not None, timeout=10000)
    rows = {view.model.index(r, 4).data(): r for r in range(view.model.rowCount())}
    assert view.model.change_at(rows["def add(a, b):"]).event_id == w
    assert view.model.change_at(rows["    return a - b"]).event_id == e
    assert view.model.change_at(rows["# by hand"]) is None
    assert "calculator" in view.model.index(rows["def add(a, b):"], 1).data()
    assert view.model.index(rows["def add(a, b):"], 0).data(Qt.ItemDataRole.BackgroundRole) != \
        view.model.index(rows["def sub(a, b):"], 0).data(Qt.ItemDataRole.BackgroundRole)  # a hue a session
    assert "No agent's edit" in view.model.index(rows["# by hand"], 4).data(Qt.ItemDataRole.ToolTipRole)
    assert "6 of 7 lines written by 2 sessions" in view.summary.text()
    assert QSettings().value("blame/last") == str(path)
    # the history: both changes, in time order; the file as the first left it
    assert view.history.topLevelItemCount() == 2
    view.history.setCurrentItem(view.history.topLevelItem(0))
    assert view.as_it_was.isEnabled()
    assert view.show_state() == "def add(a, b):\n    return a + b\n"
    state = next(d for d in view.findChildren(QDialog) if d.objectName() == "blame-state")
    assert "return a + b" in state.findChild(QPlainTextEdit).toPlainText()
    state.close()
    # a line opens its session at the edit
    view.lines.doubleClicked.emit(view.model.index(rows["    return a - b"], 4))
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == b, timeout=10000)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None
                    and window.branch.detail.current_event.id == e, timeout=10000)
    view.close()


def test_from_an_edit_in_the_timeline_its_file_as_it_left_it(window, qtbot, tmp_path):
    path, (a, w), _b = _edited(window.store, tmp_path)
    path.unlink()  # gone from this machine since: its history is still there
    window.sessions.model.reload()
    window.open_session(a, w)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None
                    and window.branch.detail.current_event.id == w, timeout=10000)
    action = window.qactions["session.file_history"]
    qtbot.waitUntil(action.isEnabled, timeout=5000)
    action.trigger()
    view = window.openers.blame_view
    qtbot.waitUntil(lambda: view.result is not None, timeout=10000)
    assert "not on this machine" in view.summary.text() and view.tabs.currentIndex() == 1
    assert view.history.currentItem().data(0, Qt.ItemDataRole.UserRole).event_id == w
    assert view.show_state() == "def add(a, b):\n    return a + b\n"
    window.branch.timeline.selectRow(0)  # the prompt: no file
    qtbot.waitUntil(lambda: not action.isEnabled(), timeout=5000)
    view.close()
