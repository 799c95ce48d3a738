"""The window's tables: how a QTableView over one of our item models looks and fits its columns."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QProxyStyle, QStyle, QStyleOptionHeader, QTableView

from sessionscope.gui.jobs.workers import hold_background


def fit_columns(view: QTableView, stretch: int, stretch_width: int = 0, fixed: dict[int, int] | None = None,
                paged: bool = False) -> None:
    """The others fit their contents (measured on the rows in view) whenever the rows are replaced or
    added; `stretch` takes the rest. With `stretch_width` the column starts that wide and the user
    resizes it instead; `fixed` columns start at their width and are never fitted. Cells changed are
    fitted again, but for a `paged` model (one that reads its rows a page at a time as they scroll into
    view, and says so in its `reading_page` while it tells a page is in) only the first page read after the
    rows were replaced: a column fitted again with every page scrolled to cost the scrolling 10–30 ms a
    column a page.

    Fitted by hand rather than with ResizeToContents, which measures again on every dataChanged: a
    cost column priced a batch at a time in a list of 20,000 sessions held the UI for 30 ms a batch.
    """
    header, fixed = view.horizontalHeader(), fixed or {}
    header.setResizeContentsPrecision(50)
    count = view.model().columnCount()
    fitted = [c for c in range(count) if c != stretch and c not in fixed]
    for col in range(count):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
    for col, width in fixed.items():
        header.resizeSection(col, width)
    due: set[int] = set()  # the columns to measure on the next turn of the event loop
    replaced = [True]  # (paged) no page fitted since the rows were replaced

    def fit() -> None:
        # one column a turn of the event loop: the fourteen of a list read again were ~250 ms in one go, a
        # stall a reload every few seconds of an import; one at a time, what waits (a paint, a click) goes between
        if not due:  # (a change to the stretched or a fixed column alone)
            return
        col = min(due)
        due.discard(col)
        view.resizeColumnToContents(col)
        if due:
            refit.start()
    refit = QTimer(view, singleShot=True, interval=0, timeout=fit)

    def columns(first: int, last: int) -> None:
        due.update(c for c in fitted if first <= c <= last)
        refit.start()
    def rows_replaced() -> None:
        replaced[0] = True
        columns(0, count - 1)

    def changed(first: int, last: int) -> None:
        if paged and view.model().reading_page:
            if not replaced[0]:
                return
            replaced[0] = False
        columns(first, last)
    for signal in (view.model().modelReset, view.model().rowsInserted, view.model().layoutChanged):
        signal.connect(lambda *_: rows_replaced())
    # changed cells (a cost priced, a mark) measure only their own columns
    view.model().dataChanged.connect(lambda tl, br, *_: changed(tl.column(), br.column()))
    if stretch_width:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(stretch, stretch_width)
    else:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)


class SortArrows(QProxyStyle):
    """The sort arrow as people read it: ▼ on a descending order (newest first), ▲ on an ascending one. Fusion
    draws them the other way round (Qt's old convention), so a list sorted newest-first showed ▲."""

    def drawPrimitive(self, element, option, painter, widget=None) -> None:
        if element == QStyle.PrimitiveElement.PE_IndicatorHeaderArrow and isinstance(option, QStyleOptionHeader):
            flipped = QStyleOptionHeader(option)
            up, down = QStyleOptionHeader.SortIndicator.SortUp, QStyleOptionHeader.SortIndicator.SortDown
            flipped.sortIndicator = {up: down, down: up}.get(option.sortIndicator, option.sortIndicator)
            option = flipped
        super().drawPrimitive(element, option, painter, widget)


_ARROWS: list[SortArrows] = []  # one style for every header, kept alive here (a widget does not own its style)


def sort_arrows() -> SortArrows:
    if not _ARROWS:
        _ARROWS.append(SortArrows())
    return _ARROWS[0]


def table(model, sort_column: int | None = None) -> QTableView:
    """A list's table; with `sort_column`, sortable by a header click, sorted by that column, descending, at first."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.setShowGrid(False)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalScrollBar().valueChanged.connect(lambda _v: hold_background())  # (background passes wait meanwhile)
    if sort_column is not None:
        view.horizontalHeader().setStyle(sort_arrows())
        view.setSortingEnabled(True)
        view.sortByColumn(sort_column, Qt.SortOrder.DescendingOrder)
    return view
