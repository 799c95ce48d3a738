"""Starting the desktop application: identity, the window first, the store after its first paint."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from sessionscope.gui.jobs.workers import run_task
from sessionscope.gui.window.main_window import MainWindow
from sessionscope.gui.window.startup import FirstPaint
from sessionscope.gui.window.stores import _open_store, open_demo_store
from sessionscope.resources import APP_ID, APP_NAME, ORGANIZATION, resource_path


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    # Workers walk branches and trees in Python while the UI thread paints. PySide lets go of the
    # interpreter around Qt calls, and each time takes it back only when the worker yields it, after
    # the switch interval (5 ms by default): a paint of a few hundred Qt calls then waited 230 ms behind
    # a tree layout. At 0.5 ms the same paint waits ≤ 10 ms (benchmark: reader scroll stall).
    sys.setswitchinterval(0.0001)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationDisplayName(APP_NAME)
    app.setDesktopFileName(APP_ID)
    icon = resource_path("icons/sessionscope.svg")
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))
    return app


def _quit_on_ctrl_c(app: QApplication, window: MainWindow) -> None:
    """Ctrl+C in the terminal that started the window closes it as its Quit would (no traceback): Python
    sees a signal only when it runs, so a timer lets it run now and then."""
    import signal

    signal.signal(signal.SIGINT, lambda *_: window.close() or app.quit())
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(250)


def main(args) -> int:
    app = make_app()
    from sessionscope.gui.window import theme
    theme.apply(getattr(args, "theme", None) or theme.saved())
    window = MainWindow()
    if getattr(args, "startup_times", False):
        from sessionscope.gui.window.startup import StartupTimes
        StartupTimes(window)
    window.show()
    _quit_on_ctrl_c(app, window)
    screenshot = getattr(args, "screenshot", None)
    if screenshot:
        window.resize(1440, 860)
        window.branch.sig_ready.connect(lambda: _shoot_when_shown(window, screenshot))
        # an empty store shows its empty page instead of a timeline: once the store itself is open (the list's
        # first page, read before it opens, is not the window the user gets: its sidebar has no counts yet)
        window.sessions.model.sig_loaded.connect(
            lambda rows: rows == 0 and window.store is not None
            and QTimer.singleShot(600, lambda: _shoot(window, screenshot)))
        QTimer.singleShot(60_000, lambda: (print("sessionscope: the window did not load in 60 s", file=sys.stderr),
                                           app.exit(1)))

    def failed(exc):
        QMessageBox.critical(window, "Cannot open the store", f"{exc}")
        if screenshot:
            app.exit(1)
    demo = getattr(args, "demo", False)
    loader = open_demo_store if demo else (lambda: _open_store(args.store))
    paths = list(getattr(args, "open_paths", None) or [])

    window.own_store_url = getattr(args, "store", None)  # where File ▸ Back to Your Store goes
    from sessionscope.gui.window import open_requests
    open_requests.serve(window)  # `sessionscope open ID` and sessionscope:// links reach this window
    window.pending_open = getattr(args, "open_target", None)  # `sessionscope open ID` started it

    def opened(store) -> None:
        window.set_store(store, first_run=not demo and not paths, demo=demo)
        if paths:  # `sessionscope FILE…`: import them (an export or a transcript) and show what came in
            window.import_commands.open_paths(paths)
        if window.pending_open is not None:
            found, window.pending_open = window.pending_open, None
            open_requests.show(window, found)
    # the store opens once the window has painted: its import (SQLAlchemy, ~0.6 s) on a worker would hold the
    # interpreter while the window waits to paint
    def load() -> None:
        if not demo:
            window.sessions.model.first_page(args.store)  # listed while the store opens
        run_task(loader, opened, failed, owner=window)
    FirstPaint(window, load)
    code = app.exec()
    # a worker still reading (Home's figures, a list page) is let finish before the interpreter is torn down under
    # it: finalised mid-query, SQLAlchemy spun at a full core for ever
    from sessionscope.gui.jobs.workers import wait_for_workers
    wait_for_workers(2000)
    return code


def _shoot_when_shown(window: MainWindow, path: str, waited_ms: int = 0) -> None:
    """Once the timeline's current row has its event (a big session's page arrives after the timeline
    is ready: shot at once, it showed placeholder rows), or after 10 s; then a moment for the rest."""
    row = window.branch.timeline.currentIndex().row()
    if row >= 0 and window.branch.timeline_model.event_at(row) is None and waited_ms < 10_000:
        QTimer.singleShot(100, lambda: _shoot_when_shown(window, path, waited_ms + 100))
        return
    QTimer.singleShot(600, lambda: _shoot(window, path))


def _shoot(window: MainWindow, path: str) -> None:
    pixmap = window.grab()  # first: stopping the import below would put "(cancelled)" in the status bar
    window.imports.watcher.stop()
    window.imports.job.cancel()  # an import still running stops here (safe: batches are committed)
    if getattr(window.imports.job, "process", None) is not None:
        window.imports.job.process.waitForFinished(5000)
    ok = pixmap.save(os.fspath(path))
    print(f"sessionscope: {'wrote' if ok else 'could not write'} {path}", file=sys.stderr)
    QApplication.instance().exit(0 if ok else 1)
