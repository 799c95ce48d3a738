"""Organizing many sessions at once (#33): star, tag, archive and export act on the list's selection (each session
through the operations layer, audited), the menus say how many, a refusal is that session's alone and said;
tags are typed in the list's Tags cell with completion, and the sidebar lists them with counts."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sessionscope.gui.sessions.session_model import COLUMNS
from sessionscope.gui.sessions.tag_edit import TagCompleter, tag_line
from tests.gui.pages import answer_tags

TAGS = next(i for i, c in enumerate(COLUMNS) if c[0] == "tags")


def _select_rows(window, qtbot, titles):
    """Ctrl-click selection, as a person makes it: the rows of `titles`, the last one current."""
    view, model = window.sessions.view, window.sessions.model
    rows = [next(i for i, s in enumerate(model.rows) if s.title == t) for t in titles]
    for n, r in enumerate(rows):
        view.scrollTo(model.index(r, 0))
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.ControlModifier if n else Qt.KeyboardModifier.NoModifier,
                         view.visualRect(model.index(r, 0)).center())
    qtbot.waitUntil(lambda: {s.title for s in window.sessions.selected_sessions()} == set(titles), timeout=5000)
    return [model.rows[r] for r in rows]


def _sidebar_child(window, group: str, text: str):
    bar = window.sidebar
    top = next(bar.topLevelItem(i) for i in range(bar.topLevelItemCount()) if bar.topLevelItem(i).text(0) == group)
    return next((top.child(j) for j in range(top.childCount()) if top.child(j).text(0) == text), None)


THREE = ["Write the release notes for 2.4", "Nightly triage bot", "Upgrade to Django 5.1"]


def test_star_and_tags_on_a_selection_each_audited_and_the_sidebar_counts_them(window, qtbot, monkeypatch):
    store = window.store
    chosen = _select_rows(window, qtbot, THREE)
    star = window.qactions["session.star"]
    assert star.text() == "S&tar (3 sessions)" and window.qactions["session.export"].text() == "E&xport (3 sessions)…"
    assert window.qactions["session.rename"].text() == "Re&name…"  # one session's own: unchanged
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        star.trigger()
    assert all(store.session(s.id).starred for s in chosen)
    assert all([a["action"] for a in store.audit_log(s.id)][:1] == ["star"] for s in chosen)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Starred 3 sessions", timeout=5000)

    dialogs = answer_tags(monkeypatch, add="review, ui")
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        window.qactions["session.tag"].trigger()
    assert dialogs[0].several and dialogs[0].windowTitle() == "Tags of 3 sessions"
    assert all(set(store.session(s.id).tags) == {"review", "ui"} for s in chosen)
    qtbot.waitUntil(lambda: (item := _sidebar_child(window, "Tags", "# review")) is not None and item.text(1) == "3",
                    timeout=10000)
    assert _sidebar_child(window, "Tags", "# demo").text(1) == "2"  # the demo store's own
    window.sidebar.setCurrentItem(_sidebar_child(window, "Tags", "# ui"))
    qtbot.waitUntil(lambda: {s.title for s in window.sessions.model.rows} == set(THREE), timeout=10000)
    row = window.sessions.model.row_of(chosen[0].id)
    assert window.sessions.model.index(row, TAGS).data() == "review, ui"

    # all of them starred: the star goes from every one; a tag taken away leaves the others
    _select_rows(window, qtbot, THREE)
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        star.trigger()
    assert not any(store.session(s.id).starred for s in chosen)
    answer_tags(monkeypatch, remove="ui")
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        window.qactions["session.tag"].trigger()
    assert all(store.session(s.id).tags == ("review",) for s in chosen)
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 0, timeout=10000)  # the list was "# ui"


def test_a_batch_long_enough_to_show_its_progress_ends_and_closes_it(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QApplication, QProgressDialog

    from sessionscope.gui.sessions import batch_actions
    monkeypatch.setattr(batch_actions, "SHOW_AFTER_MS", 0)  # shown at once, as a slow batch's is
    chosen = _select_rows(window, qtbot, THREE)
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        window.qactions["session.star"].trigger()
    assert all(window.store.session(s.id).starred for s in chosen)
    qtbot.waitUntil(lambda: not any(isinstance(w, QProgressDialog) and w.isVisible()
                                    for w in QApplication.topLevelWidgets()), timeout=5000)


def test_archive_on_a_selection_asks_first_and_says_what_was_refused(window, qtbot, monkeypatch):
    store = window.store
    window.qactions["view.show_archived"].trigger()  # the archived spike is listed too
    qtbot.waitUntil(lambda: any(s.status == "archived" for s in window.sessions.model.rows), timeout=10000)
    chosen = _select_rows(window, qtbot, ["Old spike: GraphQL gateway", *THREE[:2]])
    archive = window.qactions["session.archive"]
    assert archive.isEnabled() and archive.text() == "&Archive (3 sessions)"  # it applies to two of them
    asked, warned = [], []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No)
    archive.trigger()
    assert "Archive these 3 sessions?" in asked[0] and store.session(chosen[1].id).status != "archived"
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        archive.trigger()
    assert {store.session(s.id).status for s in chosen} == {"archived"}
    qtbot.waitUntil(lambda: bool(warned), timeout=5000)
    assert warned[0].startswith("Archived 2 sessions; 1 refused") and "Old spike: GraphQL gateway" in warned[0]
    refused = [a for a in store.audit_log(chosen[0].id) if a["action"] == "archive"]
    assert refused and refused[0]["outcome"] == "refused"


def test_the_tags_cell_is_typed_in_with_completion(window, qtbot):
    store, view, model = window.store, window.sessions.view, window.sessions.model
    s = _select_rows(window, qtbot, ["Nightly triage bot"])[0]
    index = model.index(model.row_of(s.id), TAGS)
    assert model.flags(index) & Qt.ItemFlag.ItemIsEditable
    view.edit(index)
    editor = view.indexWidget(index) or view.focusWidget()
    qtbot.waitUntil(lambda: view.state() == view.State.EditingState, timeout=5000)
    editor = view.focusWidget()
    assert isinstance(editor.completer(), TagCompleter)
    editor.setText("")
    qtbot.keyClicks(editor, "nightly, te")
    completer = editor.completer()
    # the demo store's tag, completed after the comma, the tags before it kept
    assert completer.currentCompletion() == "nightly, tests" and completer.popup().isVisible()
    qtbot.keyClick(completer.popup(), Qt.Key.Key_Down)
    qtbot.keyClick(completer.popup(), Qt.Key.Key_Return)
    assert editor.text() == "nightly, tests"
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000):
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert store.session(s.id).tags == ("nightly", "tests")
    assert [a["action"] for a in store.audit_log(s.id)][:1] == ["tag"]
    qtbot.waitUntil(lambda: model.index(model.row_of(s.id), TAGS).data() == "nightly, tests", timeout=10000)


def test_a_typed_line_becomes_tags_each_once():
    from sessionscope.gui.sessions.tag_edit import split
    assert split(" a, b ,, a,  c ") == ["a", "b", "c"]
    edit = tag_line(["review", "ui"], "x, re")
    c = edit.completer()
    c.setCompletionPrefix(c.splitPath(edit.text())[0])
    assert c.currentCompletion() == "x, review"
