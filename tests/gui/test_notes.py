"""Notes (#33): N writes a note on the event chosen (or the session), the reader shows it under its event
and the timeline marks it, search finds it, View ▸ Notes lists, changes and removes notes (asking first)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sessionscope.gui.dialogs import ask
from tests.gui.pages import choose_first_reply, loaded


def test_a_note_is_written_shown_found_changed_and_removed(window, qtbot, monkeypatch, dialogs):
    store, s = window.store, window.session
    tm, timeline = window.branch.timeline_model, window.branch.timeline
    event = choose_first_reply(window, qtbot)
    asked = []

    def answer(parent, title, label, text="", lines=False):
        asked.append((title, text))
        assert lines  # a note is paragraphs
        return "We chose **retries with jitter**" if not text else "retries with jitter, capped at 5"
    monkeypatch.setattr(ask, "text", answer)
    timeline.setFocus()
    qtbot.keyClick(timeline, Qt.Key.Key_N)
    qtbot.waitUntil(lambda: [n.event_id for n in store.notes(s.id)] == [event.id], timeout=10000)
    assert asked[0][0] == "Note on this event"
    qtbot.waitUntil(lambda: [n.text for n in tm.notes.get(event.id, ())] == ["We chose **retries with jitter**"],
                    timeout=10000)
    loaded(tm, qtbot, tm.row_of(event.id))
    assert "✍ " in tm.index(tm.row_of(event.id), 1).data()
    window.branch.set_reader(True)
    r = window.branch.reader
    qtbot.waitUntil(lambda: (d := r.doc(r.card_for(event.id))) is not None and "✍ Your note" in d.toPlainText()
                    and "retries with jitter" in d.toPlainText(), timeout=10000)
    assert store.search("jitter")[0].kind == "note"

    window.qactions["view.notes"].trigger()
    view = window.openers.notes_view
    qtbot.waitUntil(lambda: view.table.rowCount() == 1, timeout=10000)
    assert view.table.item(0, 2).text() == f"event {event.id[:8]}"
    view.table.setCurrentCell(0, 0)
    next(b for b in view.findChildren(type(view.buttons.itemAt(0).widget())) if b.text() == "Edit…").click()
    qtbot.waitUntil(lambda: store.notes(s.id)[0].text == "retries with jitter, capped at 5", timeout=10000)
    qtbot.waitUntil(lambda: "capped" in view.table.item(0, 3).text(), timeout=10000)
    monkeypatch.setattr(QMessageBox, "question", staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes))
    next(b for b in view.findChildren(type(view.buttons.itemAt(0).widget())) if b.text() == "Remove").click()
    qtbot.waitUntil(lambda: store.notes() == [] and view.table.rowCount() == 0, timeout=10000)
    assert [e["action"] for e in store.audit_log(s.id)][:3] == ["note.rm", "note.edit", "note.add"]
    view.close()
