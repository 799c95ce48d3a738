"""Running model functions off the UI thread.

`run_task(fn, on_done, on_error)` runs `fn()` on the global thread pool and calls
back on the UI thread (Picard's run_task). Workers never touch widgets and hand
back only frozen read-models. A caller that may be overtaken (typing in a filter,
clicking through sessions) keeps a `Generation` and drops stale answers.
"""

from __future__ import annotations

import itertools
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal

ACTOR = "app"  # what the audit log names as the front end of the actions taken in the window (sessionscope.ops)


class _Dispatcher(QObject):
    """The one object workers signal through. It lives on the UI thread for the whole run and is never
    released, so no Qt object is ever let go on a worker.

    (Each task had a relay object of its own, and the worker held a reference to it; when the worker let go
    of the last one, the relay was destroyed on the worker thread, which took Qt's signal lock and then waited
    for Python's lock, while the UI thread, holding Python's lock, waited for that signal lock: closing a
    dialog then hung the window.)"""

    sig_done = Signal(int, object)
    sig_error = Signal(int, object)
    sig_progress = Signal(int, int, int, str)


_urgent_lock = threading.Lock()
_urgent_running = 0  # urgent tasks running now (what the user waits to see)
_urgent_ended = 0.0  # time.monotonic() when the last one ended
_moving_until = 0.0  # time.monotonic() until which the user is taken to be scrolling (hold_background)
HOLD_S = 0.3  # a scroll step holds background passes this long: the next step of a wheel or a drag comes sooner


def hold_background(seconds: float = HOLD_S) -> None:
    """The user is scrolling (a wheel, the scroll bar, the keys): background passes wait at their next step. Each
    paint of a scrolled view makes hundreds of Qt calls, and each call gives up Python's lock and waits for it
    again behind a worker running Python: the reader's longest stall, scrolling while the live states' pass over
    20,000 sessions ran beside it, was 30-40 ms, of which the paint was 6-10 (#61)."""
    global _moving_until
    _moving_until = time.monotonic() + seconds


def quiet_for(seconds: float) -> bool:
    """No task the user waits for runs, nor has for `seconds`, nor is the user scrolling: a moment for background
    work to start."""
    now = time.monotonic()
    return _urgent_running == 0 and now - _urgent_ended >= seconds and now >= _moving_until


def yield_to_urgent(most: float = 1.0) -> None:
    """From a background task, between steps: wait while a task the user waits for runs, or the user scrolls (up to
    `most` seconds), so that one has the interpreter to itself. Two workers share Python's lock: a pass over
    20,000 sessions beside a session's first rows made them wait for it ~0.3 s."""
    until = time.monotonic() + most
    while (_urgent_running or time.monotonic() < _moving_until) and time.monotonic() < until:
        time.sleep(0.005)


class _Task(QRunnable):
    """Runs the function filed under its token; holds nothing but the token."""

    def __init__(self, token: int, urgent: bool = False):
        super().__init__()
        self.token, self.urgent = token, urgent
        self.setAutoDelete(True)

    def run(self) -> None:
        global _urgent_running, _urgent_ended
        if self.urgent:
            with _urgent_lock:
                _urgent_running += 1
        try:
            self._run()
        finally:
            if self.urgent:
                with _urgent_lock:
                    _urgent_running -= 1
                    _urgent_ended = time.monotonic()

    def _run(self) -> None:
        fn = _pending[self.token].fn  # the UI thread keeps it (and all it holds) until the answer is handled
        try:
            result = fn()
        except BaseException as exc:  # shown to the user, never swallowed
            exc.__sessionscope_trace__ = traceback.format_exc()
            del fn
            self._answer(_dispatcher().sig_error, exc)
        else:
            del fn
            self._answer(_dispatcher().sig_done, result)

    def _answer(self, signal, value) -> None:
        try:
            signal.emit(self.token, value)
        except RuntimeError:  # the app quit while this ran (Ctrl+C, the last window closed): nobody to tell
            pass


class _Pending:
    __slots__ = ("fn", "done", "failed", "progress")

    def __init__(self, fn, done, failed, progress=None):
        self.fn, self.done, self.failed, self.progress = fn, done, failed, progress


_pending: dict[int, _Pending] = {}  # token → the task's function and callbacks, dropped on the UI thread
_tokens = itertools.count(1)
_the_dispatcher: _Dispatcher | None = None


def _dispatcher() -> _Dispatcher:
    """Made on the UI thread by the first run_task (before any worker can ask for it)."""
    global _the_dispatcher
    if _the_dispatcher is None:
        _the_dispatcher = _Dispatcher()
        queued = Qt.ConnectionType.QueuedConnection
        _the_dispatcher.sig_done.connect(_answered, queued)
        _the_dispatcher.sig_error.connect(_failed, queued)
        _the_dispatcher.sig_progress.connect(_progressed, queued)
    return _the_dispatcher


def _answered(token: int, result) -> None:
    task = _pending.pop(token, None)
    if task is not None:
        task.done(result)


def _failed(token: int, exc) -> None:
    task = _pending.pop(token, None)
    if task is not None:
        task.failed(exc)


def _progressed(token: int, done: int, total: int, label: str) -> None:
    task = _pending.get(token)
    if task is not None and task.progress is not None:
        task.progress(done, total, label)


_reporter: Callable[[BaseException], None] | None = None


def set_error_reporter(report: Callable[[BaseException], None] | None) -> None:
    """Where a worker's error goes when its caller named no handler (the window: its status bar).
    No error is ever dropped: without a reporter either, it is raised into Qt's event loop."""
    global _reporter
    _reporter = report


def failure_box(parent, what: str) -> Callable[[BaseException], None]:
    """An on_error for run_task: "Could not {what}" and the error's words, in a box over `parent`."""
    from PySide6.QtWidgets import QMessageBox

    def say(exc: BaseException) -> None:
        QMessageBox.warning(parent, f"Could not {what}", str(exc))
    return say


def report_error(exc: BaseException) -> None:
    """Hand an error to the window's reporter (for handlers that clean up first)."""
    if _reporter is None:
        raise exc
    _reporter(exc)


_lanes: dict[str, QThreadPool] = {}


def pool(lane: str) -> QThreadPool:
    """A lane: a thread of its own, its tasks one after another (made on first use, kept for the app's life)."""
    found = _lanes.get(lane)
    if found is None:
        found = _lanes[lane] = QThreadPool()
        found.setMaxThreadCount(1)
    return found


def wait_for_workers(ms: int) -> bool:
    """At exit: let the tasks still running finish (the shared workers' and every lane's), at most `ms` each;
    whether all did."""
    done = QThreadPool.globalInstance().waitForDone(ms)
    for lane in _lanes.values():
        done = lane.waitForDone(ms) and done
    return done


def run_task(fn: Callable[[], Any], on_done: Callable[[Any], None],
             on_error: Callable[[BaseException], None] | None = None, owner: QObject | None = None,
             on_progress: Callable[[int, int, str], None] | None = None, token: int | None = None,
             urgent: bool = False, lane: str | None = None) -> int:
    """Run fn() on a worker; on_done(result) / on_error(exc) run on the UI thread (and `on_progress`, for
    what the worker reports with `report_progress(token, …)`). Returns the task's token. An `urgent` task
    (what the user waits to see: the list of sessions) goes before the others still queued, and the background
    readers give way to it while it runs. A task in a `lane` runs on that lane's own thread (`lane`), never behind
    the shared workers' long reads (a line just written, brought in: 0.3–1.9 s behind them at worst).

    With an `owner`, the callbacks are skipped once the owner widget is gone (a
    window closed while its query was still running).
    """
    dispatcher = _dispatcher()  # (made here, on the UI thread)

    def alive() -> bool:
        return owner is None or shiboken6.isValid(owner)

    def done(result):
        if alive():
            on_done(result)

    def failed(exc):
        if not alive():
            return
        if on_error is not None:
            on_error(exc)
        else:
            report_error(exc)

    def progress(*args):
        if alive() and on_progress is not None:
            on_progress(*args)

    token = next(_tokens) if token is None else token
    _pending[token] = _Pending(fn, done, failed, progress)
    assert dispatcher is not None
    (pool(lane) if lane else QThreadPool.globalInstance()).start(_Task(token, urgent), 1 if urgent else 0)
    return token


def new_token() -> int:
    """A task's token before it is started (what it reports at once is then known as its own): run_task(token=…)."""
    return next(_tokens)


def report_progress(token: int, done: int, total: int, label: str) -> None:
    """From a worker: how far the task `token` got (its on_progress gets it on the UI thread)."""
    try:
        _dispatcher().sig_progress.emit(token, done, total, label)
    except RuntimeError:  # the app quit meanwhile
        pass


class Generation:
    """A counter: answers to an older request than the newest are dropped."""

    def __init__(self):
        self.value = 0

    def next(self) -> int:
        self.value += 1
        return self.value

    def current(self, token: int) -> bool:
        return token == self.value


def run_cancellable(fn: Callable[[Callable[[int, int, str], None], threading.Event], Any],
                    on_progress: Callable[[int, int, str], None], on_done: Callable[[Any], None],
                    on_error: Callable[[BaseException], None], owner: QObject, lane: str | None = None) -> threading.Event:
    """A long model function with progress and Cancel: `fn(progress, cancel)` runs on a worker; each
    `progress(done, total, label)` reaches `on_progress` on the UI thread (queued), and setting the returned
    Event cancels it (the model functions check it between batches)."""
    cancel, token = threading.Event(), next(_tokens)

    def work():
        return fn(lambda done, total, label: report_progress(token, done, total, str(label)), cancel)
    run_task(work, on_done, on_error, owner=owner, on_progress=on_progress, token=token, lane=lane)
    return cancel
