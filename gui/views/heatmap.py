"""A year of activity by day, a square a day in columns of weeks (Monday on top): messages, tokens or cost, in
five steps of the accent's ramp (gui/window/design). Hovering a day says its figures; clicking it lists the
sessions active that day."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from sessionscope.gui.window import design

METRICS = ("messages", "tokens", "cost")
LEFT, TOP, GAP = 30, 16, 3


class Heatmap(QWidget):
    sig_day = Signal(str)  # a day clicked: 'YYYY-MM-DD'

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("heatmap")
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.activity: dict[str, list[float]] = {}
        self.first = dt.date.today()
        self.weeks = 53
        self.figure = 0  # an index of METRICS
        self.steps: list[float] = []
        self.with_messages = True  # (Usage's year counts tokens and dollars alone)

    def set_data(self, activity: dict[str, list[float]], first_day: str, weeks: int) -> None:
        self.activity, self.first, self.weeks = activity, dt.date.fromisoformat(first_day), weeks
        self._quantiles()
        self.update()

    def set_metric(self, index: int) -> None:
        self.figure = index
        self._quantiles()
        self.update()

    def _quantiles(self) -> None:
        """The thresholds of the four coloured steps: the quartiles of the days that had any."""
        values = sorted(v[self.figure] for v in self.activity.values() if v[self.figure] > 0)
        self.steps = [values[min(len(values) - 1, int(len(values) * q))] for q in (0.25, 0.5, 0.75)] if values else []

    def level(self, day: str) -> int:
        """0 (nothing) to 4 (the busiest quarter)."""
        v = self.activity.get(day, [0, 0, 0.0])[self.figure]
        if v <= 0:
            return 0
        return 1 + sum(v > s for s in self.steps)

    def cell(self) -> int:
        return max(6, min(16, (self.width() - LEFT) // max(1, self.weeks) - GAP))

    def sizeHint(self) -> QSize:
        return QSize(LEFT + self.weeks * (12 + GAP), TOP + 7 * (12 + GAP) + 4)

    def minimumSizeHint(self) -> QSize:
        return QSize(LEFT + self.weeks * (6 + GAP), TOP + 7 * (self.cell() + GAP) + 4)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.setFixedHeight(TOP + 7 * (self.cell() + GAP) + 4)

    def rect_of(self, week: int, weekday: int) -> QRect:
        c = self.cell()
        return QRect(LEFT + week * (c + GAP), TOP + weekday * (c + GAP), c, c)

    def day_at(self, pos: QPoint) -> str | None:
        c = self.cell()
        week, weekday = (pos.x() - LEFT) // (c + GAP), (pos.y() - TOP) // (c + GAP)
        if pos.x() < LEFT or pos.y() < TOP or not (0 <= week < self.weeks and 0 <= weekday < 7):
            return None
        day = self.first + dt.timedelta(days=7 * week + weekday)
        return day.isoformat() if day <= dt.date.today() else None

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        ramp = [QColor(c) for c in design.ramp()]
        muted = design.colour("muted")
        p.setFont(design.font("caption"))
        p.setPen(muted)
        for weekday, name in ((0, "Mon"), (2, "Wed"), (4, "Fri")):
            r = self.rect_of(0, weekday)
            p.drawText(QRect(0, r.top() - 2, LEFT - 4, r.height() + 4), Qt.AlignmentFlag.AlignRight
                       | Qt.AlignmentFlag.AlignVCenter, name)
        today, month, room = dt.date.today(), None, 0
        for week in range(self.weeks):
            monday = self.first + dt.timedelta(days=7 * week)
            x = self.rect_of(week, 0).left()
            if monday.month != month and week < self.weeks - 1:
                month = monday.month
                if x >= room:  # (a month begun in the first column's last days leaves no room for the next's name)
                    p.setPen(muted)
                    p.drawText(x, TOP - 4, monday.strftime("%b"))
                    room = x + p.fontMetrics().horizontalAdvance(monday.strftime("%b")) + 4
            for weekday in range(7):
                day = monday + dt.timedelta(days=weekday)
                if day > today:
                    break
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(ramp[self.level(day.isoformat())])
                p.drawRoundedRect(self.rect_of(week, weekday), 2, 2)
        p.end()

    def mouseMoveEvent(self, event) -> None:
        day = self.day_at(event.position().toPoint())
        if day is None:
            QToolTip.hideText()
            return
        messages, tokens, cost = self.activity.get(day, [0, 0, 0.0])
        when = dt.date.fromisoformat(day).strftime("%a %d %b %Y")
        said = f"{int(tokens):,} tokens · ${cost:,.2f}"
        if self.with_messages:
            said = f"{int(messages):,} messages · {said}"
        QToolTip.showText(event.globalPosition().toPoint(), f"{when}: {said}", self)

    def mousePressEvent(self, event) -> None:
        day = self.day_at(event.position().toPoint())
        if day is not None and event.button() == Qt.MouseButton.LeftButton:
            self.sig_day.emit(day)
