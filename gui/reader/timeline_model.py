"""The timeline of one branch: a table model over event ids with a lazy, paged cache.

Only ids are held (a 200,000-event branch is a list of strings); rows are
fetched 200 at a time on a worker when they are first painted, and shown as
"…" until they arrive. Answers for a branch no longer shown are dropped.
"""

from __future__ import annotations

import datetime as dt
import functools
import re

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.sessions.session_model import tokens_text
from sessionscope.history import pairing
from sessionscope.history.cards import beside_label, summary_of_text
from sessionscope.safety.untrusted import scrubbed

PAGE = 200
_R = Qt.ItemDataRole
_DISPLAY, _FOREGROUND, _FONT, _TOOLTIP, _USER = (
    int(r.value) for r in (_R.DisplayRole, _R.ForegroundRole, _R.FontRole, _R.ToolTipRole, _R.UserRole))
_ANSWERED = frozenset({_DISPLAY, _FOREGROUND, _FONT, _TOOLTIP, _USER})
COLUMNS = ["Time", "Kind", "Who", "Text", "ctx / out"]  # tokens: the context a reply read / what it wrote
KIND_LABELS = {"tool_call": "tool call", "tool_result": "result", "compaction": "compaction",
               "compaction_summary": "summary", "fact.set": "fact", "fact.delete": "fact −"}
# Kind colours that keep WCAG AA contrast (≥ 4.5:1) on the table's rows: one set for a light
# palette, one for a dark one (a grey that reads on white disappears on #2b2b2b and back)
KIND_COLORS = {"message": None, "tool_call": "#9a5518", "tool_result": "#7a5f30", "thinking": "#5f5f80",
               "compaction": "#2e7d32", "compaction_summary": "#2e7d32", "fact.set": "#1565c0",
               "fact.delete": "#1565c0", "progress": "#6e6e6e", "meta": "#6e6e6e", "context": "#6e6e6e", "system": "#6e6e6e",
               "step": "#6e6e6e", "interrupt": "#c62828"}
KIND_COLORS_DARK = {"message": None, "tool_call": "#e0a060", "tool_result": "#d4b87a", "thinking": "#a9a9d6",
                    "compaction": "#7cc47f", "compaction_summary": "#7cc47f", "fact.set": "#7fb2f0",
                    "fact.delete": "#7fb2f0", "progress": "#a8a8a8", "meta": "#a8a8a8", "context": "#a8a8a8", "system": "#a8a8a8",
                    "step": "#a8a8a8", "interrupt": "#ef7a7a"}
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")  # colours, cursor moves, titles


def dark_palette() -> bool:
    from PySide6.QtGui import QGuiApplication, QPalette
    return QGuiApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128


def kind_color(kind: str) -> str | None:
    return (KIND_COLORS_DARK if dark_palette() else KIND_COLORS).get(kind)


def clock(ts: float) -> str:
    """Day and time to the second: turns are seconds apart, sessions span days."""
    return dt.datetime.fromtimestamp(ts).strftime("%b %d %H:%M:%S") if ts else ""


_MARKUP = re.compile(r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|"
                     r"bash-input|bash-stdout|bash-stderr|local-command-caveat)>([\s\S]*?)</\1>")


def readable(text: str) -> str:
    """Claude Code's markup around a slash command or a `!` shell line, as the user saw it:
    `/model opus` rather than `<command-name>/model</command-name><command-message>…`."""
    if "<" not in text or not _MARKUP.search(text):
        return text
    parts = {m.group(1): m.group(2).strip() for m in _MARKUP.finditer(text)}
    if "command-name" in parts:
        return f"{parts['command-name']} {parts.get('command-args', '')}".strip()
    if "bash-input" in parts:
        return f"! {parts['bash-input']}"
    return _MARKUP.sub(lambda m: "" if m.group(1) == "local-command-caveat" else m.group(2).strip(), text).strip()


_OUTPUT = re.compile(r"^\s*<(bash-stdout|local-command-stdout)>([\s\S]*?)</\1>\s*(?:<bash-stderr>([\s\S]*?)</bash-stderr>)?\s*$")


def command_output(text: str) -> str | None:
    """What a `!` shell line or a local slash command printed, when that is all the message is (shown as
    output, not as prose)."""
    if "-stdout>" not in text:
        return None
    m = _OUTPUT.match(text)
    return None if m is None else (m.group(2).strip("\n") + ("\n" + m.group(3).strip() if m.group(3) else ""))


def first_line(text: str, width: int = 240) -> str:
    line = " ".join(readable(ANSI.sub("", text)).split())  # a tool's colour codes are not text
    return line if len(line) <= width else line[:width - 1] + "…"


said_line = functools.lru_cache(maxsize=4096)(summary_of_text)  # painted again and again: parsed once


class TimelineModel(QAbstractTableModel):
    """Rows are the branch's events; with folding on, a tool call's results hide under it
    (its row shows the first line of the output) until the pair is expanded."""

    sig_page_loaded = Signal(int)  # first row of the page

    def __init__(self, parent=None):
        super().__init__(parent)
        self._bold: QFont | None = None  # a user's prompt (made once: asked of every visible cell)
        self.store = None
        self.reading_page = False  # while a page read is told (dataChanged)
        self.all_ids: list[str] = []
        self.kinds: list[str] = []
        self.turn_tokens: dict[str, int] = {}
        self.pinned: frozenset[str] = frozenset()  # the events of the session shown the user pinned (#33)
        self.notes: dict[str, tuple] = {}  # event id → the notes on it (#33: NoteViews)
        self.ids: list[str] = []  # the visible rows
        self.positions: list[int] | None = None  # visible row → index in all_ids (None: all shown)
        self.cache: dict[str, object] = {}  # event id → EventView, for rows painted lately
        self.pending: set[int] = set()
        self.fork_points: dict[str, list[str]] = {}  # event id → notes on the branches leaving there
        self.changed_files: dict[str, list[str]] = {}  # prompt id → the files its turn changed (checkpoints)
        self.sidechain: list[bool] = []
        self.folded = True
        self.expanded: set[str] = set()  # tool calls whose results are shown
        self.failed: dict[int, str] = {}  # page → why it could not be read (shown in its rows, not retried)
        self.pairs: dict[str, str] | None = None  # result id → the call it answers, by the tool's call id
        self.owner: dict[str, str] = {}  # the pairing in use (by position until `pairs` is read)
        self.results: dict[str, list[str]] = {}  # call id → the results that answer it
        self._gen = Generation()

    # -- what is shown ----------------------------------------------------------------

    def show_ids(self, store, ids: list[str], fork_points: dict[str, list[str]] | None = None) -> None:
        """Show a plain list of events (no kinds known: nothing folds)."""
        self.show_outline(store, ids, [""] * len(ids), {}, fork_points)

    def show_outline(self, store, ids: list[str], kinds: list[str], turn_tokens: dict[str, int],
                     fork_points: dict[str, list[str]] | None = None, sidechain: list[bool] | None = None) -> None:
        self._gen.next()
        self.beginResetModel()
        self.store, self.all_ids, self.kinds, self.turn_tokens = store, ids, kinds, turn_tokens
        self.sidechain = sidechain or [False] * len(ids)
        self.cache, self.pending, self.expanded, self.pairs, self.failed = {}, set(), set(), None, {}
        self.fork_points = fork_points or {}
        self._layout()
        self.endResetModel()
        if store is not None and "tool_result" in kinds:
            token, side = self._gen.value, self.sidechain
            run_task(lambda: store.tool_pairs(ids, kinds, side), lambda pairs: self.set_pairs(token, pairs),
                     owner=self)

    def set_fork_points(self, marks: dict[str, list[str]]) -> None:
        """Mark the rows where other branches leave (rewinds, forks); found after the rows show."""
        self.fork_points = marks
        if self.ids:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self.ids) - 1, 1))

    def set_changed_files(self, files: dict[str, list[str]]) -> None:
        """Mark each prompt with the files its turn changed; found after the rows show."""
        self.changed_files = files
        if self.ids:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self.ids) - 1, 1))

    def set_folded(self, folded: bool) -> None:
        if folded == self.folded:
            return
        self.beginResetModel()
        self.folded, self.expanded, self.pending = folded, set(), set()
        self._layout()
        self.endResetModel()

    def _layout(self) -> None:
        """Which of all_ids are rows, in which order: with folding, a call's results hide under it, and
        when it is opened they show right below it (the results that answer it, by the tool's call id)."""
        if not self.folded or "tool_result" not in self.kinds:
            self.positions, self.ids = None, self.all_ids
            return
        if self.pairs is None:  # the call ids are read on a worker: until then, by position
            self.owner = pairing.pair((i, k, None, side) for i, k, side in zip(self.all_ids, self.kinds, self.sidechain))
        else:
            self.owner = self.pairs
        self.results = {}
        index = {eid: i for i, eid in enumerate(self.all_ids)}
        for result, call in self.owner.items():
            if result in index and call in index:
                self.results.setdefault(call, []).append(result)
        positions = []
        for i, eid in enumerate(self.all_ids):
            if self.kinds[i] == "tool_result" and self.owner.get(eid) in self.results:
                continue  # shown under its call, or hidden with it
            positions.append(i)
            if eid in self.expanded:
                positions += [index[r] for r in self.results.get(eid, [])]
        self.positions = positions
        self.ids = [self.all_ids[i] for i in positions]

    def set_pairs(self, token: int, pairs: dict[str, str]) -> None:
        """The calls each result answers, by id (store.tool_pairs). Where that moves rows, they move as a
        layout change, so the selection and the scroll stay on the same events."""
        if not self._gen.current(token):
            return
        self.pairs = pairs
        if not self.folded or "tool_result" not in self.kinds:
            return
        old_ids, old_results = self.ids, self.results
        self.layoutAboutToBeChanged.emit()
        self._layout()
        if self.ids != old_ids:
            row_of = {eid: r for r, eid in enumerate(self.ids)}
            for idx in self.persistentIndexList():
                r = row_of.get(old_ids[idx.row()], -1) if idx.row() < len(old_ids) else -1
                self.changePersistentIndex(idx, self.index(r, idx.column()) if r >= 0 else QModelIndex())
            self.pending = set()
        self.layoutChanged.emit()
        if self.ids and self.results != old_results:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.ids) - 1, len(COLUMNS) - 1))

    def position(self, row: int) -> int:
        return row if self.positions is None else self.positions[row]

    def results_of(self, row: int) -> list[str]:
        """The ids of the tool results that answer the call on `row` (in the whole branch)."""
        if self.positions is None or not (0 <= row < len(self.ids)):
            return []
        return list(self.results.get(self.ids[row], []))

    def hidden_results(self, row: int) -> list[str]:
        if self.positions is None or not (0 <= row < len(self.ids)) or self.ids[row] in self.expanded:
            return []
        return self.results_of(row)

    def toggle(self, row: int) -> bool:
        """Expand or collapse the results under the call on `row`; False if it has none."""
        if self.positions is None or not (0 <= row < len(self.ids)):
            return False
        call = self.ids[row]
        if not self.results_of(row):
            return False
        self.beginResetModel()
        self.expanded.symmetric_difference_update({call})
        self._layout()
        self.pending = set()
        self.endResetModel()
        return True

    def row_of(self, event_id: str) -> int:
        """The row showing `event_id`, expanding the call that folds it if need be; -1 if absent."""
        try:
            return self.ids.index(event_id)
        except ValueError:
            pass
        call = (self.owner or {}).get(event_id)
        if call is None or call not in self.ids:
            return -1
        if self.toggle(self.ids.index(call)):
            return self.ids.index(event_id)
        return -1

    def clear(self) -> None:
        self.show_ids(self.store, [])

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.ids)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    # -- loading ------------------------------------------------------------------

    def event_at(self, row: int):
        """The event on `row` if it is loaded (else its page is requested and None returned)."""
        if not (0 <= row < len(self.ids)):
            return None
        e = self.cache.get(self.ids[row])
        if e is None:
            self._request(row // PAGE)
        return e

    def _page_ids(self, page: int) -> list[str]:
        ids = self.ids[page * PAGE:(page + 1) * PAGE]
        extra = [r for row in range(page * PAGE, min(len(self.ids), (page + 1) * PAGE))
                 for r in self.hidden_results(row)[:1]]  # a folded call shows its output's first line
        return [i for i in ids + extra if i not in self.cache]

    def _request(self, page: int) -> None:
        if page in self.pending or page in self.failed or self.store is None:
            return
        self.pending.add(page)
        token, store = self._gen.value, self.store
        ids = self._page_ids(page)
        run_task(lambda: store.events_by_ids(ids), lambda rows: self._loaded(token, page, rows),
                 lambda exc: self._page_failed(token, page, exc), owner=self, urgent=True)  # rows on screen

    def _page_failed(self, token: int, page: int, exc: BaseException) -> None:
        """A page that could not be read says so in its rows (instead of "…" for ever)."""
        if not self._gen.current(token):
            return
        self.pending.discard(page)
        self.failed[page] = f"{type(exc).__name__}: {exc}"
        first, last = page * PAGE, min(len(self.ids), (page + 1) * PAGE) - 1
        if last >= first:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))

    def _loaded(self, token: int, page: int, rows) -> None:
        if not self._gen.current(token):
            return
        self.pending.discard(page)
        if len(self.cache) > 20_000:  # keep memory flat: what scrolled away is fetched again
            self.cache = {}
        for e in rows:
            self.cache[e.id] = e
        first, last = page * PAGE, min(len(self.ids), (page + 1) * PAGE) - 1
        if last >= first:
            self.reading_page = True  # (tables.fit_columns: a page read is fitted once, not each one)
            try:
                self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))
            finally:
                self.reading_page = False
        self.sig_page_loaded.emit(first)

    def data(self, index, role=_DISPLAY):
        # painting asks every visible cell for eight roles: those no cell answers go before any lookup, and roles
        # are compared as ints (comparing Qt's enum members costs ten times as much)
        if role not in _ANSWERED or not index.isValid():
            return None
        e = self.event_at(index.row())
        col = index.column()
        if e is None:
            if role == _DISPLAY and col == 3:
                why = self.failed.get(index.row() // PAGE)
                return f"⚠ could not be read: {why}" if why else "…"
            return None
        if role == _DISPLAY:
            if col == 0:
                return clock(e.ts)
            if col == 1:
                label = KIND_LABELS.get(e.kind, e.kind)
                if e.kind == "tool_call" and self.positions is not None and self.results_of(index.row()):
                    label = ("▾ " if e.id in self.expanded else "▸ ") + label
                files = self.changed_files.get(e.id)
                return (("⚑ " if e.id in self.pinned else "") + ("✍ " if e.id in self.notes else "") + label
                        + (" ⎇" if e.id in self.fork_points else "")
                        + (f" ✎{len(files)}" if files else ""))
            if col == 2:
                return (f"agent {e.agent_id}" if e.sidechain and e.agent_id else e.role or "")
            if col == 3:
                text = first_line(self._summary(e))
                hidden = self.hidden_results(index.row())
                result = self.cache.get(hidden[0]) if hidden else None
                return f"{text}  →  {first_line(result.text, 160)}" if result is not None else text
            if col == 4:  # labelled: a context read is not a bill, and a turn's sum is not one reply's
                if e.id in self.turn_tokens and self.turn_tokens[e.id]:
                    return "turn " + tokens_text(self.turn_tokens[e.id])
                if not (e.tokens_in or e.tokens_out):
                    return ""
                return f"{tokens_text(e.tokens_in)} / {tokens_text(e.tokens_out)}"
        if role == _FOREGROUND:
            color = kind_color(e.kind)
            return QColor(color) if color else None
        if role == _FONT and e.kind == "message" and e.role == "user":
            if self._bold is None:
                self._bold = QFont()
                self._bold.setBold(True)
            return self._bold
        if role == _TOOLTIP and col == 3:
            return e.text[:2000]
        if role == _TOOLTIP and col == 4 and e.id not in self.turn_tokens and \
                (e.tokens_in or e.tokens_out):
            return f"context read: {e.tokens_in:,} tokens (input, cache reads and writes)\nwritten: {e.tokens_out:,} tokens"
        if role == _TOOLTIP and col == 4 and e.id in self.turn_tokens:
            return (f"{self.turn_tokens[e.id]:,} tokens from this prompt to the next: the context each reply read "
                    "(input, cache reads and writes) plus what it wrote")
        if role == _TOOLTIP and col == 1 and (e.id in self.fork_points or e.id in self.changed_files):
            files = self.changed_files.get(e.id, [])
            listed = [f"this turn changed {len(files)} file(s):"] + files[:30] + (["…"] if len(files) > 30 else []) \
                if files else []
            return "\n".join(self.fork_points.get(e.id, []) + listed)
        if role == _TOOLTIP and col == 1 and e.kind == "tool_call" and self.positions is not None:
            return "Double-click (or Space) to show or hide this call's output"
        if role == _USER:
            return e
        return None

    @staticmethod
    def _summary(e) -> str:
        if e.kind == "tool_call" and e.text:
            return said_line(e.text)  # `Bash: pytest -q`, as the reader's card says it, not its JSON
        if e.text:
            return e.text
        if e.kind in ("progress", "meta", "opaque", "attachment", "context"):
            return scrubbed(beside_label(e.payload))  # (`attachment: skill_listing`, as `show --all` says it)
        return ""

    def find_all_async(self, match, done) -> None:
        """Every row whose event satisfies `match`, read on a worker page by page; `done(rows)` on the UI
        thread (None when the branch changed meanwhile)."""
        token, store, ids = self._gen.value, self.store, list(self.ids)
        if store is None or not ids:
            done([])
            return

        def work() -> list[int]:
            rows = []
            for i in range(0, len(ids), PAGE):
                by_id = {e.id: e for e in store.events_by_ids(ids[i:i + PAGE])}
                rows += [i + k for k, eid in enumerate(ids[i:i + PAGE]) if eid in by_id and match(by_id[eid])]
            return rows
        run_task(work, lambda rows: done(rows if self._gen.current(token) and self.ids == ids else None), owner=self)

    def find_async(self, start: int, match, done, step: int = 1, wrap: bool = False) -> None:
        """Look for the next row after `start` (before it, with step -1) whose event satisfies `match`,
        reading the events on a worker (a miss across 100,000 events must not freeze the window);
        `done(row)` runs on the UI thread, -1 when there is none (or the branch changed meanwhile)."""
        token, store, ids = self._gen.value, self.store, list(self.ids)
        if store is None or not ids:
            done(-1)
            return
        rows = list(range(start + 1, len(ids))) if step > 0 else list(range(start - 1, -1, -1))
        if wrap:
            rows += list(range(0, min(start + 1, len(ids)))) if step > 0 else list(range(len(ids) - 1, start - 1, -1))

        def work() -> str | None:
            for i in range(0, len(rows), PAGE):
                chunk = rows[i:i + PAGE]
                by_id = {e.id: e for e in store.events_by_ids([ids[r] for r in chunk])}
                for r in chunk:
                    e = by_id.get(ids[r])
                    if e is not None and match(e):
                        return ids[r]
            return None

        def found(event_id: str | None) -> None:
            ok = self._gen.current(token) and event_id is not None and event_id in self.ids
            done(self.ids.index(event_id) if ok else -1)
        run_task(work, found, owner=self)
