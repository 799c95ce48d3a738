"""Long jobs with progress and cancel: importing, and watching sources for new lines.

The import itself is model.sources.claude_code.import_paths on a worker; its
progress callback emits a queued signal, so the UI thread only updates a bar.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QTimer, Signal

from .workers import run_task

WATCH_MS = 2000


class ImportJob(QObject):
    """One import at a time; `sig_finished(report)` or `sig_failed(exc)` at the end."""

    sig_progress = Signal(int, int, str)  # bytes done, bytes total, file
    sig_finished = Signal(object)
    sig_failed = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cancel_event: threading.Event | None = None
        self.quiet = False

    @property
    def running(self) -> bool:
        return self.cancel_event is not None

    def start(self, store, paths, quiet: bool = False) -> bool:
        if self.running:
            return False
        from model.sources.claude_code import import_paths

        self.cancel_event, self.quiet = threading.Event(), quiet
        cancel = self.cancel_event

        def work():
            return import_paths(store, paths, progress=lambda d, t, f: self.sig_progress.emit(d, t, f), cancel=cancel)
        run_task(work, self._done, self._failed, owner=self)
        return True

    def cancel(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()

    def _done(self, report) -> None:
        self.cancel_event = None
        self.sig_finished.emit(report)

    def _failed(self, exc) -> None:
        self.cancel_event = None
        self.sig_failed.emit(exc)


class SourceWatcher(QObject):
    """Every two seconds, a quiet rescan of the known Claude Code roots (stat-only when idle)."""

    def __init__(self, job: ImportJob, parent=None):
        super().__init__(parent)
        self.job = job
        self.store = None
        self.timer = QTimer(self)
        self.timer.setInterval(WATCH_MS)
        self.timer.timeout.connect(self.tick)

    def watch(self, store) -> None:
        self.store = store
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def tick(self) -> None:
        if self.store is None or self.job.running:
            return
        from pathlib import Path

        roots = [Path(r) for r in self.store.source_locations("claude_code") if Path(r).is_dir()]
        if roots:
            self.job.start(self.store, roots, quiet=True)
