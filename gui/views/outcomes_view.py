"""View ▸ Tool Outcomes: per tool (or model, project, source), how the agents' calls went — calls, failures by
kind, failure rate (a bar), time per call, retries, the calls right before a user's correction — over a range.
A row's failures are listed below it, each leading to its session at that call. The range and grouping are
remembered; the numbers come from sessionscope.insight.outcomes (folded once per session, cached)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QStyledItemDelegate,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.views.usage_view import RANGES, remembered
from sessionscope.gui.window.tables import sort_arrows
from sessionscope.history import cards as call_cards
from sessionscope.safety.untrusted import printable

GROUPS = [("by tool", "tool"), ("by model", "model"), ("by project", "project"), ("by source", "source")]
COLUMNS = ["Name", "Calls", "Failed", "Failure rate", "Errors", "Refused", "Stopped", "p50", "p90", "Retries",
           "Before a correction", "Output / call"]
TIPS = {
    "Failed": "Errors + refused + stopped",
    "Failure rate": "Of its calls, the share that failed",
    "Errors": "The tool said it failed (an error result, a non-zero exit code)",
    "Refused": "The user refused the permission it asked for",
    "Stopped": "Interrupted by the user, or no result ever came",
    "p50": "Half the calls took at most this long (from the call to its result; within 19 %)",
    "p90": "Nine in ten calls took at most this long",
    "Retries": "The same call, with the same arguments, made again after it failed",
    "Before a correction": "Times this was the last call before the user corrected or stopped the agent",
    "Output / call": "Characters of output per call",
}
RATE_COLUMN = 3
SHOWN_FAILURES = 200


def seconds_text(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s" if value < 60 else f"{value / 60:.1f} min"


def _first_words(text: str, limit: int) -> str:
    """A tool's output as one line (its control characters shown escaped), cut at `limit`."""
    text = printable(" ".join((text or "").split()))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _call_words(e) -> str:
    """A call as the reader's card says it ("Bash: pytest -x", "Edit src/app.py"), not its JSON input."""
    made = call_cards.calls(e.payload or "")
    return _first_words(call_cards.summary(made[0]) if made else (e.text or ""), 160)


class RateBar(QStyledItemDelegate):
    """The failure rate as a bar behind its number: red grows with the share that failed."""

    def paint(self, painter: QPainter, option, index) -> None:
        rate = index.data(Qt.ItemDataRole.UserRole) or 0.0
        painter.save()
        r = option.rect.adjusted(2, 4, -2, -4)
        painter.fillRect(QRect(r.left(), r.top(), int(r.width() * min(1.0, rate)), r.height()),
                         QColor(220, 38, 38, 90 + int(120 * min(1.0, rate))))
        painter.restore()
        super().paint(painter, option, index)


class _Number(QTableWidgetItem):
    """A cell that sorts by its value, not its text."""

    def __init__(self, text: str, value: float):
        super().__init__(text)
        self.setData(Qt.ItemDataRole.UserRole, value)
        self.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def __lt__(self, other) -> bool:
        return (self.data(Qt.ItemDataRole.UserRole) or 0) < (other.data(Qt.ItemDataRole.UserRole) or 0)


class OutcomesView(QDialog):
    sig_open = Signal(str, str)  # a session, and the call to show in it

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Tool outcomes")
        self.setObjectName("outcomes-view")
        self.store, self.rows = store, []
        self._gen = Generation()
        settings = QSettings()
        self.range, self.group = QComboBox(), QComboBox()
        self.range.addItems([label for label, _since in RANGES if _since is not None])
        self.group.addItems([label for label, _g in GROUPS])
        top = QHBoxLayout()
        for label, box, key, default in (("Range", self.range, "range", "Last 30 days"),
                                         ("Group", self.group, "group", "by tool")):
            remembered(top, label, box, f"outcomes/{key}", default, self.refresh)
        top.addStretch(1)
        self.summary = QLabel()
        self.summary.setObjectName("outcomes-summary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("outcomes-table")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        for i, name in enumerate(COLUMNS):
            if name in TIPS:
                self.table.horizontalHeaderItem(i).setToolTip(TIPS[name])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.setItemDelegateForColumn(RATE_COLUMN, RateBar(self.table))
        self.table.horizontalHeader().setStyle(sort_arrows())  # ▼ on a descending order, as in the list
        self.table.setSortingEnabled(True)
        self.sort = (1, Qt.SortOrder.DescendingOrder)  # the most used first, until a header is clicked
        self.table.horizontalHeader().sortIndicatorChanged.connect(lambda col, order: setattr(self, "sort", (col, order)))
        self.table.itemSelectionChanged.connect(self._selected)
        self.failures_label = QLabel("Select a row to list its failed calls")
        self.failures = QListWidget()
        self.failures.setObjectName("outcomes-failures")
        self.failures.itemActivated.connect(self._open)
        below = QVBoxLayout()
        below.setContentsMargins(0, 0, 0, 0)
        below.addWidget(self.failures_label)
        below.addWidget(self.failures)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        holder = QWidget()
        holder.setLayout(below)
        split.addWidget(holder)
        split.setSizes([400, 200])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        geometry = settings.value("outcomes/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1100, 680)

    def done(self, result: int) -> None:
        QSettings().setValue("outcomes/geometry", self.saveGeometry())
        super().done(result)

    def query(self) -> dict:
        since = dict((label, fn) for label, fn in RANGES if fn is not None)[self.range.currentText()]()
        return {"by": dict(GROUPS)[self.group.currentText()], "since": since}

    def refresh(self) -> None:
        token, store, query = self._gen.next(), self.store, self.query()
        self.summary.setText("Reading the tool calls…")
        run_task(lambda: store.tool_outcomes(**query), lambda rows: self._shown(token, rows), self._failed, owner=self)

    def _failed(self, exc: BaseException) -> None:
        self.summary.setText(f"Could not read the tool calls: {type(exc).__name__}: {exc}")

    def _shown(self, token, rows) -> None:
        if not self._gen.current(token):
            return
        self.rows = rows
        calls, failed = sum(o.calls for o in rows), sum(o.failures for o in rows)
        self.summary.setText(f"<b>{calls:,}</b> calls · <b>{failed:,}</b> failed ({failed / calls:.1%})"
                             if calls else "No tool calls in this range")
        self.table.blockSignals(True)  # (a selection of the old rows must not be read against the new ones)
        self.table.clearSelection()
        self.table.setSortingEnabled(False)
        self.table.setRowCount(0)
        self.table.setRowCount(len(rows))
        for r, o in enumerate(rows):
            name = QTableWidgetItem(o.name)
            name.setData(Qt.ItemDataRole.UserRole + 1, r)
            name.setToolTip(f"{o.name}: {len(o.sessions):,} sessions")
            cells = [name, _Number(f"{o.calls:,}", o.calls), _Number(f"{o.failures:,}", o.failures),
                     _Number(f"{o.failure_rate:.1%}", o.failure_rate), _Number(f"{o.errors:,}", o.errors),
                     _Number(f"{o.refused:,}", o.refused), _Number(f"{o.interrupted:,}", o.interrupted),
                     _Number(seconds_text(o.percentile(0.5)), o.percentile(0.5) or 0),
                     _Number(seconds_text(o.percentile(0.9)), o.percentile(0.9) or 0),
                     _Number(f"{o.retries:,}", o.retries), _Number(f"{o.corrections:,}", o.corrections),
                     _Number(f"{o.mean_output:,.0f}", o.mean_output)]
            for c, item in enumerate(cells):
                self.table.setItem(r, c, item)
        column, order = self.sort
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(column, order)
        self.table.blockSignals(False)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.failures.clear()
        self.failures_label.setText("Select a row to list its failed calls")

    def _selected(self) -> None:
        items = self.table.selectedItems()
        name = next((i for i in items if i.column() == 0), None)
        index = name.data(Qt.ItemDataRole.UserRole + 1) if name is not None else None
        if index is None or index >= len(self.rows):
            return
        o = self.rows[index]
        ids, store, token = o.failed_ids[:SHOWN_FAILURES], self.store, self._gen.value
        if not ids:
            self.failures.clear()
            self.failures_label.setText(f"{o.name}: no failed calls")
            return

        said_ids = [o.failed_results[c] for c in ids if c in o.failed_results]

        def work():
            events = store.events_by_ids(ids)
            said = {e.id: e for e in store.events_by_ids(said_ids)}
            titles = {sid: store.session(sid).title for sid in {e.session_id for e in events}}
            return events, said, titles
        self.failures_label.setText(f"{o.name}: {o.failures:,} failed calls — reading them…")
        run_task(work, lambda result: self._listed(token, o, *result), self._failed, owner=self)

    def _listed(self, token, o, events, said, titles) -> None:
        if not self._gen.current(token):
            return
        self.failures.clear()
        for e in sorted(events, key=lambda e: -(e.ts or 0)):
            result = said.get(o.failed_results.get(e.id, ""))
            error = _first_words(result.text if result is not None else "", 220) or "no result came: it was stopped"
            item = QListWidgetItem(f"{_call_words(e)}\n    {error}")
            item.setData(Qt.ItemDataRole.UserRole, (e.session_id, e.id))
            item.setToolTip(f"{printable(titles.get(e.session_id) or e.session_id)}\n\n"
                            f"{_first_words(result.text if result is not None else '', 1200)}\n\n"
                            "Open the session at this call (Enter or double-click)")
            self.failures.addItem(item)
        shown = len(events)
        more = f" (the {shown:,} kept to look at)" if shown < o.failures else ""
        self.failures_label.setText(f"{o.name}: {o.failures:,} failed calls{more} — open one in its session")

    def _open(self, item: QListWidgetItem) -> None:
        sid, eid = item.data(Qt.ItemDataRole.UserRole)
        self.sig_open.emit(sid, eid)
