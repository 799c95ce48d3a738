"""`sessionscope --startup-times`: how long the window takes to open, as the user waits for it.

From the process's own start (the kernel's record of it where there is one, so Python's start and every import
count; else from the moment this module was imported) to the window's first paint, and to the first paint after
the list of sessions came in; printed on stderr, then the app exits."""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

_IMPORTED = time.time()


def process_started() -> tuple[float, bool]:
    """(when this process started as a time.time(), whether that is the kernel's record of it: to 10 ms)."""
    try:
        import os
        with open("/proc/self/stat", "rb") as fh:
            ticks = int(fh.read().rsplit(b")", 1)[1].split()[19])  # field 22, starttime, in clock ticks after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
        return time.time() - age, True
    except (OSError, ValueError, IndexError, AttributeError):
        return _IMPORTED, False


def resident_mb() -> float | None:
    """The process's resident memory now, in MB (Linux; None elsewhere)."""
    try:
        with open("/proc/self/status", "rb") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith(b"VmRSS:")) / 1024
    except (OSError, StopIteration, ValueError, IndexError):
        return None


class FirstPaint(QObject):
    """`then()` once the window has painted for the first time (after that paint is done), or after 2 s if it is
    never painted (started minimised)."""

    def __init__(self, window, then):
        super().__init__(window)
        self.then = then
        window.installEventFilter(self)
        QTimer.singleShot(2000, self._go)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Paint and self.then is not None:
            QTimer.singleShot(0, self._go)
        return False

    def _go(self) -> None:
        then, self.then = self.then, None
        if then is not None:
            self.parent().removeEventFilter(self)
            then()


class StartupTimes(QObject):
    """Notes the window's first paint; once the session list has been painted with its rows, says both times."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.started, self.exact = process_started()
        self.first_paint: float | None = None
        self.loaded: int | None = None
        self.listed: float | None = None
        FirstPaint(window, lambda: setattr(self, "first_paint", time.time()))
        window.sessions.model.sig_loaded.connect(self._loaded)
        QTimer.singleShot(60_000, self._report)  # a store that never loads: said, not waited for forever

    def _loaded(self, rows: int) -> None:
        if self.loaded is not None:
            return
        self.loaded = rows
        self.window.sessions.view.viewport().repaint()  # the rows painted now, not at the next pass
        self.listed = time.time()
        QTimer.singleShot(0, self._report)

    def _report(self) -> None:
        def ms(t):
            return f"{(t - self.started) * 1000:.0f} ms" if t is not None else "not reached in 60 s"
        since = "the command" if self.exact else "the window's module imported (the process's start unknown here)"
        rss = resident_mb()
        print(f"sessionscope: from {since}: first paint {ms(self.first_paint)}, "
              f"{self.loaded if self.loaded is not None else 0:,} sessions listed {ms(self.listed)}"
              + (f", {rss:.0f} MB resident" if rss else ""), file=sys.stderr)
        QApplication.instance().exit(0 if self.listed is not None else 1)
