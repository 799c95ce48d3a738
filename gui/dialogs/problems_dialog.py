"""File ▸ Import Problems…: what the imports could not read, where, and why; and, on its second tab, what they
read but did not understand, by tool and version (sessionscope.insight.drift: a format that moved)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.jobs.workers import run_task
from sessionscope.safety.untrusted import printable


class ProblemsDialog(QDialog):
    """The last import's report, then every file whose kept scan state holds problems (read on a worker)."""

    def __init__(self, store, recent: list[dict], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import problems")
        self.setObjectName("problems-dialog")
        self.resize(900, 480)
        self.summary = QLabel("Reading the problems the store keeps…")
        self.list = QTreeWidget()
        self.list.setHeaderLabels(["File", "Line", "Problem"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a path's file name stays in sight
        # the problem chosen, whole (path, line and all its text), selectable to copy
        self.whole = QPlainTextEdit(readOnly=True)
        self.whole.setObjectName("problem-whole")
        self.whole.setPlaceholderText("Choose a problem to read it whole")
        self.list.currentItemChanged.connect(self._chosen)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.list)
        split.addWidget(self.whole)
        split.setSizes([320, 120])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        problems = QWidget()
        page = QVBoxLayout(problems)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.summary)
        page.addWidget(split, 1)
        self.drift_summary = QLabel("Reading what was not understood…")
        self.drift = QTreeWidget()
        self.drift.setObjectName("drift")
        self.drift.setHeaderLabels(["Tool", "Version", "Met", "In", "Not understood", "Example"])
        self.drift.setRootIsDecorated(False)
        self.drift.setUniformRowHeights(True)
        formats = QWidget()
        page = QVBoxLayout(formats)
        page.setContentsMargins(0, 0, 0, 0)
        page.addWidget(self.drift_summary)
        page.addWidget(self.drift, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(problems, "Problems")
        self.tabs.addTab(formats, "Formats Not Understood")
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(buttons)
        self.recent = recent
        self._add(recent)
        from sessionscope.sources.scan import file_problems
        run_task(lambda: file_problems(store), self._kept, lambda exc: self.summary.setText(f"Could not read: {exc}"),
                 owner=self)
        from sessionscope.insight.drift import drift
        run_task(lambda: drift(store), self._drift,
                 lambda exc: self.drift_summary.setText(f"Could not read: {exc}"), owner=self)

    def _drift(self, rows) -> None:
        for r in rows:
            where = f"session {r.example}" if r.kept == "line" else r.example
            item = QTreeWidgetItem([r.label, printable(r.version) or "?", str(r.lines), str(r.sessions),
                                    printable(r.shape), printable(where)])
            item.setToolTip(4, printable(r.shape))
            item.setToolTip(5, printable(where))
            for col in (2, 3):
                item.setTextAlignment(col, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.drift.addTopLevelItem(item)
        for col in range(5):
            self.drift.resizeColumnToContents(col)
        # what was not understood is what is read here: it keeps its width, up to half the list (whole in its tooltip)
        self.drift.setColumnWidth(4, min(self.drift.columnWidth(4), max(300, self.drift.viewport().width() // 2)))
        self.drift_summary.setText(
            f"{len(rows)} shape{'' if len(rows) == 1 else 's'} a reader met and did not understand (a tool's format "
            "newer or older than this Sessionscope knows). Lines are kept whole and shown folded in the timeline; "
            "everything around them was read." if rows else "Everything read was understood.")
        self.drift_summary.setWordWrap(True)

    def _add(self, problems: list[dict]) -> None:
        for p in problems:
            line = "" if p.get("line") is None else str(p["line"])
            item = QTreeWidgetItem([str(p.get("path", "")), line, str(p.get("problem", ""))])
            item.setToolTip(2, str(p.get("problem", "")))
            item.setToolTip(0, str(p.get("path", "")))
            item.setData(0, Qt.ItemDataRole.UserRole, p)
            self.list.addTopLevelItem(item)
        if self.list.currentItem() is None and self.list.topLevelItemCount():
            self.list.setCurrentItem(self.list.topLevelItem(0))

    def _chosen(self, item, _before=None) -> None:
        p = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if not p:
            self.whole.clear()
            return
        where = str(p.get("path", "")) + (f", line {p['line']}" if p.get("line") is not None else "")
        # (a path or a problem quoting a transcript's text is untrusted: its control characters shown)
        self.whole.setPlainText(f"{printable(where)}\n\n{printable(str(p.get('problem', '')), keep_newlines=True)}")

    def _kept(self, files: list[dict]) -> None:
        seen = {(p.get("path"), p.get("line"), p.get("problem")) for p in self.recent}
        kept = [{"path": f["path"], **p} for f in files for p in f["problems"]]
        self._add([p for p in kept if (p.get("path"), p.get("line"), p.get("problem")) not in seen])
        n = self.list.topLevelItemCount()
        self.summary.setText(f"{n} problem{'' if n == 1 else 's'}: lines that could not be read are counted and "
                             "skipped; everything around them was imported." if n else "No problems: every file "
                             "was read whole.")
        for col in range(2):
            self.list.resizeColumnToContents(col)
        # a long path gives way (elided in its middle, whole below) so the problem keeps room beside it
        self.list.setColumnWidth(0, min(self.list.columnWidth(0), max(240, self.list.viewport().width() * 2 // 5)))
