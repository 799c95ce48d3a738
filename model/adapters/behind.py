"""Building the events a person browses behind an agent SDK's writes (#31): the SDK's call keeps only what
the SDK reads back and returns; a worker of the adapter's shows it as events a moment later.

Once writes have paused for QUIET_S, and never more than MAX_LAG_S behind a steady stream of them: an
agent writes a turn, then waits seconds for its model, so a session is browsable a moment after each turn
while the SDK's own call costs only its rows. What a process killed first leaves is shown by the app's
next look (`Source.catch_up`, called by the watcher and `scan`).
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable, Hashable

log = logging.getLogger(__name__)


class Behind:
    """A worker that runs `show(conn, key)` in a write transaction for each key written to, behind the
    writes (`written`); `flush()` shows them now. `showing` is held while a key is shown: take it to act
    on a key without a showing in between."""

    QUIET_S = 0.2
    MAX_LAG_S = 1.0

    def __init__(self, store, show: Callable, name: str, shown: Callable | None = None, *, writes: bool = False):
        # `writes`: show(key) takes the locks and write transactions it needs itself (LangGraph's, which must take
        # its saver's lock first), rather than running in one of ours
        self.store, self.show, self.name, self.shown, self.writes = store, show, name, shown, writes
        self.pending: dict[Hashable, float] = {}  # key → when its first unshown write landed
        self.last_write = 0.0
        self.closed = False
        self.cond = threading.Condition()
        self.showing = threading.Lock()  # one showing at a time: the worker, flush, an act on a key
        self.thread: threading.Thread | None = None

    def written(self, key: Hashable) -> None:
        with self.cond:
            now = time.monotonic()
            self.pending.setdefault(key, now)
            self.last_write = now
            if self.thread is None and not self.closed:
                self.thread = threading.Thread(target=self._run, name=f"sessionscope-{self.name}", daemon=True)
                self.thread.start()
                _workers.add(self)
            self.cond.notify()

    def _run(self) -> None:
        while True:
            with self.cond:
                if not self.pending:
                    if self.closed:
                        return
                    self.cond.wait()
                    continue
                due = min(self.last_write + self.QUIET_S, min(self.pending.values()) + self.MAX_LAG_S)
                if not self.closed and (wait := due - time.monotonic()) > 0:
                    self.cond.wait(wait)
                    continue
            self.flush()

    def flush(self) -> None:
        """Show every key written to and not shown yet, now."""
        with self.showing:
            with self.cond:
                keys, self.pending = list(self.pending), {}
            for key in keys:
                try:
                    if self.writes:
                        self.show(key)
                    else:
                        self.store.write(self.show, key)
                    if self.shown is not None:
                        self.shown(key)
                except Exception:  # noqa: BLE001 - never the SDK's problem: the app's catch_up shows it later
                    log.warning("could not show what %s wrote yet; the app's next scan will", key, exc_info=True)

    def release(self) -> None:
        """Tell the worker to show what is pending and end; never waits (called when the adapter is
        garbage-collected, which may happen on any thread, the worker's own and one inside a write)."""
        with self.cond:
            self.closed = True
            self.cond.notify()

    def stop(self) -> None:
        """Show what is pending and end the worker, waiting for it (close, interpreter exit)."""
        self.release()
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)
        if thread is None:
            self.flush()


_workers: weakref.WeakSet = weakref.WeakSet()  # the Behinds whose worker may be running


@atexit.register
def _drain_at_exit() -> None:
    """A script that never closes its adapter still has its last writes shown as it exits."""
    for behind in list(_workers):
        behind.stop()
