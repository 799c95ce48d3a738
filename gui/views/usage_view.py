"""View ▸ Usage: what a range cost at a glance (spend, tokens, sessions, the cache hit ratio; the top
projects, models and tools), tokens and cost per day, week or month stacked by project, model or
tool, and the costliest sessions. A bar, a legend entry or a session leads to the list. The range and
the chart's choices are remembered."""

from __future__ import annotations

import datetime as dt
import html

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QDialog,
    QFrame,
    QGridLayout,
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

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.sessions.session_model import badge, tokens_text
from sessionscope.gui.views.usage_chart import StackedBars, color_of


def _this(unit: str) -> str:
    today = dt.date.today()
    start = {"day": today, "week": today - dt.timedelta(days=today.weekday()), "month": today.replace(day=1)}[unit]
    return start.isoformat()


def _last(days: int) -> str:
    return (dt.date.today() - dt.timedelta(days=days - 1)).isoformat()


# (what the box says, the first day of the range: "" for all time)
RANGES = [("Today", lambda: _this("day")), ("This week", lambda: _this("week")), ("This month", lambda: _this("month")),
          ("Last 7 days", lambda: _last(7)), ("Last 30 days", lambda: _last(30)), ("Last 90 days", lambda: _last(90)),
          ("Last 365 days", lambda: _last(365)), ("All time", lambda: ""), (CUSTOM := "Custom range", None)]
BARS = [("per day", "day"), ("per week", "week"), ("per month", "month")]
GROUPS = [("by project", "project"), ("by model", "model"), ("by tool", "source"), ("by person", "person")]
TOP = 25  # costliest sessions listed
TOP_GROUPS = 5  # projects, models and sources listed at a glance


def money(v: float) -> str:
    return f"${v:,.2f}" if v >= 1 or v == 0 else f"${v:.3f}" if v >= 0.01 else f"${v:.4f}"


def remembered(row: QHBoxLayout, label: str, box: QComboBox, setting: str, default: str, changed) -> None:
    """A labelled choice in `row` that starts at what was chosen last time (QSettings `setting`), remembers each new
    choice and calls `changed`."""
    row.addWidget(QLabel(label))
    row.addWidget(box)
    box.setCurrentIndex(max(0, box.findText(QSettings().value(setting, default))))
    box.currentIndexChanged.connect(lambda _i: QSettings().setValue(setting, box.currentText()))
    box.currentIndexChanged.connect(changed)


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
        # the first range shown widens until it holds something, unless the user chose it (remembered): "Last 30
        # days" showed $0.00 when the newest reply was 31 days old
        self._widen = not QSettings().contains("usage/range")
        self.note = ""  # what the view chose for the user, said under the totals
        row = self._choices()
        row.addStretch(1)
        # at a glance: four numbers of the range, and what cost the most in it
        cards = QHBoxLayout()
        self.cards: dict[str, QLabel] = {}
        for key, caption in (("spend", "Spend"), ("tokens", "Tokens"), ("sessions", "Sessions"),
                             ("cache", "Cache hit ratio")):
            card, value = _card(caption)
            value.setObjectName(f"kpi-{key}")
            self.cards[key] = value
            cards.addWidget(card)
        self.tops: dict[str, QListWidget] = {}
        tops = QGridLayout()
        for col, (key, caption) in enumerate((("project", "Top projects"), ("model", "Top models"),
                                              ("source", "Top tools"))):
            tops.addWidget(QLabel(f"<b>{caption}</b> by cost"), 0, col)
            box = QListWidget()
            box.setObjectName(f"top-{key}")
            box.setMaximumHeight(110)
            box.setToolTip(f"What the range cost by {'tool' if key == 'source' else key}: click one to list its sessions")
            box.itemClicked.connect(lambda item, key=key: self._top_clicked(key, item))
            self.tops[key] = box
            tops.addWidget(box, 1, col)
        from sessionscope.gui.views.heatmap import Heatmap
        self.heatmap = Heatmap()  # the last year by day, whatever the range: tokens or cost, as the chart shows
        self.heatmap.setObjectName("usage-heatmap")
        self.heatmap.with_messages = False
        self.heatmap.set_metric(1)
        self.heatmap.sig_day.connect(self._day_clicked)
        self.year: dict[str, set[str]] = {}  # day → the sessions that spent on it
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
        lay.addLayout(cards)
        lay.addLayout(tops)
        lay.addWidget(self.totals)
        lay.addWidget(self.heatmap)
        lay.addWidget(split, 1)
        self.resize(1000, 760)
        from sessionscope.gui.window import design
        self.setStyleSheet(design.sheet())  # the cards, in the theme's colours
        geometry = QSettings().value("usage/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        self.refresh()

    def closeEvent(self, event) -> None:
        QSettings().setValue("usage/geometry", self.saveGeometry())
        super().closeEvent(event)

    # -- reading --------------------------------------------------------------------

    def _custom_shown(self) -> None:
        custom = self.range.currentText() == CUSTOM
        self.since_edit.setVisible(custom)
        self.until_edit.setVisible(custom)

    def _range_words(self) -> str:
        q = self.query()
        return f"{q['since']} – {q['until']}" if "until" in q else self.range.currentText().lower()

    def query(self) -> dict:
        dates = {}
        if self.range.currentText() == CUSTOM:
            first, last = sorted((self.since_edit.date().toPython(), self.until_edit.date().toPython()))
            dates = {"since": first.isoformat(), "until": last.isoformat()}
        else:
            dates = {"since": RANGES[self.range.currentIndex()][1]()}
        return {**dates, "by": BARS[self.by.currentIndex()][1], "group": GROUPS[self.group.currentIndex()][1]}

    def refresh(self) -> None:
        token, store, query = self._gen.next(), self.store, self.query()

        def work():
            r = store.usage(**query)
            titles = {s.id: (s.title or s.id[:8], s.project) for s in
                      (store.session(sid) for _c, _t, sid in r.session_costs[:TOP])}
            return r, titles, year_by_day(store)
        self.totals.setText("Reading usage…")
        run_task(work, lambda result: self._shown(token, *result), self._failed, owner=self)

    def _choices(self) -> QHBoxLayout:
        """The row of choices: the range (and a custom range's two days), the bars, the stacking, cost or tokens;
        each starts where the user left it."""
        settings = QSettings()
        self.range = QComboBox()
        self.range.addItems([label for label, _since in RANGES])
        self.by = QComboBox()
        self.by.addItems([label for label, _by in BARS])
        self.group = QComboBox()
        self.group.addItems([label for label, _g in GROUPS])
        self.show_as = QComboBox()
        self.show_as.addItems(["cost", "tokens"])
        self.since_edit, self.until_edit = QDateEdit(), QDateEdit()
        for edit, key, default in ((self.since_edit, "since", _last(30)), (self.until_edit, "until", _this("day"))):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setObjectName(f"usage-{key}")
            edit.setDate(dt.date.fromisoformat(settings.value(f"usage/custom_{key}", default)))
            edit.setToolTip("The first day of the range" if key == "since" else "The last day of the range")
            edit.dateChanged.connect(lambda d, key=key: QSettings().setValue(f"usage/custom_{key}",
                                                                             d.toPython().isoformat()))
            edit.dateChanged.connect(self.refresh)
        row = QHBoxLayout()
        for label, box, key, default in (("Range", self.range, "range", "Last 30 days"), ("Bars", self.by, "bars", "per day"),
                                         ("Stacked", self.group, "group", "by project"),
                                         ("Show", self.show_as, "show", "cost")):
            remembered(row, label, box, f"usage/{key}", default, self.refresh)
            if box is self.range:  # a custom range: its first and last day, beside the box
                row.addWidget(self.since_edit)
                row.addWidget(self.until_edit)
        self.range.currentIndexChanged.connect(self._custom_shown)
        self.range.currentIndexChanged.connect(lambda _i: setattr(self, "note", ""))  # the user's choice: said no more
        self._custom_shown()
        return row

    def _wider(self) -> bool:
        """Show the next wider range of RANGES' "Last N days" and all time, saying so; False when there is none."""
        labels = [label for label, _since in RANGES]
        now = self.range.currentText()
        wider = [x for x in ("Last 30 days", "Last 90 days", "Last 365 days", "All time") if x in labels]
        if now not in wider or now == wider[-1]:
            return False
        self.note = f"{now} had no usage: showing {wider[wider.index(now) + 1].lower()}"
        self.range.blockSignals(True)  # (not remembered: the user did not choose it)
        self.range.setCurrentIndex(labels.index(wider[wider.index(now) + 1]))
        self.range.blockSignals(False)
        self._custom_shown()
        self.refresh()
        return True

    def _failed(self, exc: BaseException) -> None:
        self.totals.setText(f"Could not read the usage: {type(exc).__name__}: {exc}")

    def _shown(self, token, r, titles, year=None) -> None:
        if not self._gen.current(token):
            return
        if year is not None:
            activity, self.year, first = year
            self.heatmap.set_data(activity, first, HEATMAP_WEEKS)
            self.heatmap.set_metric(2 if self.show_as.currentIndex() == 0 else 1)
        if self._widen and not any(r.sessions_in.values()) and self._wider():
            return  # (the wider range's report is on its way)
        self._widen = False
        self.report = r
        inp, out, read, write = r.totals
        text = (f"<b>{money(r.total_cost)}</b> · input {tokens_text(inp)} · output {tokens_text(out)} · "
                f"cache reads {tokens_text(read)} · cache writes {tokens_text(write)} · "
                f"cache hit ratio {r.cache_hit_ratio:.0%}")
        if r.unpriced:
            names = ", ".join(sorted(r.unpriced)[:4]) + ("…" if len(r.unpriced) > 4 else "")
            text += (f"<br><span style='color:#b26b00'>No price known for {names}: "
                     f"{tokens_text(sum(r.unpriced.values()))} tokens not in the cost</span>")
        if self.note:
            text += f"<br><span style='color:#888'>{html.escape(self.note)}</span>"
        self.totals.setText(text)
        self.cards["spend"].setText(money(r.total_cost) + ("*" if r.unpriced else ""))
        self.cards["tokens"].setText(tokens_text(sum(r.totals)))
        self.cards["sessions"].setText(f"{len({sid for ids in r.sessions_in.values() for sid in ids}):,}")
        self.cards["cache"].setText(f"{r.cache_hit_ratio:.0%}")
        self.cards["spend"].setToolTip("* some tokens have no known price (below)" if r.unpriced else "")
        from sessionscope.gui.sessions.session_model import project_labels
        for key, box in self.tops.items():
            box.clear()
            shown = [n for n, _c in r.top.get(key, [])[:TOP_GROUPS]]
            names = project_labels(shown) if key == "project" else {n: badge(n)[0] for n in shown} \
                if key == "source" else {}
            for name, c in r.top.get(key, [])[:TOP_GROUPS]:
                item = QListWidgetItem(f"{money(c)}  {names.get(name, name)}")
                item.setData(Qt.ItemDataRole.UserRole, name)
                item.setToolTip(name)
                box.addItem(item)
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
        by = self.query()["by"]

        def label(bucket: str) -> str:
            if by == "month":
                return dt.date.fromisoformat(bucket).strftime("%b %Y" if years else "%b")
            return ("wk " if by == "week" else "") + day_label(bucket, years)
        self.chart.set_data(r.buckets, groups, values, fmt, label)
        self.legend.clear()
        from sessionscope.gui.sessions.session_model import project_labels
        group_by = self.query()["group"]
        names = project_labels(groups) if group_by == "project" else \
            {g: badge(g)[0] for g in groups if g != "other"} if group_by == "source" else {}
        for i, g in enumerate(groups):
            total = sum(v for (_b, name), v in values.items() if name == g)
            item = QListWidgetItem(_swatch(color_of(i) if g != "other" else "#b0b0b0"),
                                   f"{names.get(g, g)}  {fmt(total)}")
            item.setToolTip(f"{g}\nclick to list its sessions")
            item.setData(Qt.ItemDataRole.UserRole, g)
            self.legend.addItem(item)
        self.top.setRowCount(0)
        from sessionscope.gui.sessions.session_model import project_labels
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

    def _day_clicked(self, day: str) -> None:
        ids = sorted(self.year.get(day, ()))
        if ids:
            self.sig_filter.emit({"session_ids": ids}, f"spent on {day_label(day, True)}")

    def _bar_clicked(self, bucket: str, group: str) -> None:
        when = self.chart.label(bucket)
        self.sig_filter.emit({"session_ids": self._sessions(bucket, group)}, f"{group} · {when}")

    def _legend_clicked(self, item: QListWidgetItem) -> None:
        group = item.data(Qt.ItemDataRole.UserRole)
        kind = self.query()["group"]
        if kind == "project" and group not in ("other", "(no project)"):
            self.sig_filter.emit({"project": group}, f"project {group}")
        elif kind == "source" and group != "other":
            self.sig_filter.emit({"source_kind": group}, f"tool {badge(group)[0]}")
        else:
            self.sig_filter.emit({"session_ids": self._sessions(None, group)},
                                 f"{group} · {self._range_words()}")


    def _top_clicked(self, key: str, item: QListWidgetItem) -> None:
        """A top project, model or source: its sessions in the list (a project or a source as the sidebar
        filters; a model by the sessions that used it in the range)."""
        name = item.data(Qt.ItemDataRole.UserRole)
        if key == "project" and name != "(no project)":
            self.sig_filter.emit({"project": name}, f"project {name}")
        elif key == "source":
            self.sig_filter.emit({"source_kind": name}, f"tool {badge(name)[0]}")
        else:
            store, query = self.store, {**self.query(), "group": key}

            def ids():
                r = store.usage(**query)
                return sorted({sid for (_b, g), found in r.sessions_in.items() if g == name for sid in found})
            run_task(ids, lambda found: self.sig_filter.emit({"session_ids": found},
                                                             f"{name} · {self._range_words()}"),
                     self._failed, owner=self)


HEATMAP_WEEKS = 53


def year_by_day(store) -> tuple[dict[str, list[float]], dict[str, set[str]], str]:
    """The heatmap's year ({day: [0, tokens, dollars]}; messages are Home's), who spent each day, its first day."""
    today = dt.date.today()
    first = today - dt.timedelta(days=today.weekday()) - dt.timedelta(weeks=HEATMAP_WEEKS - 1)
    r = store.usage(since=first.isoformat(), until=today.isoformat(), by="day", group="source")
    activity: dict[str, list[float]] = {}
    spent: dict[str, set[str]] = {}
    for (day, _group), parts in r.tokens.items():
        acc = activity.setdefault(day, [0, 0, 0.0])
        acc[1] += sum(parts)
        acc[2] += r.costs.get((day, _group), 0.0)
        spent.setdefault(day, set()).update(r.sessions_in.get((day, _group), ()))
    return activity, spent, first.isoformat()


def _card(caption: str) -> tuple[QFrame, QLabel]:
    """A number with its caption over it, raised on the page (a KPI card, as Home's: gui/window/design)."""
    from sessionscope.gui.window import design
    card = QFrame()
    card.setProperty("card", True)
    lay = QVBoxLayout(card)
    lay.setContentsMargins(*(design.SPACE[2],) * 4)
    lay.setSpacing(design.SPACE[0])
    value = design.style(QLabel("…"), "figure", bold=True)
    value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    lay.addWidget(design.style(QLabel(caption), "caption", muted=True))
    lay.addWidget(value)
    return card, value


def len_colours() -> int:
    from sessionscope.gui.views.usage_chart import PALETTE
    return len(PALETTE)


def _swatch(colour: str) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(colour))
    return QIcon(pixmap)
