"""The timeline of one branch: a table model over event ids with a lazy, paged cache.

Only ids are held (a 200,000-event branch is a list of strings); rows are
fetched 200 at a time on a worker when they are first painted, and shown as
"…" until they arrive. Answers for a branch no longer shown are dropped.
"""

from __future__ import annotations

import datetime as dt
import json

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont

from .session_model import tokens_text
from .workers import Generation, run_task

PAGE = 200
COLUMNS = ["Time", "Kind", "Who", "Text", "Tokens"]
KIND_LABELS = {"tool_call": "tool call", "tool_result": "result", "compaction": "compaction",
               "compaction_summary": "summary", "fact.set": "fact", "fact.delete": "fact −"}
KIND_COLORS = {"message": None, "tool_call": "#b5651d", "tool_result": "#8a6d3b", "thinking": "#7a7a9a",
               "compaction": "#2e7d32", "compaction_summary": "#2e7d32", "fact.set": "#1565c0",
               "fact.delete": "#1565c0", "progress": "#9e9e9e", "meta": "#9e9e9e", "system": "#9e9e9e"}


def clock(ts: float) -> str:
    """Day and time to the second: turns are seconds apart, sessions span days."""
    return dt.datetime.fromtimestamp(ts).strftime("%b %d %H:%M:%S") if ts else ""


def first_line(text: str, width: int = 240) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[:width - 1] + "…"


class TimelineModel(QAbstractTableModel):
    sig_page_loaded = Signal(int)  # first row of the page
    sig_reset = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.store = None
        self.ids: list[str] = []
        self.pages: dict[int, list] = {}
        self.pending: set[int] = set()
        self.fork_points: set[str] = set()
        self._gen = Generation()

    def show_ids(self, store, ids: list[str], fork_points: set[str] | None = None) -> None:
        self._gen.next()
        self.beginResetModel()
        self.store, self.ids, self.pages, self.pending = store, ids, {}, set()
        self.fork_points = fork_points or set()
        self.endResetModel()
        self.sig_reset.emit()

    def clear(self) -> None:
        self.show_ids(self.store, [])

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.ids)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def event_at(self, row: int):
        """The event on `row` if its page is loaded (else it is requested and None returned)."""
        if not (0 <= row < len(self.ids)):
            return None
        page = row // PAGE
        rows = self.pages.get(page)
        if rows is None:
            self._request(page)
            return None
        i = row - page * PAGE
        return rows[i] if i < len(rows) else None

    def _request(self, page: int) -> None:
        if page in self.pending or self.store is None:
            return
        self.pending.add(page)
        token, store = self._gen.value, self.store
        ids = self.ids[page * PAGE:(page + 1) * PAGE]
        run_task(lambda: store.events_by_ids(ids), lambda rows: self._loaded(token, page, rows), owner=self)

    def _loaded(self, token: int, page: int, rows) -> None:
        if not self._gen.current(token):
            return
        self.pending.discard(page)
        self.pages[page] = rows
        first, last = page * PAGE, min(len(self.ids), (page + 1) * PAGE) - 1
        self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))
        self.sig_page_loaded.emit(first)

    def load_all_pages_blocking(self) -> None:
        """Fetch every page now (exports and tests; not the paint path)."""
        for page in range((len(self.ids) + PAGE - 1) // PAGE):
            if page not in self.pages:
                self.pages[page] = self.store.events_by_ids(self.ids[page * PAGE:(page + 1) * PAGE])

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        e = self.event_at(index.row())
        col = index.column()
        if e is None:
            return "…" if role == Qt.ItemDataRole.DisplayRole and col == 3 else None
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return clock(e.ts)
            if col == 1:
                label = KIND_LABELS.get(e.kind, e.kind)
                return label + (" ⑂" if e.id in self.fork_points else "")
            if col == 2:
                return (f"agent {e.agent_id}" if e.sidechain and e.agent_id else e.role or "")
            if col == 3:
                return first_line(self._summary(e))
            if col == 4:
                n = e.tokens_in + e.tokens_out
                return tokens_text(n) if n else ""
        if role == Qt.ItemDataRole.ForegroundRole:
            color = KIND_COLORS.get(e.kind)
            return QColor(color) if color else None
        if role == Qt.ItemDataRole.FontRole and e.kind == "message" and e.role == "user":
            f = QFont()
            f.setBold(True)
            return f
        if role == Qt.ItemDataRole.ToolTipRole and col == 3:
            return e.text[:2000]
        if role == Qt.ItemDataRole.UserRole:
            return e
        return None

    @staticmethod
    def _summary(e) -> str:
        if e.text:
            return e.text
        if e.kind in ("progress", "meta", "opaque", "attachment"):
            try:
                body = json.loads(e.payload)
                return str(body.get("type", "")) + " " + str((body.get("data") or {}).get("type", ""))
            except (ValueError, AttributeError):
                return ""
        return ""

    def find_next(self, start: int, predicate, step: int = 1) -> int:
        """The next row (loading pages as needed) whose event satisfies predicate, or -1."""
        row = start + step
        while 0 <= row < len(self.ids):
            page = row // PAGE
            if page not in self.pages:
                self.pages[page] = self.store.events_by_ids(self.ids[page * PAGE:(page + 1) * PAGE])
            e = self.event_at(row)
            if e is not None and predicate(e):
                return row
            row += step
        return -1
