"""View ▸ Needs You (#35): every session that needs approval or waits for you, across tools, the longest waiting
first, each with the agent's last words and what it asks to do, and one action: Open in Its Tool (the tool's
resume, in a terminal, as Resume does; for an agent behind an API, the composer in the window). Follows the live
states as they change (gui/jobs/live_tracker.py); the list is read on a worker (sessionscope.live.needs_you)."""

from __future__ import annotations

import time

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from sessionscope import sources
from sessionscope.gui.jobs.workers import run_task
from sessionscope.live.words import LABELS, MARKS, ago
from sessionscope.safety.untrusted import printable


def _plain(text: str, limit: int) -> str:
    text = printable(" ".join(text.split()))  # one paragraph, a transcript's control characters shown escaped
    return text if len(text) <= limit else text[:limit - 1] + "…"


class Card(QFrame):
    """One session that needs you: what it is, since when, its last words, what it asks, and the action."""

    sig_open = Signal(str)  # show it in the window
    sig_answer = Signal(str)  # open it in its tool

    def __init__(self, w, parent=None):
        super().__init__(parent)
        self.setObjectName("needs-you-card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.session_id = w.session.id
        src = sources.of(w.session.source_kind)
        head = QLabel(f"<b>{MARKS[w.live.state]} {LABELS[w.live.state]}</b> for {ago(time.time() - w.since)} · "
                      f"{src.label}")
        title = QLabel(_plain(w.session.title or "(untitled)", 120))
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        title.setStyleSheet("font-size: 110%; font-weight: 600")
        head.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.addWidget(head)
        lay.addWidget(title)
        if w.said:
            said = QLabel(_plain(w.said, 400))
            said.setTextFormat(Qt.TextFormat.PlainText)
            said.setWordWrap(True)
            said.setObjectName("needs-you-said")
            lay.addWidget(said)
        if w.pending:
            pending = QLabel(("Asks to run: " if w.live.state == "needs_approval" else "Waiting on: ")
                             + _plain(w.pending, 200))
            pending.setTextFormat(Qt.TextFormat.PlainText)
            pending.setWordWrap(True)
            pending.setObjectName("needs-you-pending")
            pending.setStyleSheet("font-family: monospace")
            lay.addWidget(pending)
        why = QLabel(_plain(w.live.why, 200))
        why.setTextFormat(Qt.TextFormat.PlainText)
        why.setWordWrap(True)
        why.setEnabled(False)  # (drawn muted: the evidence, not the message)
        lay.addWidget(why)
        for label in self.findChildren(QLabel):  # a word longer than the card (a path, a hash) is cut, not a scroll
            label.setMinimumWidth(1)  # (below its longest word: its height still follows its width)
            label.setToolTip(label.text())
        row = QHBoxLayout()
        remote = bool(src.remote_home)
        self.answer = QPushButton("Reply…" if remote else "Open in Its Tool")
        self.answer.setToolTip("Write to the agent, in the composer under its timeline" if remote else
                               f"Resume it in {src.label}, in a terminal (as Session ▸ Resume)")
        self.answer.clicked.connect(lambda: self.sig_answer.emit(self.session_id))
        show = QPushButton("Show")
        show.setToolTip("Show the session in the window")
        show.clicked.connect(lambda: self.sig_open.emit(self.session_id))
        row.addStretch()
        row.addWidget(show)
        row.addWidget(self.answer)
        lay.addLayout(row)


class NeedsYouView(QDialog):
    sig_open = Signal(str)
    sig_answer = Signal(str)

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Needs You")
        self.setObjectName("needs-you")
        self.store = store
        self.states: dict = {}
        self.items: list = []  # sessionscope.live.needs_you.Waiting, as shown
        self.summary = QLabel("")
        self.summary.setObjectName("needs-you-summary")
        self.cards = QWidget()
        self.cards_layout = QVBoxLayout(self.cards)
        self.cards_layout.addStretch()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the cards fit the width
        self.cards_scroll = scroll  # (not `scroll`: QWidget.scroll is a method)
        scroll.setWidget(self.cards)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(scroll, 1)
        self.resize(720, 640)
        geometry = QSettings().value("needs_you/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)

    def set_states(self, states: dict) -> None:
        """The live states changed: read the list again (on a worker) when what needs you changed."""
        from sessionscope.live.needs_you import NEEDS_YOU
        mine = {sid: st for sid, st in states.items() if st.state in NEEDS_YOU}
        if mine == self.states and self.items:
            return
        self.states = mine
        store = self.store
        from sessionscope.live import needs_you
        run_task(lambda: needs_you.waiting(store, mine), self._show, owner=self)

    def _show(self, items) -> None:
        self.items = items
        while self.cards_layout.count() > 1:
            w = self.cards_layout.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        for i, w in enumerate(items):
            card = Card(w)
            card.sig_open.connect(self.sig_open)
            card.sig_answer.connect(self.sig_answer)
            self.cards_layout.insertWidget(i, card)
        approvals = sum(w.live.state == "needs_approval" for w in items)
        self.summary.setText("Nothing needs you now." if not items else
                             f"{len(items)} session{'s' * (len(items) != 1)} need you"
                             + (f" ({approvals} to approve)" if approvals else "") + ", the longest waiting first.")

    def closeEvent(self, event) -> None:
        QSettings().setValue("needs_you/geometry", self.saveGeometry())
        super().closeEvent(event)
