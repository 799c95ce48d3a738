"""Running a session's agent on from the window (#63): under the timeline of a session whose source `runs_here`.

A prompt, the model and the permission mode for this run, and whether to run a fork (the session stays as it is);
Run (Ctrl+Return) and Stop. While it runs, the reply is shown as the model writes it and each call and its result
in a line; the transcript itself reaches the timeline as the tool writes it (the watcher reads it), and is imported
whole when the run ends. A tool call the agent asks about is shown with what it would do (the command; a diff for an
edit) and waits for Allow once, Allow for this session, or Deny with a reason the agent reads; meanwhile the session
needs you (Needs You, a notification: ops.run keeps its live signal).

Threading: the run is `ops.run` on a lane of its own (`workers.run_task(lane=…)`); what it tells (`RunBridge`) comes
to the UI thread through the workers' progress signal, and a permission ask waits on the run's thread for the
answer given here.
"""

from __future__ import annotations

import difflib
import html
import json
import threading
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sessionscope import ops, sources
from sessionscope.gui.jobs.workers import ACTOR, new_token, report_progress, run_task
from sessionscope.gui.window import design
from sessionscope.safety.untrusted import printable
from sessionscope.sources.running import Answer, Quiet, RunRequest, ToolAsk

MODES = (("default", "Ask before acting"), ("acceptEdits", "Accept edits"), ("plan", "Plan only"),
         ("bypassPermissions", "Never ask"))
OUTPUT_MAX = 200_000  # characters of a run's output kept on screen (the transcript keeps all)
_SAID, _CALL, _RESULT, _ERROR, _SESSION, _ASK = range(6)
_KINDS = {"call": _CALL, "result": _RESULT, "error": _ERROR, "session": _SESSION}


def model_box(models: tuple[str, ...]) -> QComboBox:
    """The models a run offers, the tool's own setting first; editable, for a model the list does not name."""
    box = QComboBox()
    box.setEditable(True)
    offer(box, models)
    return box


def offer(box: QComboBox, models: tuple[str, ...]) -> None:
    """`box` offering `models` (after the tool's own setting), what was chosen kept where it is still offered."""
    chosen = box.currentData()
    box.clear()
    for m in ("", *models):
        box.addItem(m or "the tool's own model", m)
    box.setCurrentIndex(max(0, box.findData(chosen)))


def chosen_model(box: QComboBox) -> str | None:
    """The model chosen in `box`: an offered one, or one typed; None for the tool's own setting."""
    index, typed = box.currentIndex(), box.currentText().strip()
    return (box.itemData(index) if index >= 0 and typed == box.itemText(index) else typed) or None


def step_line(code: int, text: str) -> str | None:
    """A run's call, result or error as a line of its output (None for what is not one of those)."""
    mark = {_CALL: "→", _RESULT: "←", _ERROR: "✗"}.get(code)
    return None if mark is None else f"\n{mark} {printable(' '.join(text.split()))[:300]}\n"


class RunBridge(Quiet):
    """The listener a window's run is given: each thing the run tells goes to the UI thread as the task's progress
    (`code`, text); an ask waits here, on the run's thread, until the window answers it or the run is stopped."""

    ASK_POLL_S = 0.2

    def __init__(self):
        super().__init__()
        self.token = 0  # the task's (set once it is started)
        self.pending: ToolAsk | None = None
        self._answer: Answer | None = None
        self._answered = threading.Event()

    def said(self, text: str) -> None:
        report_progress(self.token, _SAID, 0, text)

    def step(self, kind: str, text: str) -> None:
        report_progress(self.token, _KINDS.get(kind, _RESULT), 0, text)

    def ask(self, request: ToolAsk) -> Answer:
        self._answered.clear()
        self.pending, self._answer = request, None
        report_progress(self.token, _ASK, 0, request.tool)
        while not self._answered.wait(self.ASK_POLL_S):
            if self.stopped():
                self.pending = None
                return Answer(False, message="The user stopped the run.")
        self.pending = None
        return self._answer or Answer(False)

    def answer(self, answer: Answer) -> None:
        """From the UI thread: the answer to the pending ask."""
        self._answer = answer
        self._answered.set()


def ask_html(request: ToolAsk) -> str:
    """What a tool call would do, as the user decides on it: the command for a shell, a diff for an edit, the file
    and its start for a write, else its input as JSON. The model wrote it: escaped, never run as markup."""
    from sessionscope.gui.reader.highlight import code_html
    given = request.input
    if isinstance(given.get("command"), str):
        return code_html(given["command"], "bash")
    if isinstance(given.get("old_string"), str) and isinstance(given.get("new_string"), str):
        path = str(given.get("file_path", ""))
        diff = difflib.unified_diff(given["old_string"].splitlines(), given["new_string"].splitlines(),
                                    path, path, lineterm="")
        return f"<b>{html.escape(path)}</b>" + code_html("\n".join(diff)[:20_000], "diff")
    if isinstance(given.get("content"), str) and isinstance(given.get("file_path"), str):
        return f"<b>{html.escape(given['file_path'])}</b> (written whole)" + code_html(given["content"][:5_000], "text")
    return code_html(json.dumps(given, indent=2, ensure_ascii=False, default=str)[:20_000], "json")


class AskBox(QFrame):
    """A tool call the agent asks to make: what it would do, and Allow once / Allow for this session / Deny (with a
    reason the agent reads)."""

    sig_answered = Signal(object)  # an Answer
    VIEW_MAX = 180

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setProperty("card", True)
        self.title = design.style(QLabel(""), "body", bold=True)
        self.view = QTextBrowser()
        self.view.setOpenLinks(False)
        self.reason = QLineEdit(placeholderText="Why not (the agent reads it; optional)")
        self.allow_once = QPushButton("Allow Once")
        self.allow_always = QPushButton("Allow for This Session")
        self.deny = QPushButton("Deny")
        self.allow_once.setDefault(True)
        self.allow_once.clicked.connect(lambda: self.sig_answered.emit(Answer(True)))
        self.allow_always.clicked.connect(lambda: self.sig_answered.emit(Answer(True, always=True)))
        self.deny.clicked.connect(lambda: self.sig_answered.emit(
            Answer(False, message=self.reason.text().strip()[:2000] or "The user refused this call.")))
        self.reason.returnPressed.connect(self.deny.click)
        buttons = QHBoxLayout()
        buttons.addWidget(self.reason, 1)
        for b in (self.deny, self.allow_always, self.allow_once):
            buttons.addWidget(b)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(*(design.SPACE[1],) * 4)
        lay.addWidget(self.title)
        lay.addWidget(self.view)
        lay.addLayout(buttons)
        self.hide()

    def show_ask(self, request: ToolAsk) -> None:
        self.title.setText(f"{printable(request.tool)[:80]} wants to run — allow it?")
        self.view.setHtml(ask_html(request))
        # as tall as what it shows (a command is a line), at most VIEW_MAX: the timeline above keeps its room
        self.view.document().setTextWidth(max(200, self.view.viewport().width()))
        self.view.setFixedHeight(min(self.VIEW_MAX, int(self.view.document().size().height()) + 8))
        self.reason.clear()
        self.show()
        self.allow_once.setFocus()


class RunPanel(QWidget):
    """Run the session's agent on from here (see the module). One run at a time; it goes on while another session is
    shown, and Stop stops it wherever it is."""

    sig_changes = Signal(object)  # the run's Changes, once it ended
    sig_message = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("run-panel")
        self.store = self.session = None
        self.running: str | None = None  # the session a run goes on for
        self.bridge: RunBridge | None = None
        self.last_changes = None
        self.prompt = QPlainTextEdit(placeholderText="Continue with… (Ctrl+Return runs the agent on this session)")
        self.prompt.setMaximumHeight(56)
        self.model_box = model_box(())
        self.model_box.setToolTip("The model for this run")
        self.mode_box = QComboBox()
        for value, words in MODES:
            self.mode_box.addItem(words, value)
        self.mode_box.setToolTip("When the agent asks before it acts (its permission mode for this run)")
        self.fork_box = QCheckBox("As a fork")
        self.fork_box.setToolTip("Run a fork of this session (its tool writes it) and leave this session as it is")
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Run the agent on this session with this prompt (Ctrl+Return)")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Interrupt the run; what was written stays in the transcript")
        self.state = design.style(QLabel(""), "caption", muted=True)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setMaximumHeight(120)
        self.output.setMaximumBlockCount(5_000)
        self.output.hide()
        self.ask_box = AskBox()
        self.ask_box.sig_answered.connect(self._answered)
        self.run_button.clicked.connect(self.run)
        self.stop_button.clicked.connect(self.stop)
        self.prompt.textChanged.connect(self._refresh)
        QShortcut(QKeySequence("Ctrl+Return"), self.prompt, self.run, context=Qt.ShortcutContext.WidgetShortcut)

        options = QHBoxLayout()
        options.addWidget(QLabel("Model"))
        options.addWidget(self.model_box)
        options.addWidget(QLabel("Permissions"))
        options.addWidget(self.mode_box)
        options.addWidget(self.fork_box)
        options.addStretch(1)
        options.addWidget(self.stop_button)
        options.addWidget(self.run_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(design.SPACE[0], design.SPACE[0], design.SPACE[0], 0)
        lay.setSpacing(design.SPACE[0])
        lay.addWidget(self.state)
        lay.addWidget(self.ask_box)
        lay.addWidget(self.output)
        lay.addWidget(self.prompt)
        lay.addLayout(options)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)  # the timeline takes the rest
        self.hide()

    # -- what is shown -------------------------------------------------------------------------------------------

    def show_session(self, store, session) -> None:
        """Shown for a session whose source runs here (or while a run goes on)."""
        self.store, self.session = store, session
        src = sources.of(session.source_kind) if session is not None else None
        runs = src is not None and src.runs_here and src.run_refusal(session) is None  # (this session's own rule)
        if runs and src is not None and self.running is None:
            offer(self.model_box, src.run_models)
        self.setVisible(runs or self.running is not None)
        self._refresh()

    def _refresh(self) -> None:
        s, going = self.session, self.running is not None
        why = ops.refusal(s, "run") if s is not None else "no session is chosen"
        self.run_button.setEnabled(not going and why is None and bool(self.prompt.toPlainText().strip()))
        self.stop_button.setEnabled(going)
        for w in (self.prompt, self.model_box, self.mode_box, self.fork_box):
            w.setEnabled(not going and why is None)
        self.prompt.setVisible(not going)  # while it runs, the room is the reply's
        if going:
            other = s is None or s.id != self.running
            self.state.setText(f"running{' on another session' if other else ''}… (Stop interrupts it)")
        elif why is not None:
            self.state.setText(f"cannot run: {why}")
        elif s is not None and not self.state.text().startswith(("ran", "stopped", "failed")):
            self.state.setText(f"{sources.of(s.source_kind).label}: write what to do next, then Run")

    # -- a run ---------------------------------------------------------------------------------------------------

    def request(self) -> RunRequest:
        return RunRequest(self.prompt.toPlainText().strip(), fork=self.fork_box.isChecked(),
                          model=chosen_model(self.model_box), permission_mode=self.mode_box.currentData())

    def run(self) -> None:
        if not self.run_button.isEnabled() or self.store is None or self.session is None:
            return
        request, store, sid = self.request(), self.store, self.session.id
        self.bridge = bridge = RunBridge()
        bridge.token = new_token()  # (before the task starts: what it tells at once is known as its own)
        self.running = sid
        self.output.clear()
        self.output.show()
        self.state.setText("starting…")
        self._refresh()
        run_task(lambda: ops.run(store, sid, request, bridge, actor=ACTOR), self._ended, self._failed, owner=self,
                 on_progress=self._told, token=bridge.token, lane="run")

    def stop(self) -> None:
        if self.bridge is not None:
            self.bridge.stop.set()
            self.ask_box.hide()
            self.state.setText("stopping…")

    def _told(self, code: int, _total: int, text: str) -> None:
        if code == _SAID:
            self._write(text)
        elif code == _ASK and self.bridge is not None and self.bridge.pending is not None:
            asked = self.bridge.pending
            self.ask_box.show_ask(asked)
            self.state.setText(f"waiting for you: {printable(asked.tool)[:60]} asks to run")
        elif code == _SESSION:
            self.state.setText(f"running… (session {text[:8]})")
        elif (line := step_line(code, text)) is not None:
            self._write(line)

    def _write(self, text: str) -> None:
        if len(self.output.toPlainText()) > OUTPUT_MAX:
            return
        cursor = self.output.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        cursor.insertText(text)
        self.output.setTextCursor(cursor)
        self.output.ensureCursorVisible()

    def _answered(self, answer: Answer) -> None:
        self.ask_box.hide()
        if self.bridge is not None:
            self.bridge.answer(answer)
            self.state.setText("running…" if answer.allow else "running… (the call was refused)")

    def _ended(self, changes) -> None:
        self.running, self.bridge, self.last_changes = None, None, changes
        self.ask_box.hide()
        self.prompt.clear()
        self.state.setText(f"ran: {changes.note}")
        self._refresh()
        self.sig_changes.emit(changes)

    def _failed(self, exc: BaseException) -> None:
        self.running, self.bridge = None, None
        self.ask_box.hide()
        self.state.setText(f"failed: {printable(str(exc))[:300]}")
        self._refresh()
        self.sig_message.emit(f"The run failed: {printable(str(exc))[:200]}")

    def detail(self) -> dict[str, Any]:
        """What the last run recorded (its Changes' detail), for a look after it."""
        return dict(self.last_changes.detail) if self.last_changes is not None else {}
