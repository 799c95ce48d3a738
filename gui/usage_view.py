"""View ▸ Usage: tokens and cost per day or week, stacked by project, model or source; totals, the
cache hit ratio and the costliest sessions. A bar, a legend entry or a session leads to the list."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
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
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .session_model import tokens_text
from .usage_chart import StackedBars, color_of
from .workers import Generation, run_task

RANGES = [("Last 7 days", 7), ("Last 30 days", 30), ("Last 90 days", 90), ("Last 365 days", 365), ("All time", 0)]
TOP = 25  # costliest sessions listed


def money(v: float) -> str:
    return f"${v:,.2f}" if v >= 1 or v == 0 else f"${v:.3f}" if v >= 0.01 else f"${v:.4f}"


def day_label(bucket: str, with_year: bool = False) -> str:
    return dt.date.fromisoformat(bucket).strftime("%b %d %Y" if with_year else "%b %d")


class UsageView(QDialog):
    sig_filter = Signal(dict, str)  # session-list filters, and what they are in words
    sig_open = Signal(str)  # a session to show

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Usage and cost")
        self.setObjectName("usage-view")
        self.store, self.report = store, None
        self._gen = Generation()
        self.range = QComboBox()
        self.range.addItems([label for label, _d in RANGES])
        self.range.setCurrentIndex(1)
        self.by = QComboBox()
        self.by.addItems(["per day", "per week"])
        self.group = QComboBox()
        self.group.addItems(["by project", "by model", "by source"])
        self.show_as = QComboBox()
        self.show_as.addItems(["cost", "tokens"])
        row = QHBoxLayout()
        for label, box in (("Range", self.range), ("Bars", self.by), ("Stacked", self.group), ("Show", self.show_as)):
            row.addWidget(QLabel(label))
            row.addWidget(box)
            box.currentIndexChanged.connect(self.refresh)
        row.addStretch(1)
        self.totals = QLabel("Reading usage…")
        self.totals.setWordWrap(True)
        self.totals.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = StackedBars()
        self.chart.sig_clicked.connect(self._bar_clicked)
        self.legend = QListWidget()
        self.legend.setMaximumWidth(260)
        self.legend.setToolTip("Click to list this group's sessions in the range")
        self.legend.itemActivated.connect(self._legend_clicked)
        self.legend.itemClicked.connect(self._legend_clicked)
        self.top = QTableWidget(0, 5)
        self.top.setHorizontalHeaderLabels(["Session", "Project", "Tokens", "Cost", ""])
        self.top.setColumnHidden(4, True)
        self.top.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.top.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.top.verticalHeader().hide()
        self.top.horizontalHeader().setStretchLastSection(False)
        self.top.setWordWrap(False)
        self.top.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.top.setColumnWidth(1, 160)
        self.top.itemActivated.connect(lambda item: self.sig_open.emit(self.top.item(item.row(), 4).text()))
        upper = QWidget()
        chart_row = QHBoxLayout(upper)
        chart_row.setContentsMargins(0, 0, 0, 0)
        chart_row.addWidget(self.chart, 1)
        chart_row.addWidget(self.legend)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(upper)
        split.addWidget(self.top)
        split.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.totals)
        lay.addWidget(split, 1)
        self.resize(1000, 680)
        geometry = QSettings().value("usage/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        self.refresh()

    def closeEvent(self, event) -> None:
        QSettings().setValue("usage/geometry", self.saveGeometry())
        super().closeEvent(event)

    # -- reading --------------------------------------------------------------------

    def query(self) -> dict:
        days = RANGES[self.range.currentIndex()][1]
        since = (dt.date.today() - dt.timedelta(days=days - 1)).isoformat() if days else ""
        return {"since": since, "by": "week" if self.by.currentIndex() else "day",
                "group": ("project", "model", "source")[self.group.currentIndex()]}

    def refresh(self) -> None:
        token, store, query = self._gen.next(), self.store, self.query()

        def work():
            r = store.usage(**query)
            titles = {s.id: (s.title or s.id[:8], s.project) for s in
                      (store.session(sid) for _c, _t, sid in r.session_costs[:TOP])}
            return r, titles
        self.totals.setText("Reading usage…")
        run_task(work, lambda result: self._shown(token, *result), self._failed, owner=self)

    def _failed(self, exc: BaseException) -> None:
        self.totals.setText(f"Could not read the usage: {type(exc).__name__}: {exc}")

    def _shown(self, token, r, titles) -> None:
        if not self._gen.current(token):
            return
        self.report = r
        inp, out, read, write = r.totals
        text = (f"<b>{money(r.total_cost)}</b> · input {tokens_text(inp)} · output {tokens_text(out)} · "
                f"cache reads {tokens_text(read)} · cache writes {tokens_text(write)} · "
                f"cache hit ratio {r.cache_hit_ratio:.0%}")
        if r.unpriced:
            names = ", ".join(sorted(r.unpriced)[:4]) + ("…" if len(r.unpriced) > 4 else "")
            text += (f"<br><span style='color:#b26b00'>No price known for {names}: "
                     f"{tokens_text(sum(r.unpriced.values()))} tokens not in the cost</span>")
        self.totals.setText(text)
        cost = self.show_as.currentIndex() == 0
        shown = r.groups[:len_colours()]
        values: dict[tuple[str, str], float] = {}
        for (bucket, group), parts in r.tokens.items():
            name = group if group in shown else "other"
            v = r.costs.get((bucket, group), 0.0) if cost else float(sum(parts))
            values[(bucket, name)] = values.get((bucket, name), 0.0) + v
        groups = shown + (["other"] if len(r.groups) > len(shown) else [])
        fmt = money if cost else (lambda v: tokens_text(int(v)))
        years = len({b[:4] for b in r.buckets}) > 1
        prefix = "" if self.by.currentIndex() == 0 else "wk "

        def label(bucket: str) -> str:
            return prefix + day_label(bucket, years)
        self.chart.set_data(r.buckets, groups, values, fmt, label)
        self.legend.clear()
        from .session_model import project_labels
        names = project_labels(groups) if self.query()["group"] == "project" else {}
        for i, g in enumerate(groups):
            total = sum(v for (_b, name), v in values.items() if name == g)
            item = QListWidgetItem(_swatch(color_of(i) if g != "other" else "#b0b0b0"),
                                   f"{names.get(g, g)}  {fmt(total)}")
            item.setToolTip(f"{g}\nclick to list its sessions")
            item.setData(Qt.ItemDataRole.UserRole, g)
            self.legend.addItem(item)
        self.top.setRowCount(0)
        from .session_model import project_labels
        short = project_labels(p for _t, p in titles.values())
        for c, tokens, sid in r.session_costs[:TOP]:
            title, project = titles.get(sid, (sid[:8], ""))
            project = short.get(project, project)
            n = self.top.rowCount()
            self.top.insertRow(n)
            for col, value in enumerate((title, project, tokens_text(tokens), money(c), sid)):
                item = QTableWidgetItem(value)
                if col in (2, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.top.setItem(n, col, item)
        self.top.setToolTip("The costliest sessions in the range (double-click or Enter to show one)")

    # -- to the list ----------------------------------------------------------------

    def _sessions(self, bucket: str | None, group: str) -> list[str]:
        r = self.report
        keys = [k for k in r.sessions_in if (bucket is None or k[0] == bucket) and
                (k[1] == group or (group == "other" and k[1] not in r.groups[:len_colours()]))]
        return sorted({sid for k in keys for sid in r.sessions_in[k]})

    def _bar_clicked(self, bucket: str, group: str) -> None:
        when = self.chart.label(bucket)
        self.sig_filter.emit({"session_ids": self._sessions(bucket, group)}, f"{group} · {when}")

    def _legend_clicked(self, item: QListWidgetItem) -> None:
        group = item.data(Qt.ItemDataRole.UserRole)
        kind = self.query()["group"]
        if kind == "project" and group not in ("other", "(no project)"):
            self.sig_filter.emit({"project": group}, f"project {group}")
        elif kind == "source" and group != "other":
            self.sig_filter.emit({"source_kind": group}, f"source {group}")
        else:
            self.sig_filter.emit({"session_ids": self._sessions(None, group)},
                                 f"{group} · {self.range.currentText().lower()}")


def len_colours() -> int:
    from .usage_chart import PALETTE
    return len(PALETTE)


def _swatch(colour: str) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)
