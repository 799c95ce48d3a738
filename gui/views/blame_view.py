"""File ▸ Who Wrote This…: a file with each line attributed to the session and event whose edit wrote it
(sessionscope.insight.blame), and its history — every change any agent made to it, in time order, across tools. A line or a
change opens its session at that event; a change shows the file as it left it, where the edits chain from a known
state. Worked out on a worker; the window remembers its size and the last file."""

from __future__ import annotations

import datetime as dt
import os

from PySide6.QtCore import QAbstractTableModel, QByteArray, QModelIndex, QSettings, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.sessions.session_model import badge
from sessionscope.safety.untrusted import printable

# light hues, one a session (in the order they first wrote a line), behind the lines it wrote
HUES = ("#e3f2fd", "#fff3e0", "#e8f5e9", "#f3e5f5", "#fffde7", "#e0f7fa", "#fce4ec", "#f1f8e9", "#ede7f6", "#efebe9")
OPS = {"write": "wrote the file", "replace": "edited", "patch": "patched", "insert": "inserted into", "delete": "deleted",
       "rename": "renamed", "commit": "committed"}


def when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else ""


class LinesModel(QAbstractTableModel):
    HEADERS = ("Line", "Session", "When", "", "Text")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result = None
        self.hue: dict[str, str] = {}
        self.fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)  # the code's column (asked per paint)

    def show(self, result) -> None:
        self.beginResetModel()
        self.result, self.hue = result, {}
        for line in result.lines if result else []:
            if line.change is not None:
                sid = result.changes[line.change].session_id
                self.hue.setdefault(sid, HUES[len(self.hue) % len(HUES)])
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() or self.result is None else len(self.result.lines)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def change_at(self, row: int):
        line = self.result.lines[row] if self.result and 0 <= row < len(self.result.lines) else None
        return self.result.changes[line.change] if line is not None and line.change is not None else None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.result is None:
            return None
        line = self.result.lines[index.row()]
        c = self.result.changes[line.change] if line.change is not None else None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return str(line.number)
            if col == 1:
                return f"{badge(c.tool)[0]} · {printable(c.title or c.session_id[:8])[:40]}" if c else ""
            if col == 2:
                return when(c.ts) if c else ""
            if col == 3:  # how sure: a line changed by hand since, or moved, says so
                return {"changed since by someone else": "~", "moved here": "»"}.get(line.note, "c" if line.note else "")
            return printable(line.text.expandtabs(4))  # (a tab is layout here, not a character to show)
        if role == Qt.ItemDataRole.BackgroundRole and c is not None:
            return QColor(self.hue.get(c.session_id, HUES[0]))
        if role == Qt.ItemDataRole.ForegroundRole and c is not None:
            return QColor("#202020")  # (the hues are light in either theme)
        if role == Qt.ItemDataRole.FontRole and col == 4:
            return self.fixed
        if role == Qt.ItemDataRole.ToolTipRole:
            if c is None:
                return "No agent's edit wrote this line (a person did, or a tool Sessionscope has not seen)"
            said = [f"{printable(c.title or '(untitled)')}", f"{c.tool.replace('_', ' ')} {OPS.get(c.op, c.op)} the file "
                    f"{when(c.ts)}", f"session {c.session_id}", f"event {c.event_id}"]
            if line.note == "changed since by someone else":
                said.append(f"Changed since by someone else: {line.confidence:.0%} of it is still as the agent wrote it")
            elif line.note:
                said.append(line.note[0].upper() + line.note[1:])
            if line.commit:
                said.append(f"git: commit {line.commit[:10]}")
            if c.commit:
                said.append(f"its session committed it: {c.commit}")
            return "\n".join(said) + "\n\nDouble-click: open the session at this edit"
        return None


class BlameView(QDialog):
    sig_open = Signal(str, str)  # a session, and the event to show in it

    def __init__(self, store, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Who wrote this")
        self.setObjectName("blame-view")
        self.store, self.result, self.path, self._at_event = store, None, "", None
        self._gen = Generation()
        self.path_label = QLabel("Choose a file to see which session wrote each of its lines")
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        choose = QPushButton("Open File…")
        choose.clicked.connect(self.choose)
        self.summary = QLabel("")
        self.summary.setObjectName("blame-summary")
        self.summary.setWordWrap(True)
        self.model = LinesModel(self)
        self.lines = QTableView()
        self.lines.setObjectName("blame-lines")
        self.lines.setModel(self.model)
        self.lines.verticalHeader().hide()
        self.lines.setShowGrid(False)
        self.lines.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.lines.setWordWrap(False)
        self.lines.verticalHeader().setDefaultSectionSize(self.lines.fontMetrics().height() + 4)
        header = self.lines.horizontalHeader()
        for col, width in ((0, 52), (1, 280), (2, 120), (3, 22)):
            header.resizeSection(col, width)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.lines.doubleClicked.connect(lambda index: self._open(self.model.change_at(index.row())))
        self.history = QTreeWidget()
        self.history.setObjectName("blame-history")
        self.history.setHeaderLabels(["When", "Tool", "Session", "What", "Lines", "Commit"])
        self.history.setRootIsDecorated(False)
        for col, width in ((0, 130), (1, 80), (2, 300), (3, 300), (4, 60)):
            self.history.setColumnWidth(col, width)
        self.history.itemActivated.connect(lambda item: self._open(item.data(0, Qt.ItemDataRole.UserRole)))
        self.history.currentItemChanged.connect(lambda *_: self._history_chosen())
        self.as_it_was = QPushButton("Show the File as It Was Here")
        self.as_it_was.setEnabled(False)
        self.as_it_was.setToolTip("The file as this change left it, replayed from the first whole-file write")
        self.as_it_was.clicked.connect(self.show_state)
        open_change = QPushButton("Open Session Here")
        open_change.clicked.connect(lambda: self._open(self._current_change()))
        history_box = QVBoxLayout()
        history_box.addWidget(self.history, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(open_change)
        row.addWidget(self.as_it_was)
        history_box.addLayout(row)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.lines, "Lines")
        holder = QWidget()
        holder.setLayout(history_box)
        self.tabs.addTab(holder, "History")
        top = QHBoxLayout()
        top.addWidget(self.path_label, 1)
        top.addWidget(choose)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.tabs, 1)
        geometry = QSettings().value("blame/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1100, 700)

    def done(self, result: int) -> None:
        QSettings().setValue("blame/geometry", self.saveGeometry())
        super().done(result)

    def choose(self) -> None:
        start = self.path or QSettings().value("blame/last", "", type=str) or os.path.expanduser("~")
        path, _ = QFileDialog.getOpenFileName(self, "Who wrote this file?", start)
        if path:
            self.show_file(path)

    def refresh(self) -> None:
        """Read the file shown again (another store, or new sessions)."""
        if self.path:
            self.show_file(self.path)

    def show_file(self, path: str, at_event: str | None = None) -> None:
        """The file's lines and history; with `at_event`, its History opens at that event's change."""
        self.path, self._at_event = os.path.abspath(path), at_event
        QSettings().setValue("blame/last", self.path)
        self.path_label.setText(f"<b>{printable(os.path.basename(self.path))}</b> &nbsp; "
                                f"<span style='color:#666'>{printable(os.path.dirname(self.path))}</span>")
        self.summary.setText("Reading every agent's edits of it…")
        token, store, path = self._gen.next(), self.store, self.path
        run_task(lambda: store.blame(path), lambda result: self._shown(token, result),
                 lambda exc: self._failed(token, exc), owner=self)

    def _failed(self, token, exc: BaseException) -> None:
        if self._gen.current(token):
            self.summary.setText(f"Could not read {self.path}: {type(exc).__name__}: {exc}")

    def _shown(self, token, result) -> None:
        if not self._gen.current(token):
            return
        self.result = result
        self.model.show(result)
        n, by = len(result.lines), result.by_agents()
        sessions = {result.changes[x.change].session_id for x in result.lines if x.change is not None}
        changed = sum(1 for x in result.lines if x.note == "changed since by someone else")
        self.summary.setText(
            f"{by:,} of {n:,} lines written by {len(sessions)} session{'s' if len(sessions) != 1 else ''}"
            + (f"; {changed} changed since by someone else (~)" if changed else "")
            + f"; {len(result.changes)} change{'s' if len(result.changes) != 1 else ''} in its history"
            + (" (a git repository: each line's commit in its tooltip)" if result.repository else "")
            if result.changes else "No agent's edit of this file is in the store (or its sessions have not been "
                                   "imported)")
        if not result.here:
            self.summary.setText(f"The file is not on this machine now (or is not a file Sessionscope reads): its "
                                 f"history alone, {len(result.changes)} change{'s' if len(result.changes) != 1 else ''}")
        self.history.clear()
        for i, c in enumerate(result.changes):
            what = OPS.get(c.op, c.op) + (f" from {os.path.basename(c.other)}" if c.op == "rename" and c.other else "")
            if c.applied is False:
                what += " (did not apply to the file as known: its lines matched by text)"
            item = QTreeWidgetItem([when(c.ts), badge(c.tool)[0], printable(c.title or c.session_id[:8]), what,
                                    f"+{c.added}" if c.added else "", c.commit[:10]])
            item.setData(0, Qt.ItemDataRole.UserRole, c)
            item.setData(1, Qt.ItemDataRole.UserRole, i)
            item.setToolTip(2, f"{c.session_id}\nevent {c.event_id}\n{c.path}")
            self.history.addTopLevelItem(item)
            if c.event_id == self._at_event:  # asked from that event: its change, the file as it left it a click away
                self.tabs.setCurrentIndex(1)
                self.history.setCurrentItem(item)

    def _current_change(self):
        item = self.history.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def _history_chosen(self) -> None:
        item = self.history.currentItem()
        self.as_it_was.setEnabled(item is not None and self.result is not None
                                  and item.data(1, Qt.ItemDataRole.UserRole) in self.result.states)

    def show_state(self) -> str | None:
        """The file as the chosen change left it, in a window of its own (returned for the tests)."""
        item = self.history.currentItem()
        if item is None or self.result is None:
            return None
        text = self.result.states.get(item.data(1, Qt.ItemDataRole.UserRole))
        if text is None:
            return None
        c = item.data(0, Qt.ItemDataRole.UserRole)
        box = QDialog(self)
        box.setObjectName("blame-state")
        box.setWindowTitle(f"{os.path.basename(self.path)} as {printable(c.title or c.session_id[:8])} left it, "
                           f"{when(c.ts)}")
        view = QPlainTextEdit(printable(text.expandtabs(4), keep_newlines=True))
        view.setReadOnly(True)
        view.setFont(QFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)))
        lay = QVBoxLayout(box)
        lay.addWidget(view)
        box.resize(900, 650)
        box.show()
        return text

    def _open(self, change) -> None:
        if change is not None and change.event_id:
            self.sig_open.emit(change.session_id, change.event_id)
