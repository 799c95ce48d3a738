"""The user's usage limits in the window: kept in QSettings (a person's plan, not the store's), set in Settings
(`LimitsBox`), shown on Home (`LimitsCard`: the active five-hour window and the week so far, each against its
limit, with its reset and where it is going), and watched after imports (`LimitWatch`: a warning through the
notifier when a window or the week is past its limit, or will be at this rate; once each). The figures are
sessionscope.insight.limits's, read on a worker."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.jobs.workers import run_task
from sessionscope.gui.window import design
from sessionscope.insight.limits import Limits

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WATCH_MS = 30_000  # after an import, the limits are looked at within half a minute (never at rest)


def _number(key: str) -> float:
    """A number QSettings keeps (0 where it keeps none, or something else: the file is the user's to edit)."""
    try:
        value = float(str(QSettings().value(key, 0)))
    except ValueError:
        return 0.0
    return value if value == value and 0 <= value < 1e9 else 0.0  # (not NaN, not negative)


def load() -> Limits:
    return Limits(block=_number("limits/block") or None, week=_number("limits/week") or None,
                  reset_weekday=int(_number("limits/reset_weekday")) % 7, reset_hour=int(_number("limits/reset_hour")) % 24)


def save(limits: Limits) -> None:
    s = QSettings()
    s.setValue("limits/block", float(limits.block or 0.0))
    s.setValue("limits/week", float(limits.week or 0.0))
    s.setValue("limits/reset_weekday", limits.reset_weekday)
    s.setValue("limits/reset_hour", limits.reset_hour)


def _dollars(value: float | None) -> QDoubleSpinBox:
    from sessionscope.gui.dialogs.ask import number_box
    return number_box(value, 1_000_000, "no limit", decimals=2, prefix="$")


class LimitsBox(QGroupBox):
    """Settings ▸ Usage limits: what a five-hour window and a week may cost (dollars at the API's prices: the plans
    publish no figure of their own), and when the week resets."""

    def __init__(self, parent=None):
        super().__init__("Usage limits (Claude Code: dollars at the API's prices; Home shows where you stand)", parent)
        now = load()
        self.block = _dollars(now.block)
        self.block.setObjectName("limit-block")
        self.week = _dollars(now.week)
        self.week.setObjectName("limit-week")
        self.weekday = QComboBox()
        self.weekday.addItems(WEEKDAYS)
        self.weekday.setCurrentIndex(now.reset_weekday)
        self.hour = QComboBox()
        self.hour.addItems([f"{h:02d}:00" for h in range(24)])
        self.hour.setCurrentIndex(now.reset_hour)
        resets = QHBoxLayout()
        resets.addWidget(self.weekday)
        resets.addWidget(self.hour)
        resets.addStretch(1)
        form = QFormLayout(self)
        form.addRow("A five-hour window", self.block)
        form.addRow("A week", self.week)
        form.addRow("The week resets on", resets)

    def limits(self) -> Limits:
        return Limits(self.block.value() or None, self.week.value() or None, self.weekday.currentIndex(),
                      self.hour.currentIndex())


def _when(t: float) -> str:
    d = dt.datetime.fromtimestamp(t)
    return d.strftime("%H:%M") if d.date() == dt.date.today() else d.strftime("%a %H:%M")


def _bar(name: str) -> QProgressBar:
    bar = QProgressBar()
    bar.setObjectName(name)
    bar.setRange(0, 1000)
    bar.setTextVisible(False)
    bar.setMaximumHeight(design.SPACE[2])
    return bar


class LimitsCard(QWidget):
    """Home's row of where the user stands: the active window and the week, each against its limit."""

    sig_settings = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(design.SPACE[3])
        self.parts = {}
        for key, caption in (("block", "Five-hour window (Claude Code)"), ("week", "This week (Claude Code)")):
            card = QFrame()
            card.setProperty("card", True)
            inner = QVBoxLayout(card)
            inner.setContentsMargins(*(design.SPACE[2],) * 4)
            inner.setSpacing(design.SPACE[1])
            inner.addWidget(design.style(QLabel(caption), "caption", muted=True))
            figure = design.style(QLabel("…"), "heading", bold=True)
            figure.setObjectName(f"limits-{key}")
            words = design.style(QLabel(""), "caption", muted=True)
            words.setObjectName(f"limits-{key}-words")
            words.setWordWrap(True)
            bar = _bar(f"limits-{key}-bar")
            inner.addWidget(figure)
            inner.addWidget(bar)
            inner.addWidget(words)
            self.parts[key] = (figure, bar, words)
            lay.addWidget(card, 1)
        self.set_limits = QPushButton("Set Limits…")
        self.set_limits.setObjectName("limits-set")
        self.set_limits.setToolTip("Settings ▸ Usage limits: what a five-hour window and a week may cost")
        self.set_limits.clicked.connect(self.sig_settings)
        lay.addWidget(self.set_limits, 0)

    def show_standing(self, st, limits: Limits) -> None:
        from sessionscope.gui.views.usage_view import money
        figure, bar, words = self.parts["block"]
        if st.block is None:
            figure.setText("No window running")
            said = ["Five hours without a reply: the next one starts a window"]
            bar.setValue(0)
        else:
            figure.setText(money(st.block.cost) + (f" of {money(limits.block)}" if limits.block else ""))
            said = [f"resets {_when(st.block.end)}"]
            rate = st.block.burn()
            if rate is not None:
                said.append(f"{money(rate[1])} an hour")
            if st.block_at_end is not None and st.block_at_end > st.block.cost:
                said.append(f"at this rate {money(st.block_at_end)} by then")
            bar.setValue(int(min(1.0, st.block.cost / limits.block) * 1000) if limits.block else 0)
        bar.setVisible(bool(limits.block))
        self._warn(words, " · ".join(said), [w for k, w in st.warnings if k.startswith("block")])
        figure, bar, words = self.parts["week"]
        figure.setText(money(st.week_cost) + (f" of {money(limits.week)}" if limits.week else ""))
        said = [f"resets {_when(st.week_end)}"]
        if st.week_at_end is not None:
            said.append(f"at this rate {money(st.week_at_end)} by then")
        bar.setValue(int(min(1.0, st.week_cost / limits.week) * 1000) if limits.week else 0)
        bar.setVisible(bool(limits.week))
        self._warn(words, " · ".join(said), [w for k, w in st.warnings if k.startswith("week")])
        self.set_limits.setText("Change Limits…" if limits.any else "Set Limits…")

    def _warn(self, label: QLabel, said: str, warnings: list[str]) -> None:
        if warnings:
            label.setText("⚠ " + warnings[0] + "\n" + said)
            label.setStyleSheet(f"color: {design.colour('bad').name()};")
        else:
            label.setText(said)
            label.setStyleSheet("")


class LimitWatch(QObject):
    """After an import, once within `WATCH_MS`: where the user stands; each warning said once (a window's, a week's)
    through the notifier, as Needs You's are. Nothing runs while no limit is set, or at rest."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.said: set[str] = set()
        self._soon = QTimer(self, singleShot=True, interval=WATCH_MS)
        self._soon.timeout.connect(self.look)

    def changed(self, *_args) -> None:
        if load().any and not self._soon.isActive():
            self._soon.start()

    def look(self) -> None:
        store, limits = getattr(self.window, "store", None), load()
        if store is None or not limits.any:
            return
        run_task(lambda: store.limit_standing(limits), self._announce, lambda _exc: None, owner=self)

    def _announce(self, st) -> None:
        from sessionscope.gui.jobs.notifier import Rules
        if Rules.load().is_quiet(dt.datetime.now().time()):
            return  # (kept unsaid: said after the quiet hours if still so)
        for key, words in st.warnings:
            if key not in self.said:
                self.said.add(key)
                self.window.notifier.notify(None, "⚠ Usage limit", words)
