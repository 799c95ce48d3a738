"""Stacked bars drawn with QPainter: one bar a day or week, one colour a project, model or source.

QtCharts would need PySide6-Addons (a 418 MiB wheel the app otherwise does without) and
pyqtgraph a new dependency for one chart; a bar chart is forty lines of painting, and
painting ourselves gives the hit-testing the click-to-filter needs for free.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QToolTip, QWidget

# Okabe–Ito and Tableau hues: told apart by most colour-blind readers, on light and dark
PALETTE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#8c6d31",
           "#7f7f7f", "#17becf"]
OTHER = "#b0b0b0"


def color_of(index: int) -> str:
    return PALETTE[index] if index < len(PALETTE) else OTHER


def nice_ceiling(value: float) -> float:
    """The axis' top: 1, 2 or 5 times a power of ten, at least `value`."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= value)


class StackedBars(QWidget):
    sig_clicked = Signal(str, str)  # bucket, group

    def __init__(self, parent=None):
        super().__init__(parent)
        self.buckets: list[str] = []
        self.groups: list[str] = []
        self.values: dict[tuple[str, str], float] = {}
        self.fmt = str
        self.label = str  # a bucket's label under its bar
        self.hits: list[tuple[QRectF, str, str]] = []
        self.setMouseTracking(True)
        self.setMinimumHeight(220)
        self.setAccessibleName("Usage chart")

    def sizeHint(self) -> QSize:
        return QSize(720, 300)

    def set_data(self, buckets, groups, values, fmt, label=str) -> None:
        self.buckets, self.groups, self.values, self.fmt, self.label = buckets, groups, values, fmt, label
        self.update()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.Text)
        grid = QColor(text)
        grid.setAlpha(40)
        fm = p.fontMetrics()
        self.hits = []
        if not self.buckets:
            p.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No tokens spent in this range")
            return
        totals = [sum(self.values.get((b, g), 0.0) for g in self.groups) for b in self.buckets]
        top = nice_ceiling(max(totals))
        left = fm.horizontalAdvance(self.fmt(top)) + 12
        area = QRectF(left, 8, self.width() - left - 8, self.height() - fm.height() - 20)
        for i in range(6):  # the scale: fifths of a 1, 2 or 5 ceiling fall on round numbers
            y = area.bottom() - area.height() * i / 5
            p.setPen(grid)
            p.drawLine(int(area.left()), int(y), int(area.right()), int(y))
            p.setPen(text)
            p.drawText(QRectF(0, y - fm.height() / 2, left - 6, fm.height()),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), self.fmt(top * i / 5))
        slot = area.width() / len(self.buckets)
        width = max(2.0, min(48.0, slot * 0.7))
        label_w = max(fm.horizontalAdvance(self.label(b)) for b in self.buckets[:: max(1, len(self.buckets) // 20)])
        every = max(1, math.ceil((label_w + 12) / slot))
        drawn_to = -1e9  # where the last label ended: labels never overlap
        for n, bucket in enumerate(self.buckets):
            x = area.left() + slot * n + (slot - width) / 2
            y = area.bottom()
            for gi, group in enumerate(self.groups):
                v = self.values.get((bucket, group), 0.0)
                if v <= 0:
                    continue
                h = area.height() * v / top
                rect = QRectF(x, y - h, width, h)
                p.fillRect(rect, QColor(color_of(gi)))
                self.hits.append((rect, bucket, group))
                y -= h
            if n % every == 0:
                p.setPen(text)
                words = self.label(bucket)
                half = fm.horizontalAdvance(words) / 2
                cx = min(max(x + width / 2, area.left() + half), area.right() - half)
                if cx - half >= drawn_to + 8:
                    p.drawText(QPointF(cx - half, area.bottom() + 4 + fm.ascent()), words)
                    drawn_to = cx + half

    def hit(self, pos) -> tuple[str, str] | None:
        for rect, bucket, group in self.hits:
            if rect.adjusted(0, -1, 0, 1).contains(pos):
                return bucket, group
        return None

    def mouseMoveEvent(self, event) -> None:
        found = self.hit(event.position())
        if found:
            bucket, group = found
            total = sum(self.values.get((bucket, g), 0.0) for g in self.groups)
            QToolTip.showText(event.globalPosition().toPoint(),
                              f"{self.label(bucket)} · {group}: {self.fmt(self.values[found])}\n"
                              f"all of {self.label(bucket)}: {self.fmt(total)}\nclick to list these sessions", self)
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            QToolTip.hideText()
            self.unsetCursor()

    def mousePressEvent(self, event) -> None:
        found = self.hit(event.position())
        if found and event.button() == Qt.MouseButton.LeftButton:
            self.sig_clicked.emit(*found)
