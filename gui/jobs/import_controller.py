"""The window's imports: the user's (a child process, with a progress bar and Cancel in the status bar),
the watcher's quiet rescans every two seconds, the background pull of the workspaces of sessions behind an
API, and the first run's import of the tools' default places. What they change comes out as Changes
(`sig_changes`), as any action's does; the window fans it out."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QProgressBar, QPushButton, QStatusBar, QWidget

from sessionscope.gui.jobs.progress import ImportJob, SourceWatcher
from sessionscope.gui.jobs.workers import run_task, yield_to_urgent
from sessionscope.gui.views.managed_panel import ManagedSync


class ImportController(QObject):
    sig_changes = Signal(object)  # sessionscope.history.read_models.Changes: what an import or another writer changed
    sig_tick = Signal()  # while a user's import runs: what it committed so far may be listed
    sig_finished = Signal(object)  # a user's import ended: its report
    sig_message = Signal(str, int)  # a line for the status bar, for so many ms
    sig_first_run = Signal()  # a first run's import is on its way: sessions are coming
    sig_busy = Signal(bool)  # a user's import (or the first run's) started, or ended

    def __init__(self, status_bar: QStatusBar, parent: QWidget):
        super().__init__(parent)
        self.window = parent
        self.problems: list[dict] = []  # the last import's problems (File ▸ Import Problems…)
        self.store = None  # the store of the last user's import
        self.job = ImportJob(self)
        self.job.sig_progress.connect(self._progress)
        self.job.sig_tick.connect(self.sig_tick)
        self.job.sig_finished.connect(self._finished)
        self.job.sig_failed.connect(self._failed)
        self.watcher = SourceWatcher(self.job, self)
        self.watcher.sig_store_changed.connect(self.sig_changes)
        self.managed_sync = ManagedSync(self)
        self.managed_sync.sig_problem.connect(lambda m: self.sig_message.emit(m, 20000))
        self.progress = QProgressBar(maximumWidth=220)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(lambda: self.job.cancel())
        for w in (self.progress, self.cancel_button):
            w.hide()
            status_bar.addPermanentWidget(w)

    @property
    def busy(self) -> bool:
        """A user's import is on its way (the list is not "No sessions yet" meanwhile)."""
        return self.job.running and not self.job.quiet

    def watch(self, store) -> None:
        self.watcher.watch(store)
        self.managed_sync.watch(store)

    def start(self, store, paths) -> bool:
        """Import `paths` with the progress bar; False (and said) while another import runs."""
        if store is None:
            return False
        if not self.job.start(store, paths):
            self.sig_message.emit("An import is already running", 5000)
            return False
        self.store = store
        self.sig_busy.emit(True)
        return True

    def first_run(self, store) -> None:
        """The tools' default places, if this store never imported from them: imported with the progress bar,
        then watched."""
        run_task(lambda: _first_run_roots(store), lambda roots: self.import_first(store, roots), owner=self)

    def import_first(self, store, roots) -> None:
        if roots:
            self.sig_message.emit("Importing your agents' sessions; browse while it runs", 10000)
            if self.job.start(store, roots):
                self.store = store
                self.sig_busy.emit(True)
                self.sig_first_run.emit()

    def pull(self) -> None:
        self.managed_sync.pull()

    def stop(self) -> None:
        self.watcher.stop()
        self.managed_sync.stop()
        self.job.cancel()

    def _progress(self, done: int, total: int, _path: str) -> None:
        if self.job.quiet:
            return
        self.progress.show()
        self.cancel_button.show()
        self.progress.setRange(0, max(1, total >> 10))
        self.progress.setValue(done >> 10)

    def _done(self) -> None:
        self.progress.hide()
        self.cancel_button.hide()
        if not self.job.quiet:
            self.sig_busy.emit(False)

    def _failed(self, exc) -> None:
        self._done()
        QMessageBox.warning(self.window, "Import failed", f"{exc}\n\nWhat was imported before the failure is kept.")

    def _finished(self, report) -> None:
        self._done()
        if report.problems:
            self.problems = list(report.problems)
        if report.events_added or not self.job.quiet:
            self.sig_changes.emit(report.changes())
        if not self.job.quiet:
            text = (f"Imported {report.events_added:,} events from {report.files_read} files"
                    f"{' (cancelled)' if report.cancelled else ''}")
            if report.bad_lines or report.problems:
                text += (f"; {report.bad_lines} bad lines skipped, {len(report.problems)} problems "
                         "(File ▸ Import Problems…)")
            self.sig_message.emit(text, 15000)
            self.sig_finished.emit(report)
            self._catch_up_words(report)

    def _catch_up_words(self, report) -> None:
        """The words `*part*` and typo searches ask, brought up to what the import added (when the store keeps them),
        on a worker that gives way to what the user waits for: the first such search after an import read them all."""
        store = self.store
        if store is not None and report.events_added:
            from sessionscope import ops
            run_task(lambda: ops.catch_up_words(store, pause=yield_to_urgent), lambda _n: None, lambda _exc: None,
                     owner=self)


def _first_run_roots(store) -> list:
    """The default places, if this store has never imported from any of them."""
    from sessionscope.sources.importing import default_roots

    known = set(store.source_locations(unwatched=True))  # (a default place the user stopped watching stays so)
    roots = default_roots()
    return [] if any(str(r) in known for r in roots) else roots
