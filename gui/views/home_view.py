"""Home: what happened lately, at a glance, each item a click from its session. The range's key figures
(sessions, messages, tokens, spend, active days), a year of activity by day, who needs you now, the sessions
touched last and the range's costliest. Read on a worker (sessionscope.insight.overview) when it is shown and
when an import changed something while it is shown; at rest it does nothing."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.jobs.workers import Generation, quiet_for, run_task, yield_to_urgent
from sessionscope.gui.views.heatmap import METRICS, Heatmap
from sessionscope.gui.views.usage_view import money
from sessionscope.gui.window import design
from sessionscope.safety.untrusted import printable

RANGES = (("Last 7 days", 7), ("Last 30 days", 30), ("Last 90 days", 90), ("Last 365 days", 365), ("All time", 0))
KPIS = (("sessions", "Sessions"), ("messages", "Messages"), ("tokens", "Tokens"), ("spend", "Spend"),
        ("active_days", "Active days"))
SID = Qt.ItemDataRole.UserRole


class Hidden(Exception):
    """Home was hidden while its figures were read: the reading stops (it is read again when shown)."""

QUIET_S = 0.5  # seconds with nothing urgent running before Home reads its figures
LATER_MS = 10_000


def short_number(n: float) -> str:
    """12,345 → 12.3k; 16,500,000 → 16.5M."""
    for size, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return f"{int(n):,}"


def _card(parent_layout, caption: str, body: QWidget | None = None) -> tuple[QFrame, QVBoxLayout]:
    card = QFrame()
    card.setProperty("card", True)
    lay = QVBoxLayout(card)
    lay.setContentsMargins(*(design.SPACE[2],) * 4)
    lay.setSpacing(design.SPACE[0])
    head = design.style(QLabel(caption), "caption", muted=True)
    lay.addWidget(head)
    if body is not None:
        lay.addWidget(body)
    parent_layout.addWidget(card)
    return card, lay


def _list(name: str, empty: str) -> QListWidget:
    box = QListWidget()
    box.setObjectName(name)
    box.setProperty("flat", True)
    box.setProperty("empty", empty)
    box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    box.setTextElideMode(Qt.TextElideMode.ElideRight)
    box.setMinimumHeight(8 * (2 * box.fontMetrics().lineSpacing() + 10))  # eight sessions of two lines
    return box


class HomeView(QScrollArea):
    sig_open = Signal(str)  # a session clicked
    sig_filter = Signal(dict)  # a day clicked: the list's filters for its sessions
    sig_needs_you = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("home")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.store = None
        self.overview = None
        self.needing: dict = {}
        self._gen = Generation()
        self._stale = True  # read again when next shown
        self._shown = threading.Event()  # set while Home is shown (the worker's reading stops when it is not)
        # what changed is read at most every ten seconds: while an agent writes, the watcher's imports come every
        # second or two, and Home's figures (a year's messages counted in the store) need not follow each one
        self._later = QTimer(self, singleShot=True, interval=LATER_MS)
        self._later.timeout.connect(self.refresh)
        self._waiting = QTimer(self)  # while what the user waits for runs: looked at again in a moment
        self._waiting.setSingleShot(True)
        self._waiting.setInterval(250)
        self._waiting.timeout.connect(self.refresh)
        page = QWidget()
        page.setObjectName("home-page")
        self.setWidget(page)
        lay = QVBoxLayout(page)
        m = design.SPACE[4]
        lay.setContentsMargins(m, m, m, m)
        lay.setSpacing(design.SPACE[3])
        head = QHBoxLayout()
        head.addWidget(design.style(QLabel("Overview"), "title", bold=True))
        head.addStretch(1)
        self.range = QComboBox()
        self.range.setObjectName("home-range")
        self.range.addItems([label for label, _d in RANGES])
        self._widen = not QSettings().contains("home/range")  # until the user chooses, an empty range widens
        self.range.setCurrentText(str(QSettings().value("home/range", "Last 30 days", type=str)))
        self.range.currentIndexChanged.connect(self._range_chosen)
        head.addWidget(self.range)
        lay.addLayout(head)
        self.note = design.style(QLabel(""), "caption", muted=True)
        self.note.setObjectName("home-note")
        lay.addWidget(self.note)
        cards = QHBoxLayout()
        cards.setSpacing(design.SPACE[3])
        self.kpis: dict[str, QLabel] = {}
        for key, caption in KPIS:
            value = design.style(QLabel("…"), "figure", bold=True)
            value.setObjectName(f"home-{key}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.kpis[key] = value
            _card(cards, caption, value)
        lay.addLayout(cards)
        from sessionscope.gui.views.limits import LimitsCard
        self.limits = LimitsCard()  # the active five-hour window and the week, against the user's limits
        self.limits.setObjectName("home-limits")
        self.sig_settings = self.limits.sig_settings
        lay.addWidget(self.limits)
        self.heatmap = Heatmap()
        self.heatmap.sig_day.connect(self._day_clicked)
        self.metric_box = QComboBox()
        self.metric_box.setObjectName("home-metric")
        self.metric_box.addItems([m.title() for m in METRICS])
        chosen = str(QSettings().value("home/metric", "Messages", type=str))
        self.metric_box.setCurrentIndex(max(0, self.metric_box.findText(chosen)))
        self.heatmap.set_metric(self.metric_box.currentIndex())
        self.metric_box.currentIndexChanged.connect(self._metric_chosen)
        activity, activity_lay = _card(lay, "Activity, the last year by day: a day clicked lists its sessions")
        row = QHBoxLayout()
        row.addWidget(self.heatmap, 1)
        row.addWidget(self.metric_box, 0, Qt.AlignmentFlag.AlignTop)
        activity_lay.addLayout(row)
        grid = QGridLayout()
        grid.setSpacing(design.SPACE[3])
        self.lists: dict[str, QListWidget] = {}
        for col, (key, caption, empty) in enumerate((
                ("needs", "Needs you", "Nothing waits for you."),
                ("recent", "Recent sessions", "No sessions yet: File ▸ Rescan finds them."),
                ("top", "Costliest in the range", "Nothing was spent in the range."))):
            box = _list(f"home-{key}", empty)
            box.itemActivated.connect(self._item_chosen)
            box.itemClicked.connect(self._item_chosen)
            self.lists[key] = box
            card = QFrame()
            card.setProperty("card", True)
            inner = QVBoxLayout(card)
            inner.setContentsMargins(*(design.SPACE[2],) * 4)
            inner.addWidget(design.style(QLabel(caption), "heading", bold=True))
            inner.addWidget(box)
            grid.addWidget(card, 0, col)
            grid.setColumnStretch(col, 1)
        lay.addLayout(grid)
        lay.addStretch(1)
        self._restyle()

    # -- reading ---------------------------------------------------------------------

    def set_store(self, store) -> None:
        self.store, self.overview = store, None
        self._stale = True
        if self.isVisible():
            self.refresh()

    def changed(self) -> None:
        """Something was imported or acted on: read again soon if shown, else when next shown."""
        self._stale = True
        if self.isVisible() and not self._later.isActive():  # (not put off by each change: read within ten seconds)
            self._later.start()

    def set_needing(self, needing: dict) -> None:
        """The live tracker's sessions that need you ({session id: Live})."""
        if needing.keys() != self.needing.keys():
            self.needing = dict(needing)
            self._stale = True
            if self.isVisible() and not self._later.isActive():
                self._later.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._shown.set()
        if self._stale:
            self.refresh()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._shown.clear()  # a reading under way stops at its next step (a session opened: its rows go first)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        self.setStyleSheet(design.sheet())

    def days(self) -> int:
        return dict(RANGES)[self.range.currentText()]

    def refresh(self) -> None:
        """Read the figures on a worker, once nothing the user waits for runs (the list's first page, a session's
        rows): the first reading of a big store folds every session's usage, and must not go before them."""
        if self.store is None:
            return
        if not self.isVisible():
            return  # (stale: read when shown)
        if not quiet_for(QUIET_S):
            self._waiting.start()  # (only while it waits: at rest no timer runs)
            return
        self._stale = False
        shown = self._shown

        def pause() -> None:
            if not shown.is_set():
                raise Hidden()
            yield_to_urgent()
        store, days, widen, needing = self.store, self.days(), self._widen, list(self.needing.items())
        token = self._gen.next()

        from sessionscope.gui.views import limits as limits_
        limits = limits_.load()

        def work():
            ov = store.overview(days=days, widen=widen, pause=pause)
            standing = store.limit_standing(limits)
            recent = store.sessions(limit=8)
            titles = {}
            for sid in [sid for sid, _c, _t in ov.top] + [sid for sid, _live in needing]:
                try:
                    titles[sid] = store.session(sid)
                except Exception:  # gone since (deleted): not listed
                    continue
            return ov, recent, titles, (standing, limits)

        run_task(work, lambda result: self._show_figures(token, *result), self._failed, owner=self)

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, Hidden):
            self._stale = True  # read again when shown
            return
        self.note.setText("Could not read the overview: the status bar says why.")
        self.note.show()

    # -- showing ---------------------------------------------------------------------

    def _show_figures(self, token: int, ov, recent, titles, limits=None) -> None:
        if not self._gen.current(token):
            return
        self.overview = ov
        if limits is not None:
            self.limits.show_standing(*limits)
        if ov.days != self.days():  # widened: said, not remembered
            self.range.blockSignals(True)
            self.range.setCurrentText(next(label for label, d in RANGES if d == ov.days))
            self.range.blockSignals(False)
        said = [ov.note] if ov.note else []
        if ov.unpriced:
            said.append(f"{ov.unpriced:,} tokens of models with no known price are not in the spend")
        self.note.setText(" · ".join(said))
        self.note.setVisible(bool(self.note.text()))
        self.kpis["sessions"].setText(f"{ov.sessions:,}")
        self.kpis["messages"].setText(short_number(ov.messages))
        self.kpis["tokens"].setText(short_number(ov.tokens))
        self.kpis["spend"].setText(money(ov.spend))
        self.kpis["active_days"].setText(f"{ov.active_days:,}")
        from sessionscope.insight.overview import HEATMAP_WEEKS
        self.heatmap.set_data(ov.activity, ov.first_day, HEATMAP_WEEKS)
        from sessionscope.gui.sessions.session_model import tool_label
        from sessionscope.live.words import LABELS, MARKS, ago
        self._fill("needs", [(sid, f"{MARKS[live.state]} {titles[sid].title or '(untitled)'}",
                              f"{LABELS[live.state]} · written {ago(time.time() - live.written)} ago · "
                              f"{tool_label(titles[sid].source_kind)}")
                             for sid, live in self.needing.items() if sid in titles])
        self._fill("recent", [(s.id, s.title or "(untitled)", f"{tool_label(s.source_kind)} · {s.project or '—'} · "
                               f"{s.event_count:,} events") for s in recent])
        self._fill("top", [(sid, titles[sid].title or "(untitled)", f"{money(cost)} · {short_number(tokens)} tokens · "
                            f"{tool_label(titles[sid].source_kind)}") for sid, cost, tokens in ov.top if sid in titles])

    def _fill(self, key: str, rows: list[tuple[str, str, str]]) -> None:
        box = self.lists[key]
        box.clear()
        if not rows:
            item = QListWidgetItem(box.property("empty"))
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            box.addItem(item)
            return
        for sid, title, detail in rows:
            item = QListWidgetItem(f"{printable(' '.join(title.split()))}\n{printable(detail)}")
            item.setData(SID, sid)
            item.setToolTip(printable(title))
            box.addItem(item)

    # -- choosing --------------------------------------------------------------------

    def _item_chosen(self, item: QListWidgetItem) -> None:
        sid = item.data(SID)
        if sid:
            self.sig_open.emit(sid)

    def _day_clicked(self, day: str) -> None:
        ids = (self.overview.day_sessions.get(day, []) if self.overview else [])
        if ids:
            self.sig_filter.emit({"session_ids": list(ids)})

    def _range_chosen(self) -> None:
        self._widen = False
        QSettings().setValue("home/range", self.range.currentText())
        self.refresh()

    def _metric_chosen(self, index: int) -> None:
        QSettings().setValue("home/metric", self.metric_box.currentText())
        self.heatmap.set_metric(index)
