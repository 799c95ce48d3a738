"""The conversation reader: the branch shown in the timeline, read top to bottom as cards.

Virtualized by hand: a QListView lays out every row to know its height (seconds at
100,000 variable rows), so this view scrolls the way QPlainTextEdit does, by card: the
scroll bar's value is the card at the top, and only the cards on screen are fetched,
laid out (a QTextDocument each, cached) and painted. Wheel and keys move by pixels
within and across cards.

The timeline's selection stays the one cursor: choosing a card selects its event in the
timeline (which drives the detail pane, the tree and the actions), and the reader
follows whatever the timeline selects (find, prompt jumps, the tree).
"""

from __future__ import annotations

import base64
import time
from collections import OrderedDict

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QImage,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QAbstractScrollArea

from sessionscope.gui.jobs.workers import Generation, hold_background, run_task
from sessionscope.gui.reader import reader_cards as rc
from sessionscope.gui.reader.reader_input import BAR, PAD, ReaderInput
from sessionscope.gui.reader.timeline_model import dark_palette
from sessionscope.history import cards as said
from sessionscope.history import pairing

MARGIN, GAP, INDENT = 8, 6, 28
MEASURES = {"narrow": 80, "comfortable": 110, "wide": 150, "full": 0}  # characters a card's line holds at most (0: the
# window's width); past the measure a wider window centres the column instead of stretching prose past what an eye
# follows (code wraps within it). View ▸ Reading Width chooses; "wide" is the default.
READER_SCALE = 1.15  # the reader's type against the application's: prose is read, the rest of the window scanned
FETCH = 200  # events read at a time
FRAME_BUDGET = 0.012  # seconds of card layout per frame
DOCS = 300  # laid-out cards kept
COLORS = {False: {"user": "#1f5fbf", "assistant": "#2e7d32", "agent": "#7b4fc4", "tool": "#9a5518",
                  "system": "#6e6e6e", "error": "#c62828"},
          True: {"user": "#7fb2f0", "assistant": "#7cc47f", "agent": "#b9a0f0", "tool": "#e0a060",
                 "system": "#a8a8a8", "error": "#ef7a7a"}}
TINT = {False: {"user": "#eef3fb", "tool": "#f7f5f2", "run": "#f3effa"},
        True: {"user": "#262f3d", "tool": "#2d2a26", "run": "#2d2838"}}


class ReaderView(ReaderInput, QAbstractScrollArea):
    sig_event_chosen = Signal(str)  # the user moved to a card: its event's id
    sig_typed = Signal(str)  # a character typed while reading: the start of a find

    def __init__(self, timeline_model, parent=None):
        super().__init__(parent)
        self.tm = timeline_model
        self.cards: list[rc.Card] = []
        self.by_position: list[int] | None = None  # branch position → card (None: one card an event, in order)
        self.events: dict[str, object] = {}
        self.pending: set[str] = set()
        self.opened: set[str] = set()  # event ids of opened cards (tools, thinking, runs, summaries)
        self.needle = ""
        self.top, self.offset, self.current = 0, 0, -1
        self.docs: OrderedDict = OrderedDict()
        self.heights: dict[int, int] = {}
        self.width_ = 0
        self.measure = "wide"  # a key of MEASURES
        self.selection: tuple[int, int, int] | None = None  # card, anchor, position (text selection)
        self._press: QPoint | None = None
        self._gen = Generation()
        self._stale, self._branch = True, None  # cards not built for the timeline's branch; the branch they show
        self._fetch_timer = QTimer(self, singleShot=True, interval=0, timeout=self._fetch)
        self._wanted: list[str] = []
        # laying out cards is the one costly part of a frame: past this much of it, the rest waits a frame
        self._deadline = 0.0
        self._dark = dark_palette()
        self._more_timer = QTimer(self, singleShot=True, interval=0, timeout=self.viewport().update)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Conversation reader")
        self.viewport().setMouseTracking(True)
        self.verticalScrollBar().valueChanged.connect(self._bar_moved)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        timeline_model.modelReset.connect(self.rebuild)
        timeline_model.layoutChanged.connect(self.rebuild)

    # -- what is shown ----------------------------------------------------------------

    def rebuild(self) -> None:
        """Cards for the timeline's branch (after it shows a branch, or learns the tool pairs)."""
        tm = self.tm
        if not self.isVisible():  # the table is shown: build the cards when the reader is
            self._stale = True
            return
        self._stale = False
        # the cards still index the branch they were built for: name the current event before they go
        kept = self._branch[self.cards[self.current].at] if self._branch and 0 <= self.current < len(self.cards) \
            else None
        if tm.all_ids is not self._branch:  # a new branch: nothing read, nothing opened
            self._branch = tm.all_ids
            self._gen.next()
            self.events, self.pending, self.opened, self.selection = {}, set(), set(), None
            self.top = self.offset = 0
        try:
            keep = tm.all_ids.index(kept) if kept is not None else -1
        except ValueError:
            keep = -1
        owner = {} if "tool_result" not in tm.kinds else tm.pairs if tm.pairs is not None else pairing.pair(
            (i, k, None, s) for i, k, s in zip(tm.all_ids, tm.kinds, tm.sidechain))
        self.cards = rc.build(tm.all_ids, tm.kinds, tm.sidechain, owner, self.opened, tm.turn_tokens.keys())
        # (plain: build() made one card an event, in order)
        self.by_position = None if rc.plain(tm.kinds, tm.sidechain, owner) else self._card_at()
        self.current = self.card_index(keep) if keep >= 0 else -1
        self.top = min(self.top, max(0, len(self.cards) - 1))
        self._relayout()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.rebuild()

    def _card_at(self) -> list[int]:
        """Branch position → the card showing that event (a result shows on its call's card, a subagent's
        event on its run's card while the run is shut)."""
        at = [-1] * len(self.tm.all_ids)
        for n, c in enumerate(self.cards):
            if c.kind == "run" and at[c.at] < 0:
                at[c.at:c.at + c.size] = [n] * c.size
            at[c.at] = n
            for r in c.results + c.thoughts:
                at[r] = n
        return at

    def card_index(self, position: int) -> int:
        """The card showing the branch's event at `position` (-1 if none)."""
        if not (0 <= position < len(self.tm.all_ids)):
            return -1
        return position if self.by_position is None else self.by_position[position]

    def card_for(self, event_id: str) -> int:
        try:
            return self.card_index(self.tm.all_ids.index(event_id))
        except ValueError:
            return -1

    def _relayout(self) -> None:
        self.docs.clear()
        self.heights.clear()
        bar = self.verticalScrollBar()
        bar.blockSignals(True)
        bar.setRange(0, max(0, len(self.cards) - 1))
        bar.setPageStep(8)
        bar.setValue(self.top)
        bar.blockSignals(False)
        self.viewport().update()

    def event_id(self, card: int) -> str | None:
        return self.tm.all_ids[self.cards[card].at] if 0 <= card < len(self.cards) else None

    def follow(self, row: int) -> None:
        """The timeline selected `row`: make its event's card current and visible (no signal back)."""
        card = self.card_index(self.tm.position(row)) if 0 <= row < self.tm.rowCount() and not self._stale else -1
        if card < 0:
            return
        if card != self.current:
            self.selection = None
        self.current = card
        self.ensure_visible(card)
        self.viewport().update()

    def set_needle(self, text: str) -> None:
        """Highlight `text` in the cards (find in session)."""
        if text != self.needle:
            self.needle = text
            self.docs.clear()
            self.viewport().update()

    def toggle(self, card: int) -> bool:
        """Open or shut a foldable card; False if it does not fold."""
        if not (0 <= card < len(self.cards)) or not rc.folds(self.cards[card]):
            return False
        eid = self.event_id(card)
        self.opened.symmetric_difference_update({eid})
        if self.cards[card].kind == "run":
            self.rebuild()  # its events join the list (or leave it)
            self.current = self.card_for(eid)
        else:
            self.docs.pop(card, None)
            self.heights.pop(card, None)
        self.viewport().update()
        return True

    # -- data -------------------------------------------------------------------------

    def _need(self, card: int) -> list[str]:
        c = self.cards[card]
        ids = self.tm.all_ids
        return [ids[c.at]] + [ids[r] for r in c.results + c.thoughts]

    def _want(self, first: int, last: int) -> None:
        """Read the events of cards first..last (and a few ahead) on a worker. One read at a time, for
        what is on screen when it starts: a scroll bar dragged across 100,000 cards must not queue reads
        of everything it passed (the workers would fight the UI thread for the interpreter)."""
        lo, hi = max(0, first - 5), min(len(self.cards), last + 15)
        self._wanted = [eid for n in range(lo, hi) for eid in self._need(n) if eid not in self.events]
        if self._wanted and not self.pending and not self._fetch_timer.isActive():
            self._fetch_timer.start()

    def _fetch(self) -> None:
        store, token = self.tm.store, self._gen.value
        wanted, self._wanted = self._wanted[:FETCH], []
        if store is None or not wanted or self.pending:
            return
        self.pending = set(wanted)
        run_task(lambda: store.events_by_ids(wanted), lambda rows: self._loaded(token, rows),
                 lambda _exc: self._loaded(token, []), owner=self, urgent=True)  # the cards on screen

    def _loaded(self, token: int, rows) -> None:
        if not self._gen.current(token):
            return
        self.pending = set()
        if len(self.events) > 20_000:  # memory stays flat on a long read: what scrolled away is read again
            self.events = {}
        for e in rows:
            self.events[e.id] = e
        self.viewport().update()  # paints what arrived, and asks for what is on screen now

    # -- layout -----------------------------------------------------------------------

    def column(self) -> tuple[int, int]:
        """(left, width) of the column the cards are laid out in: the viewport's width, up to the chosen measure
        (MEASURES) in characters of the reader's type, centred."""
        width = self.viewport().width()
        chars = MEASURES.get(self.measure, 0)
        measure = self.fontMetrics().averageCharWidth() * chars + 2 * PAD + BAR if chars else width
        column = min(width - 2 * MARGIN, measure)
        return (width - column) // 2, column

    def set_measure(self, name: str) -> None:
        """The column's width: a key of MEASURES (the cards are laid out again)."""
        self.measure = name if name in MEASURES else "wide"
        self.docs.clear()
        self.heights.clear()
        self.viewport().update()

    def _text_width(self, card: int) -> int:
        return max(120, self.column()[1] - 2 * PAD - BAR - INDENT * self.cards[card].depth)

    def doc(self, card: int) -> QTextDocument | None:
        """The card laid out at the current width (None while its events are read)."""
        if dark_palette() != self._dark:  # the theme changed: colours live in the cards' text
            self._dark = dark_palette()
            self.docs.clear()
            self.heights.clear()
        d = self.docs.get(card)
        if d is not None:
            self.docs.move_to_end(card)
            return d
        if self._deadline and time.perf_counter() > self._deadline:
            self._more_timer.start()  # out of time for this frame: the rest is drawn in the next one
            return None
        c = self.cards[card]
        e = self.events.get(self.event_id(card))
        if e is None or any(eid not in self.events for eid in self._need(card)):
            return None  # drawn once all its events are read (a call with its results)
        if rc.is_empty(c, e):
            return QTextDocument()
        dark = dark_palette()
        eid = self.event_id(card)
        html = rc.card_html(c, self.events, self.tm.all_ids, eid in self.opened, COLORS[dark], dark,
                            pinned=eid in self.tm.pinned, notes=self.tm.notes.get(eid, ()))
        if html is None:
            return None
        d = QTextDocument()
        d.setDocumentMargin(0)
        d.setDefaultFont(self.font())
        for n, (kind, data) in enumerate(said.images(e.payload)):
            image = QImage()
            if image.loadFromData(base64.b64decode(data, validate=False)):
                d.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"img:{e.id}:{n}"),
                              image.scaled(240, 180, Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))
        d.setHtml(html)
        d.setTextWidth(self._text_width(card))
        if self.needle:
            self._mark(d)
        self.docs[card] = d
        if len(self.docs) > DOCS:
            self.docs.popitem(last=False)
        return d

    def _mark(self, d: QTextDocument) -> None:
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#ffe066"))
        fmt.setForeground(QColor("#000000"))
        cursor = d.find(self.needle)
        while not cursor.isNull():
            cursor.mergeCharFormat(fmt)
            cursor = d.find(self.needle, cursor)

    def height_of(self, card: int) -> int:
        h = self.heights.get(card)
        if h is None:
            d = self.doc(card)
            if d is None:
                return self.fontMetrics().height() + 2 * PAD  # "…" until read; anchored at the top, so nothing jumps
            h = 0 if d.isEmpty() else int(d.size().height()) + 2 * PAD
            if len(self.heights) > 5000:
                self.heights.clear()
            self.heights[card] = h
        return h

    def _step(self, card: int) -> int:
        h = self.height_of(card)
        return h + GAP if h else 0

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.docs.clear()
            self.heights.clear()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.viewport().width() != self.width_:
            self.width_ = self.viewport().width()
            self.docs.clear()
            self.heights.clear()

    # -- scrolling --------------------------------------------------------------------

    def _bar_moved(self, value: int) -> None:
        if value != self.top:
            self._budget()
            self.top, self.offset = value, 0
            self._clamp()
            self.viewport().update()

    def _sync_bar(self) -> None:
        bar = self.verticalScrollBar()
        bar.blockSignals(True)
        bar.setValue(self.top)
        bar.blockSignals(False)

    def _budget(self) -> None:
        """A scroll step: its frame has a budget, and background passes wait while the user scrolls."""
        hold_background()
        if not self._deadline:
            self._deadline = time.perf_counter() + FRAME_BUDGET

    def scroll_by(self, dy: int) -> None:
        self._budget()
        self.offset += dy
        while self.offset < 0 and self.top > 0:
            self.top -= 1
            self.offset += self._step(self.top)
        self.offset = max(0, self.offset) if self.top == 0 else self.offset
        while self.top < len(self.cards) - 1 and self.offset >= self._step(self.top):
            self.offset -= self._step(self.top)
            self.top += 1
        self._clamp()
        self._sync_bar()
        self.viewport().update()

    def _clamp(self) -> None:
        """Never scroll past the end: the last card's bottom stays at the viewport's bottom."""
        height, y = self.viewport().height(), -self.offset
        for n in range(self.top, len(self.cards)):
            y += self._step(n)
            if y >= height:
                return
        total, n = 0, len(self.cards)
        while n > 0 and total < height:
            n -= 1
            total += self._step(n)
        self.top, self.offset = max(0, n), max(0, total - height) if total >= height else 0
        self._sync_bar()

    def ensure_visible(self, card: int) -> None:
        if not (0 <= card < len(self.cards)):
            return
        if card < self.top or (card == self.top and self.offset > 0):
            self.top, self.offset = card, 0
        else:
            y, height = -self.offset, self.viewport().height()
            for n in range(self.top, card):
                y += self._step(n)
                if y > height:
                    break
            h = self.height_of(card)
            if y + h > height:
                if y > height or h > height:
                    self.top, self.offset = card, 0
                else:
                    self.scroll_by(y + h - height)
                    return
        self._clamp()
        self._sync_bar()
        self.viewport().update()

    def wheelEvent(self, event) -> None:
        delta = event.pixelDelta().y() or event.angleDelta().y() * self.fontMetrics().height() * 3 // 120
        self.scroll_by(-delta)

    # -- painting ---------------------------------------------------------------------

    def visible(self) -> list[tuple[int, QRect]]:
        """The cards on screen and where (viewport coordinates)."""
        out, y, height = [], -self.offset, self.viewport().height()
        left, column = self.column()
        for n in range(self.top, len(self.cards)):
            if y >= height:
                break
            h = self.height_of(n)
            indent = INDENT * self.cards[n].depth
            if h:
                out.append((n, QRect(left + indent, y, column - indent, h)))
            y += h + GAP if h else 0
        return out

    def paintEvent(self, _event) -> None:
        self._budget()
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        dark = dark_palette()
        painter.fillRect(self.viewport().rect(), pal.color(QPalette.ColorRole.Base))
        shown = self.visible()
        if shown:
            self._want(shown[0][0], shown[-1][0])
        elif not self.cards:
            painter.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, "No events on this branch")
        for n, rect in shown:
            self._paint_card(painter, n, rect, pal, dark)
        painter.end()
        self._deadline = 0.0

    def _paint_card(self, painter: QPainter, n: int, rect: QRect, pal: QPalette, dark: bool) -> None:
        c = self.cards[n]
        e = self.events.get(self.event_id(n))
        role = "run" if c.kind == "run" else rc.who(e)[1] if e is not None else "system"
        tint = TINT[dark].get(role)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(tint) if tint else pal.color(QPalette.ColorRole.AlternateBase))
        painter.drawRoundedRect(QRectF(rect), 6, 6)
        bar = COLORS[dark].get("agent" if role == "run" else role, COLORS[dark]["system"])
        painter.fillRect(QRect(rect.left(), rect.top() + 3, BAR, rect.height() - 6), QColor(bar))
        if n == self.current:
            pen = pal.color(QPalette.ColorRole.Highlight)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        d = self.doc(n)
        painter.save()
        painter.translate(rect.left() + BAR + PAD, rect.top() + PAD)
        if d is None:
            painter.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(0, self.fontMetrics().ascent(), "…")
        else:
            ctx = QAbstractTextDocumentLayout.PaintContext()
            ctx.palette.setColor(QPalette.ColorRole.Text, pal.color(QPalette.ColorRole.Text))
            if self.selection and self.selection[0] == n and self.selection[1] != self.selection[2]:
                sel = QAbstractTextDocumentLayout.Selection()
                cursor = QTextCursor(d)
                cursor.setPosition(self.selection[1])
                cursor.setPosition(self.selection[2], QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cursor
                sel.format.setBackground(pal.color(QPalette.ColorRole.Highlight))
                sel.format.setForeground(pal.color(QPalette.ColorRole.HighlightedText))
                ctx.selections = [sel]
            d.documentLayout().draw(painter, ctx)
        painter.restore()
