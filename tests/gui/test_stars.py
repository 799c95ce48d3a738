"""Stars (#33): S, the toolbar or the list's menu stars the session shown (and takes the star away again),
the list marks it, the sidebar's Starred lists it, and the command line sees the same star."""

from __future__ import annotations

from PySide6.QtCore import Qt


def _sidebar_item(window, text: str):
    bar = window.sidebar
    return next(bar.topLevelItem(i) for i in range(bar.topLevelItemCount()) if bar.topLevelItem(i).text(0) == text)


def test_a_star_is_set_from_the_window_listed_in_the_sidebar_and_taken_away(window, qtbot):
    from sessionscope.cli.main import main

    store, s = window.store, window.session
    star = window.qactions["session.star"]
    assert star.isEnabled() and star.isCheckable() and not star.isChecked()
    assert star.shortcut().toString() == "S"
    window.sessions.view.setFocus()
    qtbot.keyClick(window.sessions.view, Qt.Key.Key_S)  # the shortcut, from the list
    qtbot.waitUntil(lambda: store.session(s.id).starred, timeout=10000)
    qtbot.waitUntil(lambda: window.session.starred and star.isChecked(), timeout=10000)
    row = window.sessions.model.row_of(s.id)
    qtbot.waitUntil(lambda: window.sessions.model.index(row, 0).data().startswith("★ "), timeout=10000)
    qtbot.waitUntil(lambda: _sidebar_item(window, "★ Starred").text(1) == "1", timeout=10000)
    window.sidebar.setCurrentItem(_sidebar_item(window, "★ Starred"))
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 1
                    and window.sessions.model.session_at(0).id == s.id, timeout=10000)
    assert [e["action"] for e in store.audit_log(s.id)][:1] == ["star"]
    assert main(["--store", str(store.url).removeprefix("sqlite:///"), "list", "--starred"]) == 0

    star.trigger()  # again: the star goes
    qtbot.waitUntil(lambda: not store.session(s.id).starred and not star.isChecked(), timeout=10000)
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 0, timeout=10000)  # Starred lists none now
    qtbot.waitUntil(lambda: _sidebar_item(window, "★ Starred").text(1) == "0", timeout=10000)
    assert [e["action"] for e in store.audit_log(s.id)][:1] == ["unstar"]
