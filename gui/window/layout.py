"""Room to read: which panes the window shows, the reading mode, and the reader's type size, remembered.

Every pane but the conversation can be hidden (View ▸ Sidebar, Session List, Tree and Detail), and the
list can narrow to a column of titles (View ▸ Narrow Session List). Reading
mode shows only the conversation across the window, the reader's cards under the session's header (its
title, tool, model, cost and branch) and the find box, the branch tree floating over it on Ctrl+Alt+3;
F8 or Esc leaves it, and the panes come back as they were. The reader's type grows and shrinks with
Ctrl+plus / Ctrl+minus (Ctrl+0: the default size).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QWidget

from sessionscope.gui.reader.reader_view import MEASURES, READER_SCALE

PANES = ("sidebar", "list", "tree")  # the action table's view.pane.<name> rows
ZOOM_RANGE = (-4, 12)  # points from the application's font
NARROW_LIST = 300  # pixels: the session list as a column of titles
TWO_LINE_TITLE = 340  # pixels: the wide list's title column when its rows have two lines


class PaneLayout(QObject):
    """The window's panes by name; `actions` are the window's QActions (their checked state follows)."""

    def __init__(self, window, panes: dict[str, QWidget], toolbar: QWidget, branch, actions: dict, parent=None,
                 *, sessions=None, center=None):
        super().__init__(parent or window)
        self.window, self.panes, self.toolbar, self.branch, self.actions = window, panes, toolbar, branch, actions
        self.sessions, self.center = sessions, center  # the session list's pane, and the splitter it shares
        self.narrow = False
        self.wide_sizes: list[int] | None = None
        self.overlay = None  # the tree floating over the conversation in reading mode
        self.plain_height = 0  # the list's row height before its rows took two lines
        self.two_lines = None  # the title column's two-line delegate, while rows have two lines
        self.two_line_rows = False
        self.reading = False
        self.before_reading: dict[str, bool] = {}
        self.reader_was_shown = False
        self.zoom = 0
        self.leave = QShortcut(QKeySequence(Qt.Key.Key_Escape), window, self._escape)
        self.leave.setEnabled(False)

    # -- panes ----------------------------------------------------------------------------

    def shown(self, name: str) -> bool:
        return not self.panes[name].isHidden()

    def focus_filter(self) -> None:
        """Ctrl+L: the session list's filter, shown first when it is not (in reading mode it typed into the hidden
        box, and the list it filtered switched the session under the reader)."""
        if self.reading or not self.shown("list"):
            self.set_pane("list", True)
        self.sessions.filter.setFocus()
        self.sessions.filter.selectAll()

    def set_pane(self, name: str, shown: bool) -> None:
        """Show or hide one pane (a pane shown during reading mode ends it: the user wants the panes back;
        but the tree, there, floats over the conversation instead, so reading goes on)."""
        if self.reading and name == "tree":
            self.set_tree_overlay(shown)
            return
        if self.reading and shown:
            self.set_reading(False)
        self.panes[name].setVisible(shown)
        self.actions[f"view.pane.{name}"].setChecked(shown)
        if not self.reading:
            QSettings().setValue(f"layout/{name}", shown)

    def set_reading(self, on: bool) -> None:
        """Only the conversation, or the panes as they were before."""
        if on == self.reading:
            self.actions["view.reading"].setChecked(on)
            return
        if on:
            self.before_reading = {name: self.shown(name) for name in PANES}
            self.reader_was_shown = self.branch.timeline_stack.currentWidget() is self.branch.reader
            self.reading = True
            for name in PANES:
                self.panes[name].hide()
                self.actions[f"view.pane.{name}"].setChecked(False)
            self.toolbar.hide()
            if not self.reader_was_shown:
                self._reader(True)
            self.branch.reader.setFocus()
        else:
            self.set_tree_overlay(False)
            self.reading = False
            for name in PANES:
                self.set_pane(name, self.before_reading.get(name, True))
            self.toolbar.show()
            if not self.reader_was_shown:
                self._reader(False)
        self.leave.setEnabled(on)
        self.actions["view.reading"].setChecked(on)
        QSettings().setValue("layout/reading", on)

    def set_narrow(self, on: bool) -> None:
        """The session list as a narrow column of titles (and each one's tool), or with all its columns."""
        if self.sessions is None or on == self.narrow:
            self.actions["view.pane.narrow"].setChecked(self.narrow)
            return
        self.narrow = on
        self.sessions.show_columns(narrow=on)
        self._rows()  # narrow rows say the rest under the title: two lines a row
        if self.center is not None:
            if on:
                self.wide_sizes = self.center.sizes()
                total = sum(self.wide_sizes)
                self.center.setSizes([NARROW_LIST, max(1, total - NARROW_LIST)])
            elif self.wide_sizes:
                self.center.setSizes(self.wide_sizes)
        self.actions["view.pane.narrow"].setChecked(on)
        QSettings().setValue("layout/narrow", on)

    def set_two_lines(self, on: bool) -> None:
        """Every row of the list as two lines, the wide list's too: the title, and under it its project,
        last activity, events and cost (the narrow list always has them)."""
        self.two_line_rows = on
        self._rows()
        self.actions["view.two_lines"].setChecked(on)
        QSettings().setValue("layout/two_lines", on)

    def _rows(self) -> None:
        if self.sessions is None:
            return
        from sessionscope.gui.sessions.title_delegate import TwoLineTitle
        view = self.sessions.view
        wanted = self.narrow or self.two_line_rows
        if wanted and self.two_lines is None:
            self.plain_height = view.verticalHeader().defaultSectionSize()
            self.two_lines = TwoLineTitle(view)
            view.setItemDelegateForColumn(0, self.two_lines)
            view.verticalHeader().setDefaultSectionSize(self.two_lines.rows(view))
            if not self.narrow and view.columnWidth(0) < TWO_LINE_TITLE:
                view.setColumnWidth(0, TWO_LINE_TITLE)  # a title and what it is need room; the user may narrow it
        elif not wanted and self.two_lines is not None:
            view.setItemDelegateForColumn(0, None)
            view.verticalHeader().setDefaultSectionSize(self.plain_height or 22)
            self.two_lines.deleteLater()
            self.two_lines = None

    def set_tree_overlay(self, on: bool) -> None:
        """In reading mode, the branch tree over the conversation's top right corner (Ctrl+Alt+3 again, Esc or
        leaving reading mode puts it back in its pane)."""
        tree = self.branch.tree
        if on and self.overlay is None:
            from PySide6.QtWidgets import QFrame, QVBoxLayout
            self.overlay = QFrame(self.branch)
            self.overlay.setObjectName("tree-overlay")
            self.overlay.setFrameShape(QFrame.Shape.StyledPanel)
            self.overlay.setAutoFillBackground(True)
            QVBoxLayout(self.overlay).addWidget(tree)
            self._place_overlay()
            QTimer.singleShot(0, self._place_overlay)  # (again once the panes hidden just now gave up their room)
            self.branch.installEventFilter(self)  # and whenever the window is resized
            self.overlay.show()
            self.overlay.raise_()
            tree.show()
        elif not on and self.overlay is not None:
            self.branch.removeEventFilter(self)
            self.branch.bottom.insertWidget(0, tree)  # back in its pane, before the detail
            self.overlay.deleteLater()
            self.overlay = None
        self.actions["view.pane.tree"].setChecked(on)

    def _reader(self, on: bool) -> None:
        self.branch.set_reader(on, remember=False)
        self.actions["view.reader"].setChecked(on)

    def _place_overlay(self) -> None:
        if self.overlay is None:
            return
        stack = self.branch.timeline_stack
        corner = stack.mapTo(self.branch, stack.rect().topRight())  # (the stack lies in a box of the pane)
        width, height = min(420, stack.width() // 2), min(360, stack.height() * 2 // 3)
        self.overlay.setGeometry(corner.x() - width - 24, corner.y() + 8, width, height)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.branch and event.type() == QEvent.Type.Resize:
            self._place_overlay()
        return False

    def _escape(self) -> None:
        """Esc in reading mode: the floating tree first, then reading mode itself."""
        if self.overlay is not None:
            self.set_tree_overlay(False)
        else:
            self.set_reading(False)

    # -- type size ------------------------------------------------------------------------

    def set_zoom(self, steps: int) -> None:
        """The reader's and the timeline's type, `steps` points from their own (clamped): the reader's is the
        application's a size larger (READER_SCALE), for reading."""
        self.zoom = max(ZOOM_RANGE[0], min(ZOOM_RANGE[1], steps))
        base = QApplication.font().pointSizeF()
        for widget, scale in ((self.branch.reader, READER_SCALE), (self.branch.timeline, 1.0)):
            font = widget.font()
            font.setPointSizeF(max(6.0, round(base * scale, 1) + self.zoom))
            widget.setFont(font)
        QSettings().setValue("reader/zoom", self.zoom)

    def set_measure(self, name: str) -> None:
        """How wide the reader's column may grow (View ▸ Reading Width), remembered."""
        self.branch.reader.set_measure(name)
        name = self.branch.reader.measure
        QSettings().setValue("reader/measure", name)
        for key in MEASURES:
            self._check(f"view.width.{key}", key == name)

    def _check(self, action: str, on: bool) -> None:
        a = self.actions.get(action)
        if a is not None and a.isCheckable():
            a.setChecked(on)

    # -- memory ---------------------------------------------------------------------------

    def restore(self) -> None:
        s = QSettings()
        for name in PANES:
            self.set_pane(name, s.value(f"layout/{name}", True, type=bool))
        self.set_zoom(s.value("reader/zoom", 0, type=int))
        self.set_measure(str(s.value("reader/measure", "wide", type=str)))
        if s.value("layout/narrow", False, type=bool):
            self.set_narrow(True)
        if s.value("layout/two_lines", True, type=bool):  # (two lines by default: the title, then what it is)
            self.set_two_lines(True)
        if s.value("layout/reading", False, type=bool):
            self.set_reading(True)


def restore_geometry(window: QWidget, splits: dict) -> None:
    """The window's size and place, and its splitters' sizes, as the user left them (`splits`: by the names they were
    always saved under); a first start is 1440×860."""
    s = QSettings()
    geometry = s.value("window/geometry")
    if isinstance(geometry, QByteArray) and not geometry.isEmpty():
        window.restoreGeometry(geometry)
    else:
        window.resize(1440, 860)
    for name, split in splits.items():
        state = s.value(f"window/{name}")
        if isinstance(state, QByteArray):
            split.restoreState(state)


def save_geometry(window: QWidget, splits: dict) -> None:
    s = QSettings()
    s.setValue("window/geometry", window.saveGeometry())
    for name, split in splits.items():
        s.setValue(f"window/{name}", split.saveState())
