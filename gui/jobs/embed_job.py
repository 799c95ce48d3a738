"""Search by meaning's background job in the window: after an import (and when it is turned on), the texts
without a vector are embedded in a child process (gui/jobs/embed_worker.py), with its progress and a Stop button in
the status bar. Stopped, it keeps what it did; it starts again after the next import, or from Settings."""

from __future__ import annotations

from PySide6.QtCore import QObject, QProcess, QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar

from sessionscope.gui.jobs.workers import run_task

QUIET_DELAY_MS = 30_000  # after a watcher's rescan: agents write all day, one job a while is enough


def needed(store) -> bool:
    """Whether the job has work: search by meaning on, and a text without its vector or the model not fetched yet.
    Off (as it starts), no more than its setting is read: whether the model is here is asked of huggingface_hub,
    whose import alone was ~45 MB of the window's memory (#61)."""
    from sessionscope.recall import semantic
    if not semantic.config_of(store).enabled:
        return False
    status = semantic.status(store)
    return status.pending > 0 or not status.fetched


class EmbedJob(QObject):
    sig_message = Signal(str, int)  # a line for the status bar, for so many ms
    sig_done = Signal(int)  # texts embedded (search by meaning finds them now)

    def __init__(self, status_bar: QStatusBar, parent=None):
        super().__init__(parent)
        self.store = None
        self.process: QProcess | None = None
        self.stopped = False  # the user pressed Stop: no automatic start until they ask again
        self.label = QLabel("")
        self.label.setObjectName("embed-label")
        self.bar = QProgressBar(maximumWidth=160)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop embedding; what is done is kept, and the rest is done after the next import")
        self.stop_button.clicked.connect(self.stop)
        for w in (self.label, self.bar, self.stop_button):
            w.hide()
            status_bar.addPermanentWidget(w)
        self.later = QTimer(self, singleShot=True, interval=QUIET_DELAY_MS)
        self.later.timeout.connect(lambda: self.maybe_start())

    @property
    def running(self) -> bool:
        return self.process is not None

    def watch(self, store) -> None:
        self.stop()
        self.store, self.stopped = store, False

    def soon(self) -> None:
        """After a quiet rescan: a run in a while (one for many rescans); none once the window closed (a
        rescan's last report can arrive after it)."""
        if self.store is not None and not self.later.isActive():
            self.later.start()

    def maybe_start(self, asked: bool = False) -> None:
        """Start when search by meaning is on and a text waits (read on a worker); `asked`: the user's own
        request (Settings), which also undoes a Stop."""
        if asked:
            self.stopped = False
        store = self.store
        if store is None or self.running or self.stopped:
            return
        run_task(lambda: needed(store), lambda yes: self._start(store) if yes and store is self.store else None,
                 lambda exc: None, owner=self)

    def _start(self, store) -> None:
        if self.running:
            return
        from sessionscope.gui.jobs.child import start
        self._result = None
        self.label.setText("Search by meaning: starting…")
        self.bar.setRange(0, 0)
        for w in (self.label, self.bar, self.stop_button):
            w.show()
        self.process = start(self, "sessionscope.gui.jobs.embed_worker", store.url, on_message=self._message,
                             on_finished=self._finished)

    def _message(self, msg: dict) -> None:
        if "fetch" in msg:
            done, total, name = msg["fetch"]
            self.label.setText(f"Fetching the model ({name}): {done / 1e6:.1f} of {total / 1e6:.1f} MB")
            self.bar.setRange(0, max(1, total >> 10))
            self.bar.setValue(done >> 10)
        elif "progress" in msg:
            done, total = msg["progress"]
            self.label.setText(f"Embedding for search by meaning: {done:,} of {total:,}")
            self.bar.setRange(0, max(1, total))
            self.bar.setValue(done)
        else:
            self._result = msg

    def _finished(self, code: int) -> None:
        result, self.process = self._result or {}, None
        for w in (self.label, self.bar, self.stop_button):
            w.hide()
        if self.stopped:
            self.sig_message.emit("Search by meaning: stopped; what was embedded is kept", 10000)
        elif "done" in result:
            if result["done"]:
                self.sig_message.emit(f"Search by meaning: {result['done']:,} texts embedded", 10000)
            self.sig_done.emit(result["done"])
        else:
            why = result.get("error") or f"the job stopped (exit code {code})"
            self.sig_message.emit(f"⚠ Search by meaning: {why} (Settings ▸ Search by meaning)", 30000)
            self.stopped = True  # not again and again: after the next import the user asks, or Settings

    def close(self) -> None:
        """The window closes: stop, and start nothing after (no store to embed into)."""
        self.stop()
        self.store = None

    def stop(self) -> None:
        self.later.stop()
        if self.process is not None:
            self.stopped = True
            self.process.terminate()  # safe: every batch commits by itself
            if not self.process.waitForFinished(3000):
                self.process.kill()
