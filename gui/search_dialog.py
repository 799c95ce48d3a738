"""Search everything: full-text hits grouped by session, newest first, with snippets."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from sessionscope.read_models import MARK_END, MARK_START

from .session_model import when
from .workers import Generation, run_task


def snippet_text(snippet: str) -> str:
    return " ".join(snippet.replace(MARK_START, "«").replace(MARK_END, "»").split())


class SearchDialog(QDialog):
    """Activating a hit opens its session at that event (sig_open)."""

    sig_open = Signal(str, str)  # session id, event id
    sig_export = Signal(str)  # export the sessions of this query
    sig_pin = Signal(str, str)  # pin this hit's event: session id, event id

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Search everything")
        self.resize(820, 520)
        self.store = store
        self.query = QLineEdit(placeholderText="Words to find in every session (a trailing * matches prefixes)")
        self.query.returnPressed.connect(self.run)
        self.status = QLabel("")
        self.results = QTreeWidget()
        self.results.setHeaderLabels(["Where", "When", "What was said"])
        self.results.setColumnWidth(0, 260)
        self.results.setColumnWidth(1, 120)
        self.results.itemActivated.connect(self._activated)
        self.results.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.results.customContextMenuRequested.connect(self._menu)
        lay = QVBoxLayout(self)
        lay.addWidget(self.query)
        self.export_button = QPushButton("Export These Sessions…")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(lambda: self.sig_export.emit(self.query.text().strip()))
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.export_button)
        lay.addLayout(row)
        lay.addWidget(self.results)
        self._gen = Generation()

    def run(self, text: str | None = None) -> None:
        if text is not None:
            self.query.setText(text)
        words = self.query.text().strip()
        if not words:
            return
        token = self._gen.next()
        self.status.setText("Searching…")
        run_task(lambda: self.store.search(words, limit=200), lambda hits: self._show(token, hits),
                 lambda exc: self.status.setText(html.escape(str(exc))), owner=self)

    def _show(self, token: int, hits) -> None:
        if not self._gen.current(token):
            return
        self.results.clear()
        groups: dict[str, QTreeWidgetItem] = {}
        for h in hits:
            parent = groups.get(h.session_id)
            if parent is None:
                parent = groups[h.session_id] = QTreeWidgetItem([h.session_title or h.session_id[:8], "", ""])
                parent.setData(0, Qt.ItemDataRole.UserRole, (h.session_id, None))
                self.results.addTopLevelItem(parent)
            child = QTreeWidgetItem([f"{h.kind} {h.role or ''} · #{h.seq}", when(h.ts), snippet_text(h.snippet)])
            child.setData(0, Qt.ItemDataRole.UserRole, (h.session_id, h.event_id))
            child.setToolTip(2, snippet_text(h.snippet))
            parent.addChild(child)
        self.results.expandAll()
        n, m = len(hits), len(groups)
        self.status.setText(f"{n} match{'' if n == 1 else 'es'} in {m} session{'' if m == 1 else 's'}"
                            if hits else "No matches")
        self.export_button.setEnabled(bool(hits))

    def _menu(self, pos) -> None:
        """A hit's menu: open it where it is, or pin its event (View ▸ Pins lists it then)."""
        from PySide6.QtWidgets import QMenu
        item = self.results.itemAt(pos)
        if item is None:
            return
        session_id, event_id = item.data(0, Qt.ItemDataRole.UserRole)
        menu = QMenu(self)
        menu.addAction("Open Where It Is", lambda: self._activated(item))
        pin = menu.addAction("Pin This Event", lambda: self.sig_pin.emit(session_id, event_id))
        pin.setEnabled(bool(event_id))
        menu.popup(self.results.viewport().mapToGlobal(pos))
        self.menu = menu  # (kept while it is up)

    def _activated(self, item) -> None:
        session_id, event_id = item.data(0, Qt.ItemDataRole.UserRole)
        self.sig_open.emit(session_id, event_id or "")
