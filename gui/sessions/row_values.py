"""What is slow to work out for a session (its cost, its vital signs): worked out on a worker for the rows the list
paints, a batch at a time, and kept while the session's event count stays the same. Asking for a value never blocks:
the first ask says "not yet", and the cells are repainted when the batch arrives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from sessionscope.gui.jobs.workers import run_task

BATCH = 200  # sessions worked out at a time (those painted, not all 20,000)


class RowValues(QObject):
    def __init__(self, model, fetch: Callable[[Any, list[str]], dict[str, Any]], columns: list[int]):
        """`model`: the session list's SessionTableModel (its store, rows and generation); `fetch(store, ids)` runs
        on a worker and returns {id: value}; `columns`: the columns that show the value."""
        super().__init__(model)
        self.model, self.fetch, self.columns = model, fetch, columns
        self.known: dict[str, tuple[int, Any]] = {}  # session id → (its event count then, the value)
        self._wanted: set[str] = set()
        self._pending = self._stopped = self._held = False
        self._timer = QTimer(self, singleShot=True, interval=30, timeout=self._run)

    def get(self, s) -> tuple[bool, Any]:
        """(True, the value) when known for the session as it is; else (False, None), and it is asked for."""
        known = self.known.get(s.id)
        if known is not None and known[0] == s.event_count:
            return True, known[1]
        self._wanted.add(s.id)
        # started once, not restarted by each paint (a restart would put it off for ever)
        if not self._pending and not self._timer.isActive() and not self._stopped and not self._held:
            self._timer.start()
        return False, None

    def value_of(self, session_id: str) -> Any:
        known = self.known.get(session_id)
        return known[1] if known else None

    def keep(self, counts: dict[str, int]) -> None:
        """The list was read again ({id: event count}): a session that grew is worked out again."""
        self.known = {sid: k for sid, k in self.known.items() if counts.get(sid) == k[0]}

    def _run(self) -> None:
        m = self.model
        if m.store is None or not self._wanted or self._held:
            return
        wanted = list(self._wanted)[:BATCH]
        self._wanted.difference_update(wanted)
        self._pending = True
        token, store = m._gen.value, m.store
        counts = {sid: m.rows[m._rows_by_id[sid]].event_count for sid in wanted if sid in m._rows_by_id}
        run_task(lambda: self.fetch(store, wanted), lambda got: self._got(token, counts, got),
                 lambda _exc: self._got(token, counts, {}), owner=self)

    def _got(self, token: int, counts: dict, got: dict) -> None:
        self._pending = False
        m = self.model
        for sid, value in got.items():
            self.known[sid] = (counts.get(sid, -1), value)
        rows = [m._rows_by_id[sid] for sid in got if sid in m._rows_by_id]
        cols = self.columns
        if rows and m._gen.current(token):  # the rows worked out (those painted), not all 20,000, in their own
            for col in cols:                    # columns only (each column changed is fitted again)
                m.dataChanged.emit(m.index(min(rows), col), m.index(max(rows), col))
        if self._wanted and not self._stopped and not self._held:
            self._timer.start()

    def hold(self, held: bool) -> None:
        """While held (a user's import runs), nothing is worked out: what is asked meanwhile waits, and is worked
        out once it is let go. A session still growing was worked out again at every tick of the import, each time
        reading every payload of it beside the import's processes (the first run's peak memory, #61)."""
        self._held = held
        if not held and self._wanted and not self._pending and not self._stopped:
            self._timer.start()

    def stop(self) -> None:
        """Nothing more after the window closes."""
        self._stopped = True
        self._timer.stop()
        self._wanted.clear()
