"""Find in the session shown: the box in the timeline's header, where the last find is among the branch's matches
("3 of 17"), Return and Shift+Return stepping through them (wrapping), the reader marking the words, and typing while
reading starting a find (as a browser's type-to-find). A part of the branch pane, over its timeline and reader.

Threading: the UI thread's; the matches are read once on a worker (the timeline model's find_all_async), then stepped.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QLineEdit


class FindBar(QObject):
    sig_message = Signal(str, int)  # a line for the status bar, for so many ms

    def __init__(self, timeline, timeline_model, reader, parent=None):
        super().__init__(parent)
        self.timeline, self.timeline_model, self.reader = timeline, timeline_model, reader
        self.edit = QLineEdit(placeholderText="Find in session")
        self.edit.setMaximumWidth(200)  # the header beside it is the session's title
        self.edit.setClearButtonEnabled(True)
        # Return: the next match; Shift+Return (which QLineEdit also reports as returnPressed) the previous
        self.edit.returnPressed.connect(lambda: self.next(
            -1 if QGuiApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier else 1))
        self.status = QLabel("")  # "3 of 17": where the last find is among the branch's matches
        self.status.setObjectName("find-status")
        self.found: tuple[str, list[int]] | None = None  # (needle, the rows that hold it) of the branch shown
        self.edit.textChanged.connect(self._changed)
        for changed in (timeline_model.modelReset, timeline_model.rowsInserted, timeline_model.rowsRemoved):
            changed.connect(self._rows_changed)  # other rows: the matches are counted again at the next find
        reader.sig_typed.connect(self.type_to_find)

    def next(self, step: int = 1) -> None:
        """The next (step -1: the previous) event of the branch shown that holds the box's text, and where it is
        among all of them. The matches are read once on a worker, then stepped."""
        needle = self.edit.text().strip().lower()
        if not needle:
            return
        self.reader.set_needle(self.edit.text().strip())
        if self.found is not None and self.found[0] == needle:
            self._step(step)
            return
        self.status.setText("looking…")

        def found(rows: list[int] | None) -> None:
            if rows is None or self.edit.text().strip().lower() != needle:
                return  # the branch or the text changed meanwhile: the next Return asks again
            self.found = (needle, rows)
            self._step(step)
        self.timeline_model.find_all_async(lambda e: needle in e.text.lower(), found)

    def _step(self, step: int) -> None:
        rows = self.found[1] if self.found else []
        if not rows:
            self.status.setText("not found")
            self.sig_message.emit(f"“{self.edit.text().strip()}” is not in this branch", 5000)
            return
        at = self.timeline.currentIndex().row()
        later = [i for i, r in enumerate(rows) if (r > at if step > 0 else r < at)]
        k = (later[0] if step > 0 else later[-1]) if later else (0 if step > 0 else len(rows) - 1)  # wraps
        self.timeline.selectRow(rows[k])
        self.status.setText(f"{k + 1} of {len(rows)}")

    def _rows_changed(self, *_args) -> None:
        if self.found is not None:
            self.found = None
            self.status.setText("")

    def _changed(self, text: str) -> None:
        self.found = None
        self.status.setText("")
        if not text.strip():
            self.reader.set_needle("")

    def type_to_find(self, text: str) -> None:
        """Typing while reading finds: the box takes the focus and the character, so no letter reaches a one-key
        action."""
        self.edit.setFocus()
        self.edit.selectAll()  # a new find: the character replaces the last one's words
        self.edit.insert(text)
