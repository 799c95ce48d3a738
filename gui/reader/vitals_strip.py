"""A session's vital signs in a line under the timeline's header (sessionscope.insight.vitals): each sign says how it is
counted in its tooltip, and a click on one goes to its events in turn (the next failed call, the next compaction…).
No grade: the evidence."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCursor, QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolTip

from sessionscope.gui.window.lazy import lazy

vitals = lazy("sessionscope.insight.vitals")  # SQLAlchemy: after the first paint


ALARM = "#c62828"


def strip_html(signs: list, text_colour: str = "#202020") -> str:
    """The signs as one line of anchors: each says how it is counted when hovered, and one with events goes to
    them when clicked."""
    parts = []
    for s in signs:
        colour = ALARM if s.alarm else text_colour  # (a link's blue for every sign would shout)
        parts.append(f"<a href='{s.key}' style='text-decoration:none'><span style='color:{colour}'>"
                     f"{_whole(s.label)}&nbsp;<b>{_whole(s.value)}</b></span></a>")
    return " &nbsp;·&nbsp; ".join(parts)


def _whole(text: str) -> str:
    """Escaped, and kept on one line: the strip wraps between signs, never inside one."""
    return html.escape(text).replace(" ", "&nbsp;")


def tooltip(sign) -> str:
    """What the sign says, and where a click on it goes."""
    return sign.about + (f"\nClick: {sign.goes_to}." if sign.goes_to else "")


class VitalsStrip(QLabel):
    sig_jump = Signal(str, str)  # (an event to show, what it is: "failed call 2 of 15")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("vitals-strip")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setContentsMargins(6, 0, 2, 2)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse |
                                     Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.linkHovered.connect(self._hovered)
        self.linkActivated.connect(self.jump)
        self.vitals: vitals.Vitals | None = None
        self.signs: dict[str, vitals.Sign] = {}
        self._next: dict[str, int] = {}  # sign → the index of its event the next click goes to
        self.hide()

    def show_vitals(self, v: vitals.Vitals | None, cost: float | None = None) -> None:
        self.vitals, self._next = v, {}
        signs = vitals.signs(v, cost) if v is not None else []
        self.signs = {s.key: s for s in signs}
        self.setText(strip_html(signs, self.palette().color(QPalette.ColorRole.WindowText).name()))
        self.setVisible(bool(signs))

    def _hovered(self, key: str) -> None:
        sign = self.signs.get(key)
        if sign is None:
            QToolTip.hideText()
            return
        QToolTip.showText(QCursor.pos(), tooltip(sign), self)

    def jump(self, key: str) -> None:
        """Go to the sign's next event (after the last, the first again)."""
        ids = self.vitals.ids.get(key, []) if self.vitals is not None else []
        if not ids:
            return
        i = self._next.get(key, 0) % len(ids)
        self._next[key] = i + 1
        sign = self.signs[key]
        self.sig_jump.emit(ids[i], f"{sign.label}: {i + 1} of {len(ids)}")
