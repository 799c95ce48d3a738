"""The replay scrubber (View ▸ Replay, #37): a slider over the branch shown that moves, together, the timeline's
position — and with it the facts at that point, the files at that point where the tool kept them, and the event —
and says the time, and the tokens and cost spent so far. ▶ plays the branch forward, a step at a time.

The tokens and cost so far are worked out once a branch, on a worker (sessionscope.insight.usage.running), and looked up by
position as the slider moves."""

from __future__ import annotations

import bisect
import datetime as dt
import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QStyle, QToolButton, QWidget

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.sessions.session_model import money, tokens_text

STEP_MS = 120  # playing: a row this often


class ReplayBar(QWidget):
    sig_row = Signal(int)  # the timeline row to show

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("replay-bar")
        self.play = QToolButton()
        self.play.setObjectName("replay-play")
        self.play.setCheckable(True)
        self.play.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.play.setToolTip("Play the branch forward from here (Space on the slider)")
        self.play.toggled.connect(self._playing)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("replay-slider")
        self.slider.setToolTip("Drag to move through the branch: the timeline, the facts and files at that point, "
                               "and the tokens and cost so far move with it")
        self.slider.valueChanged.connect(self._moved)
        self.label = QLabel("")
        self.label.setObjectName("replay-label")
        self.label.setMinimumWidth(320)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 0, 6, 2)
        lay.addWidget(self.play)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.label)
        self.timer = QTimer(self, interval=STEP_MS, timeout=self._step)
        self._gen = Generation()
        self.model = None  # the timeline's model (its rows and their events)
        self.position: dict[str, int] = {}  # event id → its place along the branch (hidden kinds counted)
        self.marks: list[tuple[int, int, float | None]] = []  # (place, tokens so far, dollars so far)
        self._places: list[int] = []

    def show_branch(self, store, session_id: str, head: str | None, model) -> None:
        """The branch the timeline shows: the slider spans its rows; the spending along it is read on a worker."""
        self.model = model
        self.play.setChecked(False)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, model.rowCount() - 1))
        self.slider.blockSignals(False)
        self.position, self.marks, self._places = {}, [], []
        token = self._gen.next()
        run_task(lambda: store.running_usage(session_id, head), lambda r: self._loaded(token, *r),
                 lambda _exc: None, owner=self)  # (without it the slider still moves; the spending is not said)
        self.say()

    def rows_changed(self) -> None:
        """The timeline's rows changed (a call's output folded or shown): the slider spans them still."""
        if self.model is not None:
            self.slider.blockSignals(True)
            self.slider.setRange(0, max(0, self.model.rowCount() - 1))
            self.slider.blockSignals(False)

    def _loaded(self, token, order, marks) -> None:
        if not self._gen.current(token):
            return
        self.position = {eid: i for i, eid in enumerate(order)}
        self.marks, self._places = marks, [m[0] for m in marks]
        self.say()

    def follow(self, row: int) -> None:
        """The timeline's selection moved (a click, a find): the slider goes with it, quietly."""
        if row >= 0 and row != self.slider.value():
            self.slider.blockSignals(True)
            self.slider.setValue(row)
            self.slider.blockSignals(False)
            self.say()

    def _moved(self, row: int) -> None:
        self.sig_row.emit(row)
        self.say()

    def spent_at(self, event_id: str) -> tuple[int, float | None]:
        """Tokens and dollars spent up to and with this event."""
        place = self.position.get(event_id)
        if place is None or not self._places:
            return 0, None
        i = bisect.bisect_right(self._places, place) - 1
        return (self.marks[i][1], self.marks[i][2]) if i >= 0 else (0, None)

    def say(self) -> None:
        model, row = self.model, self.slider.value()
        e = model.event_at(row) if model is not None and model.rowCount() else None
        if e is None:
            self.label.setText("")
            return
        when = dt.datetime.fromtimestamp(e.ts).strftime("%Y-%m-%d %H:%M:%S") if e.ts and e.ts > 0 else ""
        tokens, dollars = self.spent_at(e.id)
        spent = f" · {tokens_text(tokens)} tokens so far" + (f" · {money(dollars)}" if dollars is not None else "") \
            if self.marks else ""
        self.label.setText(f"<b>{row + 1:,}</b> of {model.rowCount():,} · {html.escape(when)}{html.escape(spent)}")

    def _playing(self, on: bool) -> None:
        self.play.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause if on else
                                                    QStyle.StandardPixmap.SP_MediaPlay))
        if on and self.slider.value() >= self.slider.maximum():
            self.slider.setValue(0)  # from the start again
        self.timer.start() if on else self.timer.stop()

    def _step(self) -> None:
        if self.slider.value() >= self.slider.maximum():
            self.play.setChecked(False)
            return
        self.slider.setValue(self.slider.value() + 1)

    def stop(self) -> None:
        self.play.setChecked(False)
        self.timer.stop()
