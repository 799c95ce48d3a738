"""View ▸ Pins: the events the user pinned (#33), in every session or in the one shown, newest pin first;
Enter or a double-click opens one where it is (its session, that event chosen). A short list (pins are
chosen by hand), so a plain table widget; read on a worker."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from .session_model import exact
from .workers import Generation, run_task

KINDS = {"message": "message", "tool_call": "tool call", "tool_result": "tool result", "thinking": "thinking"}


class PinsView(QDialog):
    sig_open = Signal(str, str)  # session id, event id

    def __init__(self, store, session_id: str | None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Pins")
        self.setObjectName("pins-view")
        self.store, self.session_id, self.pins = store, session_id, []
        self._gen = Generation()
        self.only_this = QCheckBox("Only the session shown")
        self.only_this.setEnabled(session_id is not None)
        self.only_this.toggled.connect(self.refresh)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Session", "When", "Kind", "Text"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 240)
        self.table.setColumnWidth(1, 150)
        self.table.itemActivated.connect(lambda item: self._open(item.row()))
        self.status = QLabel("Reading pins…")
        lay = QVBoxLayout(self)
        lay.addWidget(self.only_this)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.status)
        geometry = QSettings().value("pins/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(900, 420)
        self.refresh()

    def closeEvent(self, event) -> None:
        QSettings().setValue("pins/geometry", self.saveGeometry())
        super().closeEvent(event)

    def set_session(self, session_id: str | None) -> None:
        self.session_id = session_id
        self.only_this.setEnabled(session_id is not None)
        self.refresh()

    def refresh(self) -> None:
        token, store = self._gen.next(), self.store
        only = self.session_id if self.only_this.isChecked() else None
        run_task(lambda: store.pins(only), lambda pins: self._shown(token, pins),
                 lambda exc: self.status.setText(f"Could not read the pins: {exc}"), owner=self)

    def _shown(self, token, pins) -> None:
        if not self._gen.current(token):
            return
        self.pins = pins
        self.table.setRowCount(len(pins))
        for row, p in enumerate(pins):
            text = " ".join((p.text or "").split())
            for col, value in enumerate((p.session_title or p.session_id[:8], exact(p.ts),
                                         KINDS.get(p.kind, p.kind.replace("_", " ")), text)):
                item = QTableWidgetItem(value)
                item.setToolTip(f"{p.session_title}\n{p.session_id}\nevent {p.event_id}" if col == 0 else text[:600])
                self.table.setItem(row, col, item)
        self.status.setText(f"{len(pins)} pinned · Enter or a double-click opens one where it is; "
                            "P (Event ▸ Pin) in the timeline or the reader pins the event chosen" if pins else
                            "No pins yet: choose an event in the timeline or the reader and press P")

    def _open(self, row: int) -> None:
        if 0 <= row < len(self.pins):
            self.sig_open.emit(self.pins[row].session_id, self.pins[row].event_id)

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.table.currentRow() >= 0:
            self._open(self.table.currentRow())
            return
        super().keyPressEvent(event)
