"""Search everything: hits of the search language (sessionscope.recall.query) grouped by session, the best first (or the
newest), with snippets; a query that does not parse says where and why."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from sessionscope.errors import InvalidInput
from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.sessions.session_model import when
from sessionscope.history.read_models import MARK_END, MARK_START
from sessionscope.recall.query import parse


def snippet_text(snippet: str) -> str:
    return " ".join(snippet.replace(MARK_START, "«").replace(MARK_END, "»").split())


HELP = """<b>Search everything</b><br>
<code>retry jitter</code> both words; <code>retr*</code> a prefix; <code>*ssion*</code> inside a word<br>
<code>"exact phrase"</code> the words in order; <code>cookie OR session</code> either; <code>-flaky</code> not it<br>
<code>kind:tool_result</code> <code>tool:Bash</code> <code>source:codex</code> <code>project:shop</code>
<code>session:1a2b</code><br>
<code>since:2026-11-01</code> <code>until:7d</code> <code>has:error</code> <code>is:starred</code>
<code>is:pinned</code> <code>note:word</code> (your notes only)<br>
A filter can be left out too: <code>-kind:thinking</code><br>
A word that finds nothing is taken for a typo of the nearest word there is (said above the hits)"""


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
        self.query = QLineEdit(placeholderText='Words, "a phrase", OR, -word, kind: tool:Bash source: project: '
                               "since:7d has:error is:starred note: …")
        self.query.setToolTip(HELP)
        self.query.returnPressed.connect(self.run)
        self.order = QComboBox()
        self.order.addItem("Best first", "relevance")
        self.order.addItem("Newest first", "time")
        self.order.setToolTip("The best hits first (BM25, and by meaning when it is on in Settings: marked ≈), "
                              "grouped by session, or the newest first")
        self.order.currentIndexChanged.connect(lambda _i: self.run() if self.query.text().strip() else None)
        self.status = QLabel("")
        self.results = QTreeWidget()
        self.results.setHeaderLabels(["Where", "When", "What was said"])
        self.results.setColumnWidth(0, 260)
        self.results.setColumnWidth(1, 120)
        self.results.itemActivated.connect(self._activated)
        self.results.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.results.customContextMenuRequested.connect(self._menu)
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self.query, 1)
        top.addWidget(self.order)
        lay.addLayout(top)
        self.export_button = QPushButton("Export These Sessions…")
        self.export_button.setEnabled(False)
        self.searched = ""  # what the hits shown are of: the query, or the one its typos mended to ("did you mean")
        self.export_button.clicked.connect(lambda: self.sig_export.emit(self.searched or self.query.text().strip()))
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
        try:  # a query that does not parse is said at once, where and why (cheap: no store is read)
            parse(words)
        except InvalidInput as exc:
            self._gen.next()  # an answer still on its way is not shown under the error
            self.results.clear()
            self.export_button.setEnabled(False)
            self.status.setText(html.escape(str(exc)))
            return
        token = self._gen.next()
        self.status.setText("Searching…")
        order = self.order.currentData()
        run_task(lambda: self.store.search(words, limit=200, order=order), lambda hits: self._show(token, hits),
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
            meaning = h.match == "meaning"
            child = QTreeWidgetItem([("≈ " if meaning else "") + f"{h.kind} {h.role or ''} · #{h.seq}", when(h.ts),
                                     snippet_text(h.snippet)])
            child.setData(0, Qt.ItemDataRole.UserRole, (h.session_id, h.event_id))
            child.setToolTip(2, snippet_text(h.snippet))
            if meaning:
                child.setToolTip(0, "Found by meaning: it says the same in other words")
            parent.addChild(child)
        self.results.expandAll()
        n, m = len(hits), len(groups)
        by_meaning = sum(h.match == "meaning" for h in hits)
        mended = hits[0].did_you_mean if hits else ""
        self.searched = mended or self.query.text().strip()
        self.status.setText((f"Nothing as typed. Did you mean <b>{html.escape(mended)}</b>? " if mended else "")
                            + f"{n} match{'' if n == 1 else 'es'} in {m} session{'' if m == 1 else 's'}"
                            + (f" ({by_meaning} found by meaning, marked ≈)" if by_meaning else "")
                            if hits else "No matches")
        self.export_button.setEnabled(bool(hits))

    def needle(self) -> str:
        """What to mark where a hit opens: the query's first word or phrase to find ("" for filters alone)."""
        try:
            q = parse(self.searched or self.query.text())
        except InvalidInput:
            return ""
        return q.groups[0][0].text if q.groups else ""

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
