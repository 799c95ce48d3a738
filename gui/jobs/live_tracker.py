"""The sessions' live states in the window (#35): decided on a worker (sessionscope.live.states: the hooks' signals, last
lines, the tools' processes, the time) after every change the watcher brings, within a second of a hook's signal (a
cheap look at the signals' high-water mark every second), every few seconds for the sessions in a state time ends
(working, waiting), and once a minute for all: at rest, with nothing working or waiting, no pass is made between; and
handed to the session list (its marks, Status column and tooltips) and the status bar's count of sessions that
wait for you."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from sessionscope.gui.jobs.workers import run_task, yield_to_urgent
from sessionscope.live.words import NEEDS_YOU

TICK_MS = 5000
PEEK_MS = 1000  # how often the hooks' signals are looked at
WHOLE_TICKS = 12  # a whole pass every 12th tick (a minute); the ticks between decide the sessions in a passing state
# the states time alone ends (a turn's minute of work, a wait while its tool is open); the others change when a line
# is written (the watcher's changes decide those sessions at once), a hook speaks (peek), or at the whole pass
PASSING = frozenset({"working", "waiting", "needs_approval"})


class LiveTracker(QObject):
    sig_states = Signal(object)  # {session id: sessionscope.live.states.Live}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.store = None
        self.states: dict = {}
        self._busy = self._peeking = self._again = False
        self._queued: set[str] = set()  # sessions to decide again once the pass under way is done
        self._mark = None  # the signals' high-water mark the states were last decided at
        self._tails: dict = {}
        self._ended: dict = {}
        self.changed: set[str] | None = None  # the sessions whose state the last sig_states changed (None: any)
        self.counts: dict[str, int] = {}  # sessions by state, as of the last sig_states
        self.needing: dict = {}  # {session id: Live} of those that need you (waiting, needs approval)
        self.timer = QTimer(self, interval=TICK_MS)
        self.timer.timeout.connect(self.tick)
        self.ticks = 0
        self.peeker = QTimer(self, interval=PEEK_MS)
        self.peeker.timeout.connect(self.peek)

    def watch(self, store) -> None:
        self.store, self.states, self._mark, self._queued = store, {}, None, set()
        self._tails: dict = {}  # the last lines of each session, read again when it changes (live.states)
        self._ended: dict = {}  # the states of the sessions ended by their age (live.states)
        self.timer.start()
        self.peeker.start()
        self.refresh()

    def stop(self) -> None:
        """No more passes (and the answer of one under way is dropped) until `watch` is called again."""
        self.store = None
        self.timer.stop()
        self.peeker.stop()

    def peek(self) -> None:
        """Decide the states again when a hook has spoken since they were last decided."""
        store = self.store
        if store is None or self._busy or self._peeking:
            return
        self._peeking = True
        from sessionscope.live import signals

        before = self._mark

        def look():
            mark = signals.mark(store)
            if mark == before or before is None or before[0] is None or mark[2]:
                return mark, None  # nothing new, or no mark to count from, or signals in the spool: a whole pass
            return mark, signals.spoken_since(store, before[0])

        def seen(result) -> None:
            self._peeking = False
            mark, spoke = result
            if store is self.store and mark != self._mark:
                self._mark = mark
                self.refresh(spoke)  # the sessions the hooks spoke of (all of them when that cannot be told)

        def failed(_exc) -> None:
            self._peeking = False
        run_task(look, seen, failed, owner=self)

    def tick(self) -> None:
        """The timer's pass: the sessions in a passing state (none at rest: nothing is done), every WHOLE_TICKS
        ticks all of them (a tool started with nothing written yet, a session ended by its age)."""
        self.ticks += 1
        if self.ticks % WHOLE_TICKS == 0 or not self.states:
            self.refresh()
            return
        passing = [sid for sid, st in self.states.items() if st.state in PASSING]
        if passing:
            self.refresh(passing)

    def refresh(self, session_ids=None) -> None:
        """Decide the states again: of every session, or (after an import or a write that names them) of those
        sessions alone, kept with the others' — a line appended is shown at once, not after a pass over the store."""
        store = self.store
        if store is None:
            return
        if self._busy:  # asked again meanwhile: done after this pass (a whole pass, or those sessions)
            if session_ids:
                self._queued |= set(session_ids)
            else:
                self._again = True
            return
        self._busy = True
        from sessionscope.live import signals
        from sessionscope.live import states as live
        some = sorted(session_ids) if session_ids and self.states else None
        tails, ended, before = self._tails, self._ended, self.states  # (states: replaced by the next pass)

        def work():
            signals.drain(store)  # what the hooks spooled while the store was busy (usually nothing: no write)
            mark = signals.mark(store)
            if some is None:
                states = live.states(store, tails=tails, ended=ended, pause=yield_to_urgent)
                gone = before.keys() - states.keys()
            else:
                states, gone = live.states(store, store.sessions(session_ids=some, limit=None), tails=tails), set()
            # what changed, the counts by state and who needs you, told here rather than found by each view on the
            # UI thread (20,000 states gone over there by four views held it ~50 ms every pass)
            changed = {sid for sid, st in states.items() if before.get(sid) != st} | gone
            merged = states if some is None else {**before, **states}
            counts: dict[str, int] = {}
            for st in merged.values():
                counts[st.state] = counts.get(st.state, 0) + 1
            needing = {sid: st for sid, st in merged.items() if st.state in NEEDS_YOU}
            return mark, merged, changed, counts, needing

        def done(result) -> None:
            self._busy = False
            if store is self.store:
                mark, self.states, self.changed, self.counts, self.needing = result
                if some is None:
                    self._mark = mark
                self.sig_states.emit(self.states)
            if self._again:
                self._again, self._queued = False, set()
                self.refresh()
            elif self._queued:
                queued, self._queued = self._queued, set()
                self.refresh(queued)

        def failed(_exc) -> None:
            self._busy = False
        run_task(work, done, failed, owner=self)
