"""The session list's rows in its narrow form: the title on the first line, elided in its middle, and
under it, smaller and greyed, what a person needs to pick a session out (its tool, its project, when it
was last active, how many events, what it cost)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from sessionscope.gui.sessions.session_model import COLUMNS
from sessionscope.safety.untrusted import printable

_COL = {key: i for i, (key, _t, _s) in enumerate(COLUMNS)}


class TwoLineTitle(QStyledItemDelegate):
    """Paints the title column as two lines (its own decoration, a fork's icon, kept at the left)."""

    def rows(self, view) -> int:
        """The row height the two lines take in `view`'s font."""
        return view.fontMetrics().height() * 2 + 8

    def sizeHint(self, option, index) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(hint.width(), option.fontMetrics.height() * 2 + 8)

    def paint(self, painter, option, index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        title, icon = opt.text, opt.icon
        opt.text, opt.icon = "", type(icon)()  # the background and the selection, drawn by the style
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        model = index.model()
        row = index.row()

        def cell(key: str) -> str:
            value = model.index(row, _COL[key]).data() if key in _COL else ""
            return str(value or "")
        tags = " ".join(f"#{printable(t)}" for t in (model.index(row, _COL["tags"]).data(Qt.ItemDataRole.EditRole) or ()))
        under = " · ".join(x for x in (cell("source"), cell("project"), cell("updated"), f"{cell('events')} events"
                                       if cell("events") else "", cell("cost"), tags) if x and x != "…")
        rect = option.rect.adjusted(4, 3, -4, -3)
        if not icon.isNull():
            size = option.fontMetrics.height()
            icon.paint(painter, QRect(rect.left(), rect.top(), size, size))
            rect.setLeft(rect.left() + size + 4)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        group = QPalette.ColorGroup.Active
        text = option.palette.color(group, QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        muted = option.palette.color(group, QPalette.ColorRole.HighlightedText if selected
                                     else QPalette.ColorRole.PlaceholderText)
        fm = option.fontMetrics
        line = fm.height()
        painter.save()
        painter.setPen(text)
        painter.drawText(QRect(rect.left(), rect.top(), rect.width(), line), int(Qt.AlignmentFlag.AlignVCenter),
                         fm.elidedText(title, Qt.TextElideMode.ElideMiddle, rect.width()))
        small = painter.font()
        small.setPointSizeF(small.pointSizeF() * 0.88)
        painter.setFont(small)
        painter.setPen(muted)
        sub = painter.fontMetrics()
        painter.drawText(QRect(rect.left(), rect.top() + line + 2, rect.width(), sub.height()),
                         int(Qt.AlignmentFlag.AlignVCenter), sub.elidedText(under, Qt.TextElideMode.ElideRight,
                                                                            rect.width()))
        painter.restore()
