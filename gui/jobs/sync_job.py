"""Sync with the team store in the window: Sync Now (and the dialog's Review, a dry run) and, when Settings say so,
a sync every so many minutes in the background. Each runs in a child process (gui/jobs/sync_worker.py), with its
progress and a Stop button in the status bar; what it did is said there (a background sync's trouble too, never in
a box that interrupts), and `sig_finished` hands its report to whoever shows it (the Sync dialog)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QProcess, QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar

from sessionscope.gui.jobs.workers import run_task

STOP_WAIT_MS = 10_000  # for the page being written to commit, after Stop


class SyncJob(QObject):
    sig_message = Signal(str, int)  # a line for the status bar, for so many ms
    sig_finished = Signal(object)  # the report (a dict: SyncReport.as_dict), or {"error": …}
    sig_started = Signal(bool)  # a run started (True: a dry run)

    def __init__(self, status_bar: QStatusBar, parent=None):
        super().__init__(parent)
        self.store = None
        self.process: QProcess | None = None
        self.dry_run = False
        self.label = QLabel("")
        self.label.setObjectName("sync-label")
        self.bar = QProgressBar(maximumWidth=160)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the sync after the page it is writing: what was pushed is kept, and the "
                                    "next sync goes on from there")
        self.stop_button.clicked.connect(self.stop)
        for w in (self.label, self.bar, self.stop_button):
            w.hide()
            status_bar.addPermanentWidget(w)
        self.timer = QTimer(self)
        self.timer.timeout.connect(lambda: self.start(background=True))

    @property
    def running(self) -> bool:
        return self.process is not None

    def watch(self, store, demo: bool = False) -> None:
        """Follow `store`'s sync settings (none for the demo store): the background timer set from them."""
        self.stop()
        self.timer.stop()
        self.store = None if demo else store
        self.reschedule()

    def reschedule(self) -> None:
        """Read the settings again (after the dialog changed them) and set the background timer."""
        store = self.store
        if store is None:
            return
        from sessionscope import sync

        def settings():
            with store.reader() as conn:
                return sync.target(conn), sync.every_minutes(conn)

        def apply(got):
            target, every = got
            self.timer.stop()
            if store is self.store and target and every:
                self.timer.start(every * 60_000)
        run_task(settings, apply, lambda exc: None, owner=self)

    def start(self, dry_run: bool = False, background: bool = False) -> bool:
        """Start a sync (or a dry run's review); False when one runs already or there is no store."""
        if self.running or self.store is None:
            return False
        from sessionscope.gui.jobs.child import start
        self.dry_run, self.background, self._result = dry_run, background, None
        self.label.setText("Reviewing what a sync would push…" if dry_run else "Syncing with the team store…")
        self.bar.setRange(0, 0)
        for w in (self.label, self.bar, self.stop_button):
            w.show()
        self.process = start(self, "sessionscope.gui.jobs.sync_worker", self.store.url, *(["--dry-run"] if dry_run else []),
                             on_message=self._message, on_finished=self._finished)
        self.sig_started.emit(dry_run)
        return True

    def _message(self, msg: dict) -> None:
        if "progress" in msg:
            done, total, title = msg["progress"]
            self.label.setText(f"{'Reviewing' if self.dry_run else 'Syncing'}: {done:,} of {total:,} events · "
                               f"{title[:40]}")
            self.bar.setRange(0, max(1, total))
            self.bar.setValue(done)
        else:
            self._result = msg

    def _finished(self, code: int) -> None:
        result, self.process = self._result or {"error": f"the sync stopped (exit code {code})"}, None
        for w in (self.label, self.bar, self.stop_button):
            w.hide()
        report = result.get("report")
        if report is None:
            self.sig_message.emit(f"⚠ Sync with the team store: {result.get('error')} (File ▸ Sync with Team Store)",
                                  60000)
            self.sig_finished.emit({"error": result.get("error")})
            return
        self.sig_message.emit(summary(report), 15000 if not report["problems"] else 60000)
        self.sig_finished.emit(report)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()  # SIGTERM: the worker ends after the page it writes (each commits by itself)
            if not self.process.waitForFinished(STOP_WAIT_MS):
                self.process.kill()

    def close(self) -> None:
        """The window closes: stop, and start nothing after."""
        self.timer.stop()
        self.stop()
        self.store = None


def summary(report: dict) -> str:
    """One line on what a sync did (or would do)."""
    verb = "would push" if report["dry_run"] else "pushed"
    text = f"Sync: {verb} {len(report['pushed']):,} session(s), {report['events']:,} event(s)"
    if report["redacted"]:
        text += f", {report['redacted']:,} secret(s) redacted"
    if report["waiting"]:
        text += f"; {len(report['waiting']):,} wait for your yes or no"
    if report["problems"]:
        text = "⚠ " + text + f"; {len(report['problems'])} not pushed (File ▸ Sync with Team Store says why)"
    if report["cancelled"]:
        text += "; stopped: the next sync goes on from there"
    return text
