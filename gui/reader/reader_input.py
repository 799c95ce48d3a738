"""The reader's mouse and keys (a mixin of ReaderView): choosing a card, opening it from its head
line, selecting text inside a card, copying, links, and moving by card, page and end."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QPoint, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QKeySequence, QTextCursor

from sessionscope.gui.reader import reader_cards as rc

BAR, PAD = 4, 8  # a card's colour bar, and the room around its text
PAD_X = BAR + PAD  # from a card's left edge to its text


def typed(event) -> bool:
    """A key that types a character (no Ctrl, Alt or Meta; Space aside: it opens and closes a card)."""
    held = event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                                | Qt.KeyboardModifier.MetaModifier)
    return not held and bool(event.text()) and event.text().isprintable() and event.key() != Qt.Key.Key_Space


class ReaderInput:
    """Needs ReaderView's cards, visible(), doc(), toggle(), scroll_by() and its signals."""

    if TYPE_CHECKING:
        sig_typed: Any  # (ReaderView's signal: a character typed while reading)

    def event(self, event) -> bool:
        # A character typed while reading is text, never a one-key action: typing "Mobile schema" here took the
        # session's star away (S), and P and N pin and note the same way. It goes to the find box (sig_typed).
        if event.type() == QEvent.Type.ShortcutOverride and typed(event):
            event.accept()
            return True
        return super().event(event)  # type: ignore[misc]

    # -- mouse and keys ---------------------------------------------------------------

    def card_at(self, pos: QPoint) -> tuple[int, QPoint]:
        """The card under `pos` and the point in its text's coordinates; (-1, …) between cards."""
        for n, rect in self.visible():
            if rect.contains(pos):
                return n, pos - rect.topLeft() - QPoint(PAD_X, PAD)
        return -1, QPoint()

    def choose(self, card: int) -> None:
        if 0 <= card < len(self.cards):
            if card != self.current:
                self.selection = None
            self.current = card
            self.ensure_visible(card)
            self.sig_event_chosen.emit(self.event_id(card))
            self.viewport().update()

    def mousePressEvent(self, event) -> None:
        n, local = self.card_at(event.position().toPoint())
        if n < 0 or event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        self.choose(n)
        d = self.doc(n)
        self._press = event.position().toPoint()
        if rc.folds(self.cards[n]) and local.y() < self.fontMetrics().height() + 4:
            self.toggle(n)  # the card's head line opens and shuts it
            self._press = None
        elif d is not None:
            at = d.documentLayout().hitTest(local, Qt.HitTestAccuracy.FuzzyHit)
            self.selection = (n, at, at)

    def mouseMoveEvent(self, event) -> None:
        if self._press is not None and self.selection and event.buttons() & Qt.MouseButton.LeftButton:
            n = self.selection[0]
            rect = next((r for m, r in self.visible() if m == n), None)
            d = self.doc(n)
            if rect is not None and d is not None:
                local = event.position().toPoint() - rect.topLeft() - QPoint(PAD_X, PAD)
                self.selection = (n, self.selection[1], d.documentLayout().hitTest(local, Qt.HitTestAccuracy.FuzzyHit))
                self.viewport().update()
            return
        n, local = self.card_at(event.position().toPoint())
        d = self.doc(n) if n >= 0 else None
        link = d.documentLayout().anchorAt(local) if d is not None else ""
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if link else Qt.CursorShape.IBeamCursor
                                  if n >= 0 else Qt.CursorShape.ArrowCursor)

    def mouseReleaseEvent(self, event) -> None:
        if self._press is not None and (event.position().toPoint() - self._press).manhattanLength() < 4:
            n, local = self.card_at(event.position().toPoint())
            d = self.doc(n) if n >= 0 else None
            link = d.documentLayout().anchorAt(local) if d is not None else ""
            if link.startswith(("http://", "https://", "sessionscope:")):  # (ours: open_requests takes it)
                QDesktopServices.openUrl(QUrl(link))
        self._press = None

    def mouseDoubleClickEvent(self, event) -> None:
        n, _ = self.card_at(event.position().toPoint())
        if n >= 0 and not self.toggle(n):
            self.select_all()

    def select_all(self) -> None:
        d = self.doc(self.current) if self.current >= 0 else None
        if d is not None:
            self.selection = (self.current, 0, d.characterCount() - 1)
            self.viewport().update()

    def selected_text(self) -> str:
        """The selection within a card, else the whole current card."""
        if self.selection and self.selection[1] != self.selection[2]:
            d = self.doc(self.selection[0])
            if d is not None:
                cursor = QTextCursor(d)
                cursor.setPosition(self.selection[1])
                cursor.setPosition(self.selection[2], QTextCursor.MoveMode.KeepAnchor)
                return cursor.selection().toPlainText()
        if 0 <= self.current < len(self.cards):
            return rc.plain_text(self.cards[self.current], self.events, self.tm.all_ids)
        return ""

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.selected_text())

    def keyPressEvent(self, event) -> None:
        key, mods = event.key(), event.modifiers()
        page = max(40, self.viewport().height() - 2 * self.fontMetrics().height())
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.select_all()
        elif key in (Qt.Key.Key_Down, Qt.Key.Key_Up) and not mods & Qt.KeyboardModifier.ControlModifier:
            self.choose(max(0, min(len(self.cards) - 1, self.current + (1 if key == Qt.Key.Key_Down else -1))))
        elif key in (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            self.scroll_by(page if key == Qt.Key.Key_PageDown else -page)
            shown = self.visible()
            if shown:
                self.choose(shown[0][0] if self.offset == 0 or len(shown) == 1 else shown[1][0])
        elif key == Qt.Key.Key_Home:
            self.choose(0)
        elif key == Qt.Key.Key_End:
            self.choose(len(self.cards) - 1)
        elif key in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.toggle(self.current)
        elif typed(event):
            self.sig_typed.emit(event.text())
        else:
            super().keyPressEvent(event)
