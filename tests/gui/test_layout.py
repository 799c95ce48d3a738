"""Room to read: panes hidden and shown from the View menu, reading mode, the reader's type size and its
column, all remembered by the next window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt


@pytest.fixture(autouse=True)
def fresh_layout():
    """Each test starts from, and leaves, the default layout (settings outlive a window)."""
    for group in ("layout", "reader"):
        QSettings().remove(group)
    yield
    for group in ("layout", "reader"):
        QSettings().remove(group)


def _shown(w) -> dict[str, bool]:
    return {"sidebar": w.sidebar.isVisible(), "list": w.sessions.isVisible(), "tree": w.branch.bottom.isVisible(),
            "toolbar": w.toolbar.isVisible(), "reader": w.branch.reader.isVisible()}


def test_each_pane_hides_and_comes_back_and_the_next_window_remembers(window, qtbot):
    a = window.qactions
    assert all(a[f"view.pane.{n}"].isChecked() for n in ("sidebar", "list", "tree"))
    a["view.pane.list"].trigger()
    a["view.pane.tree"].trigger()
    assert _shown(window) | {"reader": None} == {"sidebar": True, "list": False, "tree": False, "toolbar": True,
                                                 "reader": None}
    assert window.branch.isVisible() and window.branch.width() > 0
    from sessionscope.gui.window.main_window import MainWindow
    again = MainWindow()  # what the next start shows
    qtbot.addWidget(again)
    again.show()
    assert (again.sessions.isHidden(), again.branch.bottom.isHidden(), again.sidebar.isHidden()) == (True, True, False)
    assert not again.qactions["view.pane.list"].isChecked()
    again.close()
    a["view.pane.list"].trigger()
    assert window.sessions.isVisible() and a["view.pane.list"].isChecked()


def test_reading_mode_shows_the_conversation_alone_and_gives_the_panes_back(window, qtbot):
    a = window.qactions
    a["view.pane.sidebar"].trigger()  # hidden before: it stays hidden after
    assert not window.branch.reader.isVisible()  # the table, as the user left it
    a["view.reading"].trigger()
    assert _shown(window) == {"sidebar": False, "list": False, "tree": False, "toolbar": False, "reader": True}
    assert window.branch.timeline_label.isVisible() and window.branch.find_edit.isVisible()  # the slim header
    from sessionscope.gui.sessions.session_model import badge
    s = window.session
    window.branch.show_branch(s.head_event_id, None)  # (shown again with the list hidden: priced all the same)
    qtbot.waitUntil(lambda: "$" in window.branch.timeline_label.text(), timeout=5000)
    header = window.branch.timeline_label.text()
    assert badge(s.source_kind)[0] in header and (s.model or "") in header  # title, tool, model, cost, branch
    assert a["view.reader"].isChecked() and a["view.reading"].isChecked()
    # the conversation takes the window's width
    qtbot.waitUntil(lambda: window.branch.reader.width() > window.width() * 0.9)
    qtbot.keyClick(window.branch.reader, Qt.Key.Key_Escape)  # (or F8 again)
    assert _shown(window) == {"sidebar": False, "list": True, "tree": True, "toolbar": True, "reader": False}
    assert not a["view.reading"].isChecked() and not a["view.reader"].isChecked()
    assert QSettings().value("timeline/reader", False, type=bool) is False  # reading mode did not change it


def test_the_readers_type_grows_and_shrinks_and_its_column_has_a_measure(window, qtbot):
    from PySide6.QtWidgets import QApplication

    from sessionscope.gui.reader.reader_view import MEASURES, READER_SCALE
    a = window.qactions
    reader, timeline = window.branch.reader, window.branch.timeline
    a["view.reader"].trigger()
    base, table = reader.font().pointSizeF(), timeline.font().pointSizeF()
    # the reader reads in larger type than the window's tables
    assert base == round(QApplication.font().pointSizeF() * READER_SCALE, 1) > table
    a["view.zoom_in"].trigger()
    a["view.zoom_in"].trigger()
    assert reader.font().pointSizeF() == base + 2 and timeline.font().pointSizeF() == table + 2
    assert QSettings().value("reader/zoom", type=int) == 2
    a["view.zoom_out"].trigger()
    assert reader.font().pointSizeF() == base + 1
    a["view.zoom_reset"].trigger()
    assert reader.font().pointSizeF() == base
    for _ in range(40):
        a["view.zoom_out"].trigger()
    assert reader.font().pointSizeF() >= 6  # clamped, never unreadable
    a["view.zoom_reset"].trigger()
    # a wide window centres a column of the chosen measure instead of stretching the prose; the user widens it
    a["view.reading"].trigger()
    window.resize(2400, 900)
    qtbot.waitUntil(lambda: reader.viewport().width() > 2000)
    char = reader.fontMetrics().averageCharWidth()
    assert a["view.width.wide"].isChecked()  # the default
    widths = {}
    for name in ("narrow", "comfortable", "wide", "full"):
        a[f"view.width.{name}"].trigger()
        assert a[f"view.width.{name}"].isChecked() and QSettings().value("reader/measure") == name
        left, column = reader.column()
        widths[name] = column
        if MEASURES[name]:
            assert left > 200 and column <= char * (MEASURES[name] + 4)
            shown = reader.visible()
            assert shown and all(rect.left() >= left for _n, rect in shown)
    assert widths["narrow"] < widths["comfortable"] < widths["wide"] < widths["full"] == reader.viewport().width() - 16
    a["view.width.wide"].trigger()
    a["view.reading"].trigger()


def test_the_list_narrows_to_a_column_of_titles(window, qtbot):
    from sessionscope.gui.sessions.session_model import COLUMNS
    a, view = window.qactions, window.sessions.view
    window.resize(1600, 900)
    qtbot.waitUntil(lambda: window.sessions.width() > 400, timeout=5000)
    a["view.pane.narrow"].trigger()
    shown = [key for col, (key, _t, _s) in enumerate(COLUMNS) if not view.isColumnHidden(col)]
    assert shown == ["title", "source"]
    qtbot.waitUntil(lambda: window.sessions.width() <= 320, timeout=5000)
    assert QSettings().value("layout/narrow", type=bool) is True
    # two lines a row: the title, and under it the project, the last activity, the events and the cost
    from sessionscope.gui.sessions.title_delegate import TwoLineTitle
    assert isinstance(view.itemDelegateForColumn(0), TwoLineTitle)
    assert view.rowHeight(0) >= 2 * view.fontMetrics().height()
    image = view.viewport().grab()  # painted without error, the first row's two lines drawn
    assert not image.isNull()
    a["view.pane.narrow"].trigger()
    assert all(not view.isColumnHidden(col) for col in range(len(COLUMNS)))
    assert isinstance(view.itemDelegateForColumn(0), TwoLineTitle)  # the wide list's rows: two lines by default
    qtbot.waitUntil(lambda: window.sessions.width() > 400, timeout=5000)


def test_in_reading_mode_the_tree_floats_over_the_conversation(window, qtbot):
    a, b = window.qactions, window.branch
    a["view.reading"].trigger()
    a["view.pane.tree"].trigger()  # Ctrl+Alt+3: over the conversation, reading goes on
    lay = window.layout_
    assert lay.reading and lay.overlay is not None and lay.overlay.isVisible()
    assert b.tree.parent() is lay.overlay and b.tree.isVisible() and a["view.pane.tree"].isChecked()
    assert lay.overlay.geometry().right() <= b.width() and lay.overlay.width() < b.width()
    qtbot.keyClick(b.reader, Qt.Key.Key_Escape)  # the floating tree first
    assert lay.reading and lay.overlay is None and b.tree.parent() is b.bottom
    a["view.pane.tree"].trigger()
    a["view.reading"].trigger()  # leaving reading mode puts it back in its pane too
    assert not lay.reading and lay.overlay is None and b.tree.parent() is b.bottom and b.bottom.isVisible()
    assert b.bottom.indexOf(b.tree) == 0 and b.tree.isVisible()


def test_two_line_rows_in_the_wide_list_too(window, qtbot):
    from sessionscope.gui.sessions.title_delegate import TwoLineTitle
    a, view = window.qactions, window.sessions.view
    # by default: the title, and under it its project, last activity, events and cost
    assert a["view.two_lines"].isChecked() and not view.isColumnHidden(1)
    assert isinstance(view.itemDelegateForColumn(0), TwoLineTitle)
    assert view.rowHeight(0) >= 2 * view.fontMetrics().height()
    a["view.two_lines"].trigger()
    assert view.itemDelegateForColumn(0) is None and view.rowHeight(0) < 2 * view.fontMetrics().height()
    assert QSettings().value("layout/two_lines", type=bool) is False
    a["view.pane.narrow"].trigger()  # the narrow list always has two lines
    assert isinstance(view.itemDelegateForColumn(0), TwoLineTitle)
    a["view.pane.narrow"].trigger()  # leaving it keeps the one line the user asked for
    assert view.itemDelegateForColumn(0) is None
    a["view.two_lines"].trigger()
    assert isinstance(view.itemDelegateForColumn(0), TwoLineTitle)
