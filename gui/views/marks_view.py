"""View ▸ Pins and View ▸ Notes (#33): what the user marked, in every session or in the one shown, newest
first; Enter or a double-click opens one where it is (its session, that event chosen). Short lists (they
are made by hand), so plain table widgets; read on a worker."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.sessions.session_model import exact

KINDS = {"message": "message", "tool_call": "tool call", "tool_result": "tool result", "thinking": "thinking"}


class MarksView(QDialog):
    """A list of marks (`read(store, session_id or None)` on a worker; `cells(mark)` a row's four texts)."""

    sig_open = Signal(str, str)  # session id, event id ("" for the session itself)
    NAME, HEADERS, EMPTY = "", ("Session", "When", "Kind", "Text"), ""

    def __init__(self, store, session_id: str | None, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.NAME.title())
        self.setObjectName(f"{self.NAME}-view")
        self.store, self.session_id, self.marks = store, session_id, []
        self._gen = Generation()
        self.only_this = QCheckBox("Only the session shown")
        self.only_this.setEnabled(session_id is not None)
        self.only_this.toggled.connect(self.refresh)
        self.table = QTableWidget(0, len(self.HEADERS))
        self.table.setHorizontalHeaderLabels(list(self.HEADERS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(len(self.HEADERS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 240)
        self.table.setColumnWidth(1, 150)
        self.table.itemActivated.connect(lambda item: self._open(item.row()))
        self.status = QLabel(f"Reading {self.NAME}…")
        self.buttons = QHBoxLayout()
        lay = QVBoxLayout(self)
        lay.addWidget(self.only_this)
        lay.addWidget(self.table, 1)
        lay.addLayout(self.buttons)
        lay.addWidget(self.status)
        geometry = QSettings().value(f"{self.NAME}/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(900, 420)
        self.refresh()

    def closeEvent(self, event) -> None:
        QSettings().setValue(f"{self.NAME}/geometry", self.saveGeometry())
        super().closeEvent(event)

    def set_session(self, session_id: str | None) -> None:
        self.session_id = session_id
        self.only_this.setEnabled(session_id is not None)
        self.refresh()

    def refresh(self) -> None:
        token, store, read = self._gen.next(), self.store, self.read
        only = self.session_id if self.only_this.isChecked() else None
        run_task(lambda: read(store, only), lambda marks: self._shown(token, marks),
                 lambda exc: self.status.setText(f"Could not read the {self.NAME}: {exc}"), owner=self)

    def _shown(self, token, marks) -> None:
        if not self._gen.current(token):
            return
        self.marks = marks
        self.table.setRowCount(len(marks))
        for row, mark in enumerate(marks):
            for col, value in enumerate(self.cells(mark)):
                item = QTableWidgetItem(value)
                item.setToolTip(f"{mark.session_title}\n{mark.session_id}" if col == 0 else value[:600])
                self.table.setItem(row, col, item)
        self.status.setText(f"{len(marks)} {self.NAME} · Enter or a double-click opens one where it is"
                            if marks else self.EMPTY)

    def _open(self, row: int) -> None:
        if 0 <= row < len(self.marks):
            self.sig_open.emit(self.marks[row].session_id, self.marks[row].event_id or "")

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.table.currentRow() >= 0:
            self._open(self.table.currentRow())
            return
        super().keyPressEvent(event)


class PinsView(MarksView):
    NAME = "pins"
    EMPTY = "No pins yet: choose an event in the timeline or the reader and press P"

    @staticmethod
    def read(store, session_id):
        return store.pins(session_id)

    @staticmethod
    def cells(p) -> tuple[str, ...]:
        return (p.session_title or p.session_id[:8], exact(p.ts), KINDS.get(p.kind, p.kind.replace("_", " ")),
                " ".join((p.text or "").split()))


class NotesView(MarksView):
    """Also changes and removes a note, and forks where it is to continue with it (through the window's actions:
    `edit`, `remove`, `go_on`)."""

    NAME = "notes"
    HEADERS = ("Session", "Written", "On", "Note")
    EMPTY = "No notes yet: choose an event in the timeline or the reader and press N"

    def __init__(self, store, session_id, parent=None, edit=None, remove=None, go_on=None):
        super().__init__(store, session_id, parent)
        for text, act in (("Edit…", edit), ("Remove", remove), ("Fork Here and Continue…", go_on)):
            button = QPushButton(text)
            button.clicked.connect(lambda _=False, act=act: self._with_chosen(act))
            self.buttons.addWidget(button)
        self.buttons.addStretch(1)

    def _with_chosen(self, act) -> None:
        row = self.table.currentRow()
        if act is not None and 0 <= row < len(self.marks):
            act(self.marks[row])

    @staticmethod
    def read(store, session_id):
        return store.notes(session_id)

    @staticmethod
    def cells(n) -> tuple[str, ...]:
        return (n.session_title or n.session_id[:8], exact(n.updated_at),
                f"event {n.event_id[:8]}" if n.event_id else "the session", " ".join(n.text.split()))


def ask_note(parent, title: str, text: str = "") -> str | None:
    """A note's Markdown, asked for in a dialog (None: cancelled or empty)."""
    from sessionscope.gui.dialogs import ask
    return ask.text(parent, title, "Markdown; it stays yours (no rescan touches it):", text, lines=True)
