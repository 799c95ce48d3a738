"""Sessions that live behind an API (a source with `workspaces`, Anthropic's managed agents today) in the
window: the background pull of every workspace, the composer under the timeline (a message to the agent,
an interrupt: a source that `takes_messages`), and the workspaces in Settings. Nothing here names a tool.

The pull runs on a worker every 30 s, every 3 s while the session shown is running (what it does shows
as it happens); what it writes reaches the views through the store watcher, as any other writer's."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from sessionscope import ops, sources
from sessionscope.gui.jobs.workers import ACTOR, new_token, report_progress, run_task
from sessionscope.sources.running import Quiet

SLOW_MS, FAST_MS = 30_000, 3_000


def _pull_all(store) -> list[dict]:
    """Pull every workspace of every source that has them; the problems of all of them."""
    return [p for src in sources.with_workspaces() for p in src.workspaces.pull_all(store)]


class _Following(Quiet):
    """The listener of a session followed as its API streams it: the reply's pieces go to the UI thread."""

    def __init__(self, token: int):
        super().__init__()
        self.token = token

    def said(self, text: str) -> None:
        report_progress(self.token, 0, 0, text)


class ManagedSync(QObject):
    """Pulls the workspaces in the background; says a failure once in the status bar, not every tick. The session
    shown, while it runs at a source that `streams`, is followed as its API streams it (on a lane of its own: each
    event pulls it at once, the reply's pieces go to `sig_said`) instead of pulled every FAST_MS."""

    sig_problem = Signal(str)
    sig_said = Signal(str, str)  # (session id, a piece of the agent's reply as it streams)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.store = None
        self.busy = False
        self.last_problem = ""
        self.following: tuple[str, _Following] | None = None  # the session followed, and its listener
        self.timer = QTimer(self, interval=SLOW_MS)
        self.timer.timeout.connect(self.pull)

    def watch(self, store) -> None:
        """Pull every SLOW_MS; the first pull is the window's start-up chore (MainWindow._after_first_list: it
        loads every tool's reader, and at 1.5 s it took a worker as the user clicked the first session)."""
        self.store = store
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self._unfollow()

    def follow(self, session) -> None:
        """Follow the session shown while it runs elsewhere (its source's live_statuses): by its stream where the
        source `streams`, else by pulling often."""
        src = sources.of(session.source_kind) if session is not None else None
        live = src is not None and session.status in src.live_statuses
        if live and src is not None and src.streams and self.store is not None:
            self._follow(src, session.id)
        elif self.following is not None and (session is None or self.following[0] != session.id or not live):
            self._unfollow()
        interval = FAST_MS if live and self.following is None else SLOW_MS
        if self.timer.interval() != interval:
            self.timer.setInterval(interval)

    def _follow(self, src, sid: str) -> None:
        if self.following is not None and self.following[0] == sid:
            return
        self._unfollow()
        listener = _Following(new_token())
        self.following = (sid, listener)
        store = self.store

        def ended(_added) -> None:
            if self.following is not None and self.following[1] is listener:
                self.following = None
                self.timer.setInterval(FAST_MS)  # (still shown and running: the next pull says; a new stream follows)

        def failed(exc) -> None:
            ended(0)
            if str(exc) != self.last_problem:
                self.sig_problem.emit(f"⚠ Following the session: {exc}")
            self.last_problem = str(exc)
        run_task(lambda: src.follow(store, sid, listener), ended, failed, owner=self, token=listener.token,
                 on_progress=lambda _code, _total, text: self.sig_said.emit(sid, text), lane=f"follow:{sid}")

    def _unfollow(self) -> None:
        if self.following is not None:
            self.following[1].stop.set()  # (it ends within a quiet spell of its stream)
            self.following = None

    def pull(self) -> None:
        if self.store is None or self.busy:
            return
        self.busy = True
        store = self.store

        def done(problems) -> None:
            self.busy = False
            text = "; ".join(p["problem"] for p in problems[:2])
            if text and text != self.last_problem:
                self.sig_problem.emit(f"⚠ Pulling sessions: {text}")
            self.last_problem = text

        def failed(exc) -> None:
            self.busy = False
            if str(exc) != self.last_problem:
                self.sig_problem.emit(f"⚠ Pulling sessions: {exc}")
            self.last_problem = str(exc)
        run_task(lambda: _pull_all(store), done, failed, owner=self)


class Composer(QWidget):
    """A message to a managed agent (Ctrl+Return sends), and Interrupt while it runs. What is typed stays
    until the API has taken it."""

    sig_changes = Signal(object)
    sig_message = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("composer")
        self.store = self.session = None
        self.edit = QPlainTextEdit(placeholderText="Message the agent (Ctrl+Return sends)")
        self.edit.setMaximumHeight(64)
        self.send_button = QPushButton("Send")
        self.send_button.setToolTip("Send this message to the agent (Ctrl+Return)")
        self.interrupt_button = QPushButton("Interrupt")
        self.interrupt_button.setToolTip("Stop what the agent is doing; it waits for your next message")
        self.state = QLabel("")
        self.state.setObjectName("composer-state")
        self.said = QLabel("")  # the agent's reply as it streams, before the API records it
        self.said.setObjectName("composer-said")
        self.said.setWordWrap(True)
        self.said.hide()
        self.send_button.clicked.connect(self.send)
        self.interrupt_button.clicked.connect(self.interrupt)
        self.edit.textChanged.connect(self._refresh)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.interrupt_button)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addLayout(buttons)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 2, 0, 0)
        lay.addWidget(self.state)
        lay.addWidget(self.said)
        lay.addLayout(row)
        self.sending = False
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)  # the timeline takes the rest
        self.hide()

    def show_session(self, store, session) -> None:
        """Shown for a session whose source takes messages only."""
        self.store, self.session = store, session
        takes = session is not None and sources.of(session.source_kind).takes_messages
        self.setVisible(takes)
        if takes:
            self._refresh()

    def show_said(self, session_id: str, piece: str) -> None:
        """A piece of the reply streamed for `session_id`: the last words shown while the session shown runs."""
        if self.session is None or self.session.id != session_id:
            return
        from sessionscope.safety.untrusted import printable
        text = (self.said.property("text_so_far") or "") + piece
        self.said.setProperty("text_so_far", text[-2000:])
        self.said.setText("writing: …" + printable(" ".join(text.split()))[-240:])
        self.said.show()

    def _refresh(self) -> None:
        s = self.session
        if s is not None and s.status not in sources.of(s.source_kind).live_statuses:
            self.said.hide()
            self.said.setProperty("text_so_far", "")
        if s is None or not sources.of(s.source_kind).takes_messages:
            return
        gone = sources.of(s.source_kind).only_a_copy(s)
        can_send = ops.refusal(s, "send") is None and not gone and not self.sending
        self.edit.setEnabled(can_send)
        self.send_button.setEnabled(can_send and bool(self.edit.toPlainText().strip()))
        self.interrupt_button.setEnabled(ops.refusal(s, "interrupt") is None and not gone and not self.sending)
        src = sources.of(s.source_kind)
        why = (gone if gone else
               "it takes no more messages" if ops.refusal(s, "send") else
               "sending…" if self.sending else "the agent is working" if s.status in src.live_statuses else
               "waiting for you")
        home = src.remote_home
        self.state.setText(f"<b>{s.status}</b>{f' at {home}' if home else ''} · {why}")

    def send(self) -> None:
        text = self.edit.toPlainText()
        if not text.strip() or not self.send_button.isEnabled():
            return
        self._run("send", lambda store, sid: ops.send(store, sid, text, actor=ACTOR), clear=True)

    def interrupt(self) -> None:
        self._run("interrupt", lambda store, sid: ops.interrupt(store, sid, actor=ACTOR))

    def _run(self, what: str, work, clear: bool = False) -> None:
        store, sid = self.store, self.session.id
        self.sending = True
        self._refresh()

        def done(changes) -> None:
            self.sending = False
            if clear:
                self.edit.clear()
            self.session = changes.session
            self._refresh()
            self.sig_changes.emit(changes)
            self.sig_message.emit("Sent to the agent" if what == "send" else "Interrupted the agent")

        def failed(exc) -> None:
            self.sending = False
            self._refresh()
            QMessageBox.warning(self, "Could not send" if what == "send" else "Could not interrupt",
                                f"{exc}\n\nYour message is kept in the box." if clear else str(exc))
        run_task(lambda: work(store, sid), done, failed, owner=self)


class WorkspacesBox(QGroupBox):
    """Settings: a source's workspaces pulled, where each one's key comes from; add one, set its key,
    stop pulling it (its sessions stay)."""

    sig_added = Signal()

    def __init__(self, store, workspaces, parent=None):
        super().__init__(workspaces.title, parent)
        self.store, self.workspaces = store, workspaces
        self.list = QListWidget()
        self.list.setMaximumHeight(70)
        add = QPushButton("Add Workspace…")
        add.clicked.connect(self._add)
        self.key_button = QPushButton("Set Key…")
        self.key_button.clicked.connect(self._set_key)
        self.stop_button = QPushButton("Stop Pulling")
        self.stop_button.setToolTip("No more pulls from this workspace; its sessions stay in the store")
        self.stop_button.clicked.connect(self._stop)
        buttons = QHBoxLayout()
        for b in (add, self.key_button, self.stop_button):
            buttons.addWidget(b)
        buttons.addStretch()
        lay = QVBoxLayout(self)
        lay.addWidget(self.list)
        lay.addLayout(buttons)
        self.list.currentRowChanged.connect(lambda _r: self._buttons())
        self.reload()

    def _buttons(self) -> None:
        on = self.list.currentItem() is not None
        self.key_button.setEnabled(on)
        self.stop_button.setEnabled(on)

    def reload(self) -> None:
        if self.store is None:
            self._buttons()
            return
        store, workspaces = self.store, self.workspaces
        run_task(lambda: workspaces.listed(store), self._show,
                 lambda exc: self.list.addItem(f"(could not read: {exc})"), owner=self)

    def _show(self, rows) -> None:
        self.list.clear()
        for loc, origin in rows:
            item = QListWidgetItem(f"{loc}   · key from {origin}")
            item.setData(Qt.ItemDataRole.UserRole, loc)
            self.list.addItem(item)
        self._buttons()

    def _add(self) -> None:
        dialog = WorkspaceDialog(self, title=self.workspaces.add_title, hints=self.workspaces)
        if not dialog.exec():
            return
        store, workspaces, (base, workspace, key) = self.store, self.workspaces, dialog.values()
        run_task(lambda: ops.add_workspace(store, workspaces, base, workspace, key, actor=ACTOR),
                 lambda _loc: (self.reload(), self.sig_added.emit()),
                 lambda exc: QMessageBox.warning(self, "Add workspace", str(exc)), owner=self)

    def _set_key(self) -> None:
        loc = self.list.currentItem().data(Qt.ItemDataRole.UserRole)
        dialog = WorkspaceDialog(self, location=loc, hints=self.workspaces)
        if not dialog.exec():
            return
        key, workspaces = dialog.values()[2], self.workspaces
        run_task(lambda: workspaces.set_key(loc, key), lambda _: self.reload(),
                 lambda exc: QMessageBox.warning(self, "API key", str(exc)), owner=self)

    def _stop(self) -> None:
        loc = self.list.currentItem().data(Qt.ItemDataRole.UserRole)
        store, workspaces = self.store, self.workspaces
        run_task(lambda: ops.stop_workspace(store, workspaces, loc, actor=ACTOR), lambda _: self.reload(),
                 lambda exc: QMessageBox.warning(self, "Workspace", str(exc)), owner=self)


class WorkspaceDialog(QDialog):
    """The API's address, the workspace or project (optional) and the key; with `location`, only the key. The
    placeholders are the source's own (`hints`: its Workspaces)."""

    def __init__(self, parent=None, location: str | None = None, title: str = "Add a workspace", hints=None):
        super().__init__(parent)
        self.setWindowTitle("API key" if location else title)
        self.base = QLineEdit(placeholderText=getattr(hints, "base_hint", "https://…"))
        self.workspace = QLineEdit(placeholderText=getattr(hints, "scope_hint", ""))
        self.key = QLineEdit(placeholderText=getattr(hints, "key_hint", "(kept in the system keyring)"))
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        form = QFormLayout(self)
        if location:
            form.addRow(QLabel(f"The key for {location} (blank forgets the one kept):"))
        else:
            form.addRow("API address", self.base)
            form.addRow(getattr(hints, "scope_label", "Workspace"), self.workspace)
        form.addRow("API key", self.key)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> tuple[str, str, str]:
        return self.base.text().strip(), self.workspace.text().strip(), self.key.text().strip()
