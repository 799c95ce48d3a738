"""Sessions like this one: the sessions whose texts lie nearest in meaning to one session's (search by meaning,
sessionscope.recall.semantic). Activating one opens it."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout

from sessionscope.gui.jobs.workers import run_task
from sessionscope.gui.sessions.session_model import when


class SimilarDialog(QDialog):
    sig_open = Signal(str)  # a session id
    sig_settings = Signal()  # search by meaning is off: the user asks to turn it on

    def __init__(self, store, session, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Sessions like “{session.title or session.id[:8]}”")
        self.resize(640, 380)
        self.status = QLabel("Looking…")
        self.status.setWordWrap(True)
        self.settings_button = QPushButton("Settings…")
        self.settings_button.hide()
        self.settings_button.clicked.connect(lambda: (self.sig_settings.emit(), self.accept()))
        self.results = QTreeWidget()
        self.results.setRootIsDecorated(False)
        self.results.setHeaderLabels(["Session", "Nearness", "Last active"])
        self.results.setColumnWidth(0, 360)
        self.results.itemActivated.connect(lambda item: self.sig_open.emit(item.data(0, Qt.ItemDataRole.UserRole)))
        top = QHBoxLayout()
        top.addWidget(self.status, 1)
        top.addWidget(self.settings_button)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.results)
        from sessionscope.recall import semantic
        run_task(lambda: semantic.similar_sessions(store, session.id, limit=20), self._show, self._failed, owner=self)

    def _show(self, found) -> None:
        for s in found:
            item = QTreeWidgetItem([s.title or s.session_id[:8], f"{max(0.0, s.score) * 100:.0f}%", when(s.updated_at)])
            item.setData(0, Qt.ItemDataRole.UserRole, s.session_id)
            item.setToolTip(1, "How near the two sessions' texts lie in meaning, on the whole (100%: the same)")
            self.results.addTopLevelItem(item)
        self.status.setText(f"{len(found)} sessions, the nearest first; double-click one to open it" if found
                            else "No other session has anything embedded yet")

    def _failed(self, exc: BaseException) -> None:
        text = str(exc)
        self.status.setText(html.escape(text[0].upper() + text[1:]))
        if "is off" in text:
            self.status.setText("Search by meaning is off. Turn it on in Settings (a local model; nothing leaves "
                                "this computer) to find sessions like this one.")
            self.settings_button.show()
