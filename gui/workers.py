"""Running model functions off the UI thread.

`run_task(fn, on_done, on_error)` runs `fn()` on the global thread pool and calls
back on the UI thread (Picard's run_task). Workers never touch widgets and hand
back only frozen read-models. A caller that may be overtaken (typing in a filter,
clicking through sessions) keeps a `Generation` and drops stale answers.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

ACTOR = "app"  # what the audit log names as the front end of the actions taken in the window (sessionscope.ops)


class _Relay(QObject):
    sig_done = Signal(object)
    sig_error = Signal(object)


class _Task(QRunnable):
    def __init__(self, fn: Callable[[], Any], relay: _Relay):
        super().__init__()
        self.fn, self.relay = fn, relay
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.fn()
        except BaseException as exc:  # shown to the user, never swallowed
            exc.__sessionscope_trace__ = traceback.format_exc()
            self.relay.sig_error.emit(exc)
        else:
            self.relay.sig_done.emit(result)


_live: set[_Relay] = set()  # relays must outlive their task
_reporter: Callable[[BaseException], None] | None = None


def set_error_reporter(report: Callable[[BaseException], None] | None) -> None:
    """Where a worker's error goes when its caller named no handler (the window: its status bar).
    No error is ever dropped: without a reporter either, it is raised into Qt's event loop."""
    global _reporter
    _reporter = report


def report_error(exc: BaseException) -> None:
    """Hand an error to the window's reporter (for handlers that clean up first)."""
    if _reporter is None:
        raise exc
    _reporter(exc)


def run_task(fn: Callable[[], Any], on_done: Callable[[Any], None],
             on_error: Callable[[BaseException], None] | None = None, owner: QObject | None = None) -> None:
    """Run fn() on a worker; on_done(result) / on_error(exc) run on the UI thread.

    With an `owner`, the callbacks are skipped once the owner widget is gone (a
    window closed while its query was still running).
    """
    relay = _Relay()
    _live.add(relay)

    def alive() -> bool:
        return owner is None or shiboken6.isValid(owner)

    @Slot(object)
    def done(result):
        _live.discard(relay)
        if alive():
            on_done(result)

    @Slot(object)
    def failed(exc):
        _live.discard(relay)
        if not alive():
            return
        if on_error is not None:
            on_error(exc)
        else:
            report_error(exc)

    relay.sig_done.connect(done)
    relay.sig_error.connect(failed)
    QThreadPool.globalInstance().start(_Task(fn, relay))


class Generation:
    """A counter: answers to an older request than the newest are dropped."""

    def __init__(self):
        self.value = 0

    def next(self) -> int:
        self.value += 1
        return self.value

    def current(self, token: int) -> bool:
        return token == self.value


class _Progress(QObject):
    sig_progress = Signal(int, int, str)


def run_cancellable(fn: Callable[[Callable[[int, int, str], None], threading.Event], Any],
                    on_progress: Callable[[int, int, str], None], on_done: Callable[[Any], None],
                    on_error: Callable[[BaseException], None], owner: QObject) -> threading.Event:
    """A long model function with progress and Cancel: `fn(progress, cancel)` runs on a worker; each
    `progress(done, total, label)` reaches `on_progress` on the UI thread (queued), and setting the returned
    Event cancels it (the model functions check it between batches). One relay for every long job."""
    cancel = threading.Event()
    relay = _Progress(owner)
    relay.sig_progress.connect(on_progress)

    def finished(callback):
        def call(value) -> None:
            relay.deleteLater()
            callback(value)
        return call
    run_task(lambda: fn(relay.sig_progress.emit, cancel), finished(on_done), finished(on_error), owner=owner)
    return cancel
