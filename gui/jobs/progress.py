"""Long jobs with progress and cancel: importing, and watching sources for new lines.

The import itself is sessionscope.sources.importing.import_paths on a worker; its
progress callback emits a queued signal, so the UI thread only updates a bar.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QProcess, QTimer, Signal

from sessionscope.gui.jobs.workers import ACTOR, report_error, run_cancellable, run_task
from sessionscope.store import gcpause

WATCH_MS = 2000
SERVER_TICKS = 30  # a LangGraph or Agents SDK database on a server is looked at every 30th tick (a minute)
RESCAN_TICKS = 15  # with the system telling what is written under the places: a whole rescan every 15th tick (30 s)
EVENT_MS = 20  # a write the system told of is looked at this soon (the burst of a line's writes taken as one)
HOT_S = 3600.0  # a transcript written this recently is watched by the system (inotify): its lines show at once
HOT_FILES = 200
CATCH_UP_SETTLE_S = 5.0  # a thread an agent is writing now is shown by its own process
LIVE_TICK_MS = 250  # how often the window looks at what a user's import has committed (gui/window/import_commands.py)


class ImportJob(QObject):
    """One import at a time; `sig_finished(report)` or `sig_failed(exc)` at the end."""

    sig_progress = Signal(int, int, str)  # bytes done, bytes total, file
    sig_finished = Signal(object)
    sig_failed = Signal(object)
    sig_tick = Signal()  # while a user's import runs: what it committed so far may be listed

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cancel_event: threading.Event | None = None
        self.quiet = False
        # the store's change mark (Store.change_mark) as the import's process found it, and last saw it
        self.start_mark: tuple | None = None
        self.mark: tuple | None = None
        # the child commits in batches, a big file in many: a tick lists them without waiting for its end
        self.ticker = QTimer(self, interval=LIVE_TICK_MS)
        self.ticker.timeout.connect(self.sig_tick)
        self.ticker.timeout.connect(gcpause.refreeze)  # (what the window made meanwhile: out of the collector's sight)

    @property
    def running(self) -> bool:
        return self.cancel_event is not None

    def start(self, store, paths, quiet: bool = False) -> bool:
        """A quiet rescan runs on a worker thread; a user's import in a child process.

        Parsing holds Python's GIL, so a large import on a thread stalls the UI; a
        child process writes the same WAL store while the window keeps reading it.
        """
        if self.running:
            return False
        self.cancel_event, self.quiet = threading.Event(), quiet
        gcpause.freeze()  # the window's big views are not scanned again and again while it runs
        if not quiet:
            self._start_process(store, paths)
            return True
        from sessionscope import ops

        self.cancel_event = run_cancellable(
            lambda progress, cancel: ops.import_paths(store, paths, progress=progress, cancel=cancel, warm=False,
                                                      watcher=True, actor=ACTOR),
            self.sig_progress.emit, self._done, self._failed, self, lane="watch")  # (a line just written: its own thread)
        return True

    def _start_process(self, store, paths) -> None:
        from sessionscope.gui.jobs.child import start
        self._report, self.start_mark, self.mark = None, None, None
        self.process = start(self, "sessionscope.gui.jobs.import_worker", store.url, *map(str, paths),
                             on_message=self._message, on_finished=self._process_finished)
        self.ticker.start()

    def _message(self, msg: dict) -> None:
        if "mark" in msg:
            self.mark = tuple(msg["mark"])
            self.start_mark = self.start_mark or self.mark
        if "progress" in msg:
            self.sig_progress.emit(*msg["progress"])
        elif "report" in msg:
            self._report = msg["report"]

    def _process_finished(self, code: int) -> None:
        cancelled = self.cancel_event is not None and self.cancel_event.is_set()
        if self._report is not None or cancelled:
            from sessionscope.sources.scan import ImportReport

            data = dict(self._report or {})
            data["sessions"] = set(data.get("sessions", []))
            data["cancelled"] = cancelled or data.get("cancelled", False)
            self._done(ImportReport(**data))
        else:
            err = bytes(self.process.readAllStandardError()).decode(errors="replace").strip().splitlines()
            self._failed(RuntimeError(err[-1] if err else f"the import stopped (exit code {code})"))

    def cancel(self) -> None:
        self.ticker.stop()
        if self.cancel_event is not None:
            self.cancel_event.set()
            process = getattr(self, "process", None)
            if process is not None and process.state() != QProcess.ProcessState.NotRunning:
                process.terminate()  # safe: each batch committed with its file offset

    def _done(self, report) -> None:
        self.ticker.stop()
        self.cancel_event = None
        gcpause.thaw()
        self.sig_finished.emit(report)

    def _failed(self, exc) -> None:
        self.ticker.stop()
        self.cancel_event = None
        gcpause.thaw()
        self.sig_failed.emit(exc)


def _hot_files(store) -> list[str]:
    """The transcripts written within the last hour (the sessions an agent works in now), newest first."""
    import time

    import sqlalchemy as sa

    from sessionscope.store.schema import SOURCE_FILE
    with store.reader() as conn:
        return list(conn.execute(sa.select(SOURCE_FILE.c.path).where(SOURCE_FILE.c.last_ts >= time.time() - HOT_S)
                                 .order_by(SOURCE_FILE.c.last_ts.desc()).limit(HOT_FILES)).scalars())


class _Told:
    """watchdog's handler: a file written, made, moved or removed under a place, said to the watcher (from the
    observer's thread: the signal is queued to the UI thread)."""

    def __init__(self, watcher: SourceWatcher):
        self.watcher = watcher

    def dispatch(self, event) -> None:
        if not event.is_directory and event.event_type in ("modified", "created", "moved", "deleted", "closed"):
            self.watcher.sig_written.emit()


class SourceWatcher(QObject):
    """What the agents write, brought in as they write it, and nothing done when nothing is written.

    The places the store reads are watched by the system (watchdog: inotify, FSEvents, ReadDirectoryChangesW):
    a file written under one starts a quiet rescan within EVENT_MS. Every two seconds a look at whether anyone else
    wrote to the store (an agent through an SDK adapter, the command line, another window: two index lookups), and
    `sig_store_changed(Changes)` then, so the views refresh; a whole rescan of the places (stat-only when idle) only
    every RESCAN_TICKS ticks, for what the system cannot tell (a network drive). Without watchdog every tick
    rescans, as before. The transcripts written within the last hour are also watched by Qt (a line appended to
    one starts a look at once)."""

    sig_store_changed = Signal(object)
    sig_written = Signal()  # the system told of a write under a place (from watchdog's thread)

    def __init__(self, job: ImportJob, parent=None):
        super().__init__(parent)
        self.job = job
        self.store = None
        self.mark = None
        self.asking = False
        self.timer = QTimer(self)
        self.timer.setInterval(WATCH_MS)
        self.timer.timeout.connect(self.tick)
        self.hot = QFileSystemWatcher(self)
        self.hot.fileChanged.connect(self._written)
        self.again = False  # a hot file was written while a look or an import ran: look again after it
        self.ticks = 0
        self.job.sig_finished.connect(lambda _report: self._look_again())
        self.observer: Any = None  # watchdog's BaseObserver, while the places are watched
        self.watched: dict[str, object] = {}  # place → its watch
        self.written = True  # something was written under a place since the last rescan (or nobody can tell)
        self._places_lock = threading.Lock()  # the look's worker watches the places; stop() ends the watching
        self._watching = False
        self.soon = QTimer(self, singleShot=True)
        self.soon.setInterval(EVENT_MS)
        self.soon.timeout.connect(self._look_now)
        self.sig_written.connect(self._told)

    def watch(self, store) -> None:
        self.store, self.mark = store, None
        self._watching = True
        self.timer.start()

        def marked(mark) -> None:  # where "anyone else wrote" counts from
            if self.store is store and self.mark is None:
                self.mark = mark
        run_task(store.change_mark, marked, report_error, owner=self)

    def stop(self) -> None:
        self.timer.stop()
        self.soon.stop()
        if self.hot.files():
            self.hot.removePaths(self.hot.files())
        with self._places_lock:
            self._watching = False
            if self.observer is not None:
                self.observer.stop()
                self.observer.join(2)
                self.observer, self.watched = None, {}
        self.written = True

    def _told(self) -> None:
        self.written = True
        if self.timer.isActive() and not self.soon.isActive():
            self.soon.start()

    def _look_now(self) -> None:
        if self.job.running or self.asking:
            self.again = True  # looked at when the import or the look under way ends
        else:
            self.tick()

    def _watch_places(self, roots: list) -> None:
        """The system tells of writes under each folder the store reads (a new place is watched, a gone one not).
        On the look's worker: a recursive watch adds one per folder under the place (thousands in a big home)."""
        with self._places_lock:
            if self._watching:  # (stopped meanwhile: no watching starts again)
                self._watch_places_now(roots)

    def _watch_places_now(self, roots: list) -> None:
        folders = {str(r) for r in roots if isinstance(r, Path) and r.is_dir()}
        if self.observer is None:
            try:
                from watchdog.observers import Observer
            except ImportError:  # (every tick rescans)
                return
            self.observer = Observer()
            self.observer.daemon = True
            self.observer.start()
        for gone in set(self.watched) - folders:
            self.observer.unschedule(self.watched.pop(gone))
        for folder in sorted(folders - set(self.watched)):
            try:
                self.watched[folder] = self.observer.schedule(_Told(self), folder, recursive=True)
            except OSError:  # out of inotify watches, or gone: the whole rescan finds it
                continue

    def _written(self, _path: str) -> None:
        if self.timer.isActive():
            self.again = True
            self.tick()

    def _look_again(self) -> None:
        if self.again and self.timer.isActive():
            self.tick()

    def _watch_hot(self, files: list[str]) -> None:
        now, want = set(self.hot.files()), set(files)
        if now - want:
            self.hot.removePaths(sorted(now - want))
        if want - now:
            self.hot.addPaths(sorted(want - now))

    def tick(self) -> None:
        if self.store is None or self.job.running or self.asking:
            return

        store, before = self.store, self.mark
        self.asking = True  # the places come from the store: read on a worker, never on the UI thread
        self.again = False  # (this look covers what was written before it; a write told meanwhile sets it again)

        self.ticks += 1
        servers_too = self.ticks % SERVER_TICKS == 1  # (a database on a server: asked once a minute, not every tick)
        # the places are rescanned when the system told of a write under them, when it cannot tell (no watchdog),
        # and every RESCAN_TICKS ticks whatever it said; else only the store is looked at
        rescan = self.written or self.observer is None or servers_too or self.ticks % RESCAN_TICKS == 1
        self.written = False

        def look():
            from sessionscope.sources.importing import catch_up
            from sessionscope.sources.server_databases import is_address
            roots: list = []
            if rescan:
                places = store.source_locations()
                roots = sorted({Path(r) for r in places if not is_address(r) and Path(r).exists()})
                if servers_too:
                    roots += sorted(r for r in places if is_address(r))
                catch_up(store, settle=CATCH_UP_SETTLE_S)  # what an agent writing here left unshown (killed mid-save)
                self._watch_places(roots)
            mark = store.change_mark()
            return (roots, mark, store.changes_since(before) if before is not None and mark != before else None,
                    _hot_files(store) if rescan else None)

        def found(result) -> None:
            self.asking = False
            roots, mark, changes, hot = result
            if self.store is not store:
                return
            if hot is not None:
                self._watch_hot(hot)
            self.mark = mark
            # the rescan first: what the views do with the changes runs on this thread, and a line just written
            # waited behind them (a list of 20,000 sessions reloaded: 0.3 s more before it was searchable)
            if roots and self.timer.isActive() and not self.job.running:
                self.job.start(store, roots, quiet=True)
            if changes is not None:
                self.sig_store_changed.emit(changes)
            if self.again and not self.job.running and self.timer.isActive():
                self.soon.start()  # written while this look ran: looked at now, not at the next tick (2 s)

        def failed(exc) -> None:
            self.asking = False
            self.written = self.written or rescan  # (rescanned at the next tick)
            report_error(exc)
        run_task(look, found, failed, owner=self, lane="watch")
