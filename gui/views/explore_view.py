"""Fork and Explore (#63): "fork, explore both paths, compare, then decide" without leaving the window.

From an event of a session whose source runs here: two or more forks at that event, each with its own prompt and
model, run at once side by side (each a `ops.run` fork on a lane of its own, its reply streamed into its column, its
permission asks answered in its column). When they have stopped, Compare opens on two of them (cost, tokens, time,
files changed, last reply: the Compare view), and Keep This One archives the others (each archive audited, undone
with Unarchive).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from sessionscope import ops, sources
from sessionscope.gui.jobs.workers import ACTOR, new_token, run_task
from sessionscope.gui.reader.run_panel import AskBox, RunBridge, chosen_model, model_box, step_line
from sessionscope.gui.window import design
from sessionscope.safety.untrusted import printable
from sessionscope.sources.running import Answer, RunRequest

PATHS_MAX = 4
_SAID, _SESSION, _ASK = 0, 4, 5  # (RunBridge's codes)


class PathColumn(QWidget):
    """One path: its prompt and model, then its run (the reply as it streams, its asks), then Keep This One."""

    sig_changes = Signal(object)
    sig_keep = Signal(object)  # this column

    def __init__(self, number: int, models: tuple[str, ...] = (), parent=None):
        super().__init__(parent)
        self.number = number
        self.title = design.style(QLabel(f"Path {number}"), "heading", bold=True)
        self.prompt = QPlainTextEdit(placeholderText=f"What path {number} tries (its prompt)")
        self.prompt.setMaximumHeight(90)
        self.model_box = model_box(models)
        self.state = design.style(QLabel("ready"), "caption", muted=True)
        self.state.setWordWrap(True)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.ask_box = AskBox()
        self.ask_box.sig_answered.connect(self._answered)
        self.keep_button = QPushButton("Keep This One")
        self.keep_button.setToolTip("Keep this path's fork and archive the other paths' (each undone with Unarchive)")
        self.keep_button.setEnabled(False)
        self.keep_button.clicked.connect(lambda: self.sig_keep.emit(self))
        self.bridge: RunBridge | None = None
        self.changes = None  # the run's, once it ended
        self.error = ""
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addWidget(self.prompt)
        lay.addWidget(self.model_box)
        lay.addWidget(self.state)
        lay.addWidget(self.ask_box)
        lay.addWidget(self.output, 1)
        lay.addWidget(self.keep_button)

    @property
    def running(self) -> bool:
        return self.bridge is not None

    @property
    def fork(self) -> str | None:
        return self.changes.session.id if self.changes is not None and self.changes.session is not None else None

    def model(self) -> str | None:
        return chosen_model(self.model_box)

    def start(self, store, session_id: str, at: str, mode: str | None) -> None:
        request = RunRequest(self.prompt.toPlainText().strip(), fork=True, at=at, model=self.model(),
                             permission_mode=mode)
        self.bridge = bridge = RunBridge()
        bridge.token = new_token()
        self.prompt.setEnabled(False)
        self.model_box.setEnabled(False)
        self.state.setText("running…")
        run_task(lambda: ops.run(store, session_id, request, bridge, actor=ACTOR), self._ended, self._failed,
                 owner=self, on_progress=self._told, token=bridge.token, lane=f"explore-{self.number}")

    def stop(self) -> None:
        if self.bridge is not None:
            self.bridge.stop.set()
            self.ask_box.hide()

    def _told(self, code: int, _total: int, text: str) -> None:
        if code == _SAID:
            self.output.moveCursor(self.output.textCursor().MoveOperation.End)
            self.output.insertPlainText(text)
        elif code == _ASK and self.bridge is not None and self.bridge.pending is not None:
            self.ask_box.show_ask(self.bridge.pending)
            self.state.setText(f"waiting for you: {printable(self.bridge.pending.tool)[:60]} asks to run")
        elif code == _SESSION:
            self.state.setText(f"running… (fork {text[:8]})")
        elif (line := step_line(code, text)) is not None:
            self.output.moveCursor(self.output.textCursor().MoveOperation.End)
            self.output.insertPlainText(line)

    def _answered(self, answer: Answer) -> None:
        self.ask_box.hide()
        if self.bridge is not None:
            self.bridge.answer(answer)
            self.state.setText("running…")

    def _ended(self, changes) -> None:
        self.bridge, self.changes = None, changes
        self.ask_box.hide()
        d = changes.detail
        cost = f" · ${d['cost_usd']:.2f}" if d.get("cost_usd") else ""
        self.state.setText(f"{d['ended']}: {d['turns']} turn{'s' if d['turns'] != 1 else ''}, {d['seconds']} s{cost}"
                           f" · fork {(self.fork or '')[:8]}")
        self.keep_button.setEnabled(self.fork is not None)
        self.sig_changes.emit(changes)

    def _failed(self, exc: BaseException) -> None:
        self.bridge, self.error = None, printable(str(exc))[:300]
        self.ask_box.hide()
        self.state.setText(f"failed: {self.error}")
        self.sig_changes.emit(None)


class ExploreView(QDialog):
    """Fork and Explore from one event: the paths side by side (see the module)."""

    sig_changes = Signal(object)  # each run's Changes, and each archive's
    sig_compare = Signal(object, object)  # ((session, head), (session, head)): Compare opens on them
    sig_open = Signal(str)  # a session to show

    def __init__(self, store, session, at: str, paths: int = 2, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Fork and Explore — {printable(session.title or session.id)[:80]}")
        self.setObjectName("explore-view")
        self.store, self.session, self.at = store, session, at
        self.header = QLabel(f"Each path is a fork of this session at event {at[:8]}, run on with its own prompt; "
                             "this session stays as it is.")
        self.header.setWordWrap(True)
        self.mode_box = QComboBox()
        from sessionscope.gui.reader.run_panel import MODES
        for value, words in MODES:
            self.mode_box.addItem(words, value)
        self.add_button = QPushButton("Add a Path")
        self.run_button = QPushButton("Run All")
        self.run_button.setDefault(True)
        self.stop_button = QPushButton("Stop All")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Compare the first two paths that ran: cost, tokens, time, files, last reply")
        self.columns: list[PathColumn] = []
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setChildrenCollapsible(False)
        for _ in range(max(2, min(paths, PATHS_MAX))):
            self.add_path()
        self.add_button.clicked.connect(self.add_path)
        self.run_button.clicked.connect(self.run_all)
        self.stop_button.clicked.connect(self.stop_all)
        self.compare_button.clicked.connect(self.compare)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Permissions"))
        bar.addWidget(self.mode_box)
        bar.addStretch(1)
        for b in (self.add_button, self.stop_button, self.compare_button, self.run_button):
            bar.addWidget(b)
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.split, 1)
        lay.addLayout(bar)
        self.resize(1200, 720)
        self._refresh()

    def add_path(self) -> None:
        if len(self.columns) >= PATHS_MAX:
            return
        column = PathColumn(len(self.columns) + 1, sources.of(self.session.source_kind).run_models)
        column.prompt.textChanged.connect(self._refresh)
        column.sig_changes.connect(self._ran)
        column.sig_keep.connect(self.keep)
        self.columns.append(column)
        self.split.addWidget(column)
        self._refresh()

    def _refresh(self) -> None:
        started = any(c.running or c.changes is not None or c.error for c in self.columns)
        going = any(c.running for c in self.columns)
        ready = all(c.prompt.toPlainText().strip() for c in self.columns)
        self.run_button.setEnabled(ready and not started)
        self.add_button.setEnabled(not started and len(self.columns) < PATHS_MAX)
        self.stop_button.setEnabled(going)
        self.mode_box.setEnabled(not started)
        self.compare_button.setEnabled(not going and len([c for c in self.columns if c.fork]) >= 2)

    def run_all(self) -> None:
        if not self.run_button.isEnabled():
            return
        for column in self.columns:
            column.start(self.store, self.session.id, self.at, self.mode_box.currentData())
        self._refresh()

    def stop_all(self) -> None:
        for column in self.columns:
            column.stop()

    def _ran(self, changes) -> None:
        if changes is not None:
            self.sig_changes.emit(changes)
        self._refresh()
        if not any(c.running for c in self.columns) and len([c for c in self.columns if c.fork]) >= 2:
            self.compare()  # every path stopped: the comparison is what the user came for

    def compare(self) -> None:
        ran = [c.fork for c in self.columns if c.fork]
        if len(ran) >= 2:
            self.sig_compare.emit((ran[0], None), (ran[1], None))

    def keep(self, kept: PathColumn) -> None:
        """Keep `kept`'s fork; archive the other paths' forks, each through ops.archive (audited, undone with
        Unarchive), on a worker."""
        others = [c.fork for c in self.columns if c is not kept and c.fork]
        store = self.store

        def archive() -> list:
            return [ops.archive(store, sid, actor=ACTOR) for sid in others]

        def done(changes: list) -> None:
            for ch in changes:
                self.sig_changes.emit(ch)
            for c in self.columns:
                c.keep_button.setEnabled(False)
            kept.state.setText(kept.state.text() + " · kept (the others archived)")
            if kept.fork:
                self.sig_open.emit(kept.fork)
        run_task(archive, done, lambda exc: kept.state.setText(f"could not archive the others: {exc}"), owner=self)
