"""Compare two forks or branches from where they part: the two conversations side by side from the
fork point, what each changed (files, facts), what each cost, how long it ran and how it ended."""

from __future__ import annotations

import html

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.reader.timeline_model import ANSI, clock, command_output, dark_palette, readable
from sessionscope.gui.sessions.session_model import money, tokens_text
from sessionscope.gui.views.facts_diff import diff_html
from sessionscope.history import cards as said
from sessionscope.history.richtext import code_html, markdown_html

SHOWN = 400  # events of each side drawn (the reader and the timeline have the rest)


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h" if seconds < 48 * 3600 else f"{seconds / 86400:.1f} days"


def conversation_html(side, point) -> str:
    """A side's events from the fork point, as the reader would say them (tool calls as one line)."""
    dark = dark_palette()
    out = []
    if point is not None:
        out.append(f"<p style='color:#888'>⎇ parted after: {html.escape(' '.join(point.text.split())[:200])}</p><hr>")
    for e in side.events[:SHOWN]:
        if e.kind == "message" and e.text.strip():
            who = "You" if e.role == "user" else (f"agent {e.agent_id}" if e.sidechain else "Assistant")
            colour = "#1f5fbf" if e.role == "user" else "#2e7d32"
            output = command_output(e.text)
            body = code_html(ANSI.sub("", output)[:6000], "text", dark) if output is not None else \
                markdown_html(readable(ANSI.sub("", e.text))[:6000], dark)
            out.append(f"<p style='margin:8px 0 0 0'><b style='color:{colour}'>{html.escape(who)}</b> "
                       f"<span style='color:#888'>{clock(e.ts)}</span></p>" + body)
        elif e.kind == "tool_call":
            line = "; ".join(said.summary(c) for c in said.calls(e.payload)) or e.text.split("\n")[0][:120]
            out.append(f"<p style='margin:2px 0; color:#9a5518'>▸ {html.escape(line)}</p>")
        elif e.kind in ("compaction", "compaction_summary"):
            out.append("<p style='color:#2e7d32'>── compacted ──</p>")
    if len(side.events) > SHOWN:
        out.append(f"<p style='color:#888'>… {len(side.events) - SHOWN:,} more events (open the session to read "
                   "them all)</p>")
    if not side.events:
        out.append("<p style='color:#888'>Nothing happened on this side after the fork point.</p>")
    return "".join(out)


class CompareView(QDialog):
    sig_open = Signal(str, str)  # session id, head to show

    def __init__(self, store, a: tuple[str, str | None], b: tuple[str, str | None], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Compare")
        self.setObjectName("compare-view")
        self.store, self.a, self.b, self.result = store, a, b, None
        self._gen = Generation()
        self.header = QLabel("Comparing…")
        self.header.setWordWrap(True)
        self.summary = QTableWidget(7, 2)
        self.summary.setVerticalHeaderLabels(["Session", "After the fork", "Tokens", "Cost", "Ran for",
                                              "Files changed", "Outcome (last reply)"])
        self.summary.setHorizontalHeaderLabels(["A", "B"])
        self.summary.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.summary.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.summary.setWordWrap(True)
        self.left, self.right = QTextBrowser(), QTextBrowser()
        for view in (self.left, self.right):
            view.setOpenExternalLinks(True)
        self.together = QCheckBox("Scroll together")
        self.together.setChecked(True)
        self.left.verticalScrollBar().valueChanged.connect(lambda v: self._follow(self.right, v))
        self.right.verticalScrollBar().valueChanged.connect(lambda v: self._follow(self.left, v))
        talk = QWidget()
        talk_lay = QVBoxLayout(talk)
        talk_lay.setContentsMargins(0, 0, 0, 0)
        panes = QSplitter(Qt.Orientation.Horizontal)
        panes.addWidget(self.left)
        panes.addWidget(self.right)
        panes.setChildrenCollapsible(False)
        talk_lay.addWidget(panes, 1)
        talk_lay.addWidget(self.together)
        self.facts = QTextBrowser()
        self.files = QTableWidget(0, 3)
        self.files.setHorizontalHeaderLabels(["File", "A", "B"])
        self.files.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.files.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tabs = QTabWidget()
        self.tabs.addTab(talk, "Conversations")
        self.tabs.addTab(self.facts, "Facts")
        self.tabs.addTab(self.files, "Files")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.summary)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        for label, name, pick in (("Open A", "open-a", lambda: self.a), ("Open B", "open-b", lambda: self.b)):
            button = QPushButton(label, objectName=name)
            button.clicked.connect(lambda _=False, pick=pick: self._open(pick()))
            row.addWidget(button)
        swap = QPushButton("Swap A and B")
        swap.clicked.connect(self.swap)
        row.addWidget(swap)
        row.addStretch(1)
        row.addWidget(buttons)
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(split, 1)
        lay.addLayout(row)
        self.resize(1200, 800)
        geometry = QSettings().value("compare/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        self.refresh()

    def done(self, result: int) -> None:
        QSettings().setValue("compare/geometry", self.saveGeometry())
        super().done(result)

    def _follow(self, other: QTextBrowser, value: int) -> None:
        if self.together.isChecked():
            bar = other.verticalScrollBar()
            bar.blockSignals(True)
            bar.setValue(value)
            bar.blockSignals(False)

    def _open(self, which: tuple[str, str | None]) -> None:
        session_id, head = which
        self.sig_open.emit(session_id, head or "")

    def swap(self) -> None:
        self.a, self.b = self.b, self.a
        self.refresh()

    def refresh(self) -> None:
        from sessionscope.history.compare import compare
        token, store, a, b = self._gen.next(), self.store, self.a, self.b
        self.header.setText("Comparing…")
        run_task(lambda: compare(store, a, b), lambda c: self._shown(token, c),
                 lambda exc: self.header.setText(f"Could not compare: {type(exc).__name__}: {exc}"), owner=self)

    def _shown(self, token: int, c) -> None:
        if not self._gen.current(token):
            return
        self.result = c
        point = c.fork_point
        self.header.setText(
            f"<b>A</b> {html.escape(c.a.title)} &nbsp;·&nbsp; <b>B</b> {html.escape(c.b.title)}<br>"
            + (f"They share {c.shared:,} events and part after #{point.seq} ({html.escape(point.kind)}, "
               f"{clock(point.ts)}): {html.escape(' '.join(point.text.split())[:120])}" if point is not None
               else "They share no event: each is shown whole."))
        for col, side in enumerate((c.a, c.b)):
            cells = [side.title, f"{len(side.events):,} events, {side.prompts} prompt{'' if side.prompts == 1 else 's'}",
                     f"ctx {tokens_text(side.tokens_in)} · out {tokens_text(side.tokens_out)}",
                     money(side.cost), duration(side.seconds), "\n".join(side.files) or "none",
                     " ".join(side.outcome.split())[:400] or "(no reply)"]
            for r, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(side.outcome[:3000] if r == 6 else text)
                self.summary.setItem(r, col, item)
        self.summary.resizeRowsToContents()
        self.left.setHtml(conversation_html(c.a, point))
        self.right.setHtml(conversation_html(c.b, point))
        self.facts.setHtml(diff_html(c.facts).replace("at both points", "at both heads"))
        files = sorted(set(c.a.files) | set(c.b.files))
        self.files.setRowCount(len(files))
        for r, path in enumerate(files):
            for col, text in enumerate((path, "✓" if path in c.a.files else "", "✓" if path in c.b.files else "")):
                self.files.setItem(r, col, QTableWidgetItem(text))
        self.tabs.setTabText(2, f"Files ({len(files)})")
        self.tabs.setTabText(1, "Facts" + ("" if c.facts.is_empty() else
                                           f" ({len(c.facts.added) + len(c.facts.removed) + len(c.facts.changed)})"))
