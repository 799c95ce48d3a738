"""The sessions' live states in the window (#35): decided on a worker (sessionscope.live: last lines, the tools'
processes, the time) every few seconds while the window is open and after every change the watcher brings, and
handed to the session list (its marks, Status column and tooltips) and the status bar's count of sessions that
wait for you."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from .workers import run_task

TICK_MS = 5000


class LiveTracker(QObject):
    sig_states = Signal(object)  # {session id: sessionscope.live.Live}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.store = None
        self.states: dict = {}
        self._busy = False
        self.timer = QTimer(self, interval=TICK_MS)
        self.timer.timeout.connect(self.refresh)

    def watch(self, store) -> None:
        self.store, self.states = store, {}
        self.timer.start()
        self.refresh()

    def stop(self) -> None:
        self.timer.stop()

    def refresh(self) -> None:
        store = self.store
        if store is None or self._busy:
            return
        self._busy = True
        from sessionscope import live

        def done(states) -> None:
            self._busy = False
            if store is self.store:
                self.states = states
                self.sig_states.emit(states)

        def failed(_exc) -> None:
            self._busy = False
        run_task(lambda: live.states(store), done, failed, owner=self)
