"""Pins (#33): P pins the event chosen in the timeline or the reader (and takes the pin away again), the
timeline and the reader mark it ⚑, View ▸ Pins lists the pins of every session and opens one where it is,
and the command line sees the same pins."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.gui.pages import choose_first_reply


def test_an_event_is_pinned_marked_listed_and_opened_where_it_is(window, qtbot):
    store, s = window.store, window.session
    tm, timeline = window.branch.timeline_model, window.branch.timeline
    event = choose_first_reply(window, qtbot)
    pin = window.qactions["event.pin"]
    qtbot.waitUntil(lambda: pin.isEnabled() and not pin.isChecked(), timeout=5000)
    timeline.setFocus()
    qtbot.keyClick(timeline, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: [p.event_id for p in store.pins(s.id)] == [event.id], timeout=10000)
    qtbot.waitUntil(lambda: event.id in tm.pinned and pin.isChecked(), timeout=10000)
    qtbot.waitUntil(lambda: tm.index(tm.row_of(event.id), 1).data().startswith("⚑ "), timeout=10000)
    assert [e["action"] for e in store.audit_log(s.id)][:1] == ["pin"]

    # View ▸ Pins: every session's pins; Enter opens one in its session, that event chosen
    other = next(x for x in store.sessions() if x.id != s.id)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(other.id)
    window.qactions["view.pins"].trigger()
    view = window.openers.pins_view
    qtbot.waitUntil(lambda: view.table.rowCount() == 1, timeout=10000)
    assert view.table.item(0, 0).text() == s.title and "message" in view.table.item(0, 2).text()
    view.only_this.setChecked(True)  # the session shown now has none
    qtbot.waitUntil(lambda: view.table.rowCount() == 0, timeout=10000)
    view.only_this.setChecked(False)
    qtbot.waitUntil(lambda: view.table.rowCount() == 1, timeout=10000)
    view.table.setCurrentCell(0, 0)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == s.id, timeout=10000)
    qtbot.waitUntil(lambda: window.branch.kept_event() == event.id, timeout=10000)

    # the reader marks it too; Pin Event there (its context menu) takes the pin away: a typed P is the start of a
    # find in the reader, never an action (#60)
    view.close()
    window.activateWindow()
    window.branch.set_reader(True)
    r = window.branch.reader
    card = r.card_for(event.id)
    qtbot.waitUntil(lambda: r.doc(card) is not None and r.doc(card).toPlainText().startswith("⚑ "), timeout=10000)
    r.setFocus()
    window.qactions["event.pin"].trigger()
    qtbot.waitUntil(lambda: store.pins() == [] and not pin.isChecked(), timeout=10000)
    qtbot.waitUntil(lambda: r.doc(r.card_for(event.id)) is not None
                    and not r.doc(r.card_for(event.id)).toPlainText().startswith("⚑ "), timeout=10000)
    window.qactions["view.pins"].trigger()
    qtbot.waitUntil(lambda: view.table.rowCount() == 0, timeout=10000)
    view.close()


def test_an_event_is_pinned_from_the_tree_and_from_a_search_result(window, qtbot):
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QApplication

    from sessionscope.gui.dialogs.search_dialog import SearchDialog
    store, s = window.store, window.session
    model = window.branch.tree.tree_model
    qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=10000)
    row, node = next((i, n) for i, n in enumerate(model.layout_.nodes) if not n.fork_session)

    def pin_in_tree():
        window._tree_menu(node.id, QPoint(0, 0))
        return next(a for a in window.tree_menu.actions() if a.text() == "&Pin Event")
    action = pin_in_tree()
    assert action.isEnabled() and not action.isChecked()
    action.trigger()
    qtbot.waitUntil(lambda: [p.event_id for p in store.pins(s.id)] == [node.id], timeout=10000)
    qtbot.waitUntil(lambda: model.index(row).data().startswith("⚑ "), timeout=10000)  # the tree marks it
    action = pin_in_tree()
    assert action.isChecked()  # the menu says it is pinned; choosing it takes the pin away
    action.trigger()
    qtbot.waitUntil(lambda: store.pins(s.id) == [], timeout=10000)
    window.tree_menu.close()

    window.openers.open_search()
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, SearchDialog) and w.isVisible())
    dialog.run("cookie")
    qtbot.waitUntil(lambda: dialog.results.topLevelItemCount() > 0, timeout=10000)
    hit = dialog.results.topLevelItem(0).child(0)
    session_id, event_id = hit.data(0, Qt.ItemDataRole.UserRole)
    dialog._menu(dialog.results.visualItemRect(hit).center())
    next(a for a in dialog.menu.actions() if a.text() == "Pin This Event").trigger()
    qtbot.waitUntil(lambda: [p.event_id for p in store.pins(session_id)] == [event_id], timeout=10000)
    dialog.menu.close()
    dialog.close()
