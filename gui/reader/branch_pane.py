"""The branch pane: one session's branch as a timeline (or the reader's cards), its branch tree, the
chosen event's detail and the find box, and the composer under the timeline where the session's source
takes messages. It shows the session it is given and says what the user chose; the window wires it.

Threading: everything here runs on the UI thread; every read goes through run_task, and a Generation drops
the answers of a branch asked for before the one shown now.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from sessionscope import ops
from sessionscope.gui.jobs.workers import Generation, failure_box, run_task
from sessionscope.gui.reader.branch_header import branch_header
from sessionscope.gui.reader.detail_view import EventDetail
from sessionscope.gui.reader.find_bar import FindBar
from sessionscope.gui.reader.reader_view import ReaderView
from sessionscope.gui.reader.run_panel import RunPanel
from sessionscope.gui.reader.timeline_model import TimelineModel
from sessionscope.gui.reader.tree_view import BranchTreeView
from sessionscope.gui.sessions.session_model import money
from sessionscope.gui.views.managed_panel import Composer
from sessionscope.gui.window.tables import fit_columns, table
from sessionscope.safety.untrusted import printable

HIDDEN_KINDS = ("progress", "meta", "checkpoint", "context")
VITALS_DELAY_MS = 400  # the vital signs wait for the timeline's first rows  # a prompt row shows its turn's files instead


class BranchPane(QWidget):
    sig_ready = Signal()  # the timeline shows the branch asked for
    sig_chosen = Signal()  # the session or the event chosen changed: what the actions act on
    sig_message = Signal(str, int)  # a line for the status bar, for so many ms
    sig_open_session = Signal(str)  # a fork node, or a session to show instead
    sig_node_menu = Signal(str, object)  # (a branch node's event id, where): its context menu
    sig_fork_menu = Signal(str, object)  # (a fork node's session id, where)

    def __init__(self, cost_of: Callable[[str], float | None] = lambda _sid: None, parent=None):
        super().__init__(parent)
        self.cost_of = cost_of  # what the list priced a session at (the header says it)
        self.store = self.session = None
        self.shown_head: str | None = None  # the tip of the branch shown (what Compare sets against the head)
        self.branch_label = ""  # the header before the tree's branch count joins it
        self.tree_session: str | None = None
        self.tree_stale = False
        self._gen = Generation()
        self._timeline_session: str | None = None

        self.timeline_model = TimelineModel(self)
        self.timeline_model.sig_page_loaded.connect(self._page_loaded)
        self.timeline = table(self.timeline_model)
        # (Who fixed: "agent explore-1" must not take the Text's width)
        fit_columns(self.timeline, stretch=3, fixed={2: 96}, paged=True)
        self.timeline.selectionModel().currentRowChanged.connect(self._event_selected)
        self.timeline.doubleClicked.connect(lambda index: self.toggle_pair(index.row()))
        self.timeline_label = QLabel("")
        self.timeline_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.timeline_label.setWordWrap(True)  # a long header takes a second line instead of running under the find box
        self.live_label = QLabel("")  # the session's live state (working, waiting for you, …), why in its tooltip
        self.live_label.setObjectName("live-label")
        self.live_label.hide()
        self.live_states: dict = {}  # session id → sessionscope.live.states.Live (the window's LiveTracker)
        # the reader is the same branch as cards; the table keeps the selection both follow
        self.reader = ReaderView(self.timeline_model)
        self.reader.sig_event_chosen.connect(self._reader_chose)
        self.finder = FindBar(self.timeline, self.timeline_model, self.reader, self)  # (QWidget has a find())
        self.finder.sig_message.connect(self.sig_message)
        self.find_edit, self.find_status = self.finder.edit, self.finder.status
        self.timeline.selectionModel().currentRowChanged.connect(lambda index: self.reader.follow(index.row()))
        self.timeline_stack = QStackedWidget()
        self.timeline_stack.addWidget(self.timeline)
        self.timeline_stack.addWidget(self.reader)
        self.composer = Composer()  # shown for a session whose source takes messages
        self.run_panel = RunPanel()  # shown for a session whose source runs here: its agent run on from the window

        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.setContentsMargins(6, 2, 2, 2)  # (in reading mode the header is at the window's edge)
        row.addWidget(self.timeline_label, 1)
        row.addWidget(self.live_label)
        row.addWidget(self.find_status)
        row.addWidget(self.find_edit)
        lay.addLayout(row)
        from sessionscope.gui.reader.vitals_strip import VitalsStrip
        self.vitals_strip = VitalsStrip()  # the session's vital signs, each going to its events
        self.vitals_strip.sig_jump.connect(self.go_to)
        self._vitals_of: tuple[str, int] | None = None  # (session, its event count) the strip shows
        lay.addWidget(self.vitals_strip)
        from sessionscope.gui.reader.replay_bar import ReplayBar
        self.replay = ReplayBar()  # View ▸ Replay: a slider the timeline, facts, files and spending follow
        self.replay.sig_row.connect(self._replay_to)
        self.replay.hide()
        self._replay_of: tuple | None = None  # (session, head, rows) the slider spans
        self.timeline.selectionModel().currentRowChanged.connect(lambda index: self.replay.follow(index.row()))
        for changed in (self.timeline_model.rowsInserted, self.timeline_model.rowsRemoved):
            changed.connect(lambda *_: self.replay.rows_changed())
        lay.addWidget(self.replay)
        lay.addWidget(self.timeline_stack, 1)
        lay.addWidget(self.composer)
        lay.addWidget(self.run_panel)

        self.tree = BranchTreeView()
        self.tree.sig_show_branch.connect(self.show_branch)
        self.tree.sig_open_session.connect(self.sig_open_session)
        self.tree.sig_menu.connect(self.sig_node_menu)
        self.tree.sig_fork_menu.connect(self.sig_fork_menu)
        self.detail = EventDetail()
        self.detail.session_info.anchorClicked.connect(
            lambda url: self.vitals_strip.jump(url.toString().removeprefix("vital:")))
        self.bottom = QSplitter(Qt.Orientation.Horizontal)
        self.bottom.addWidget(self.tree)
        self.bottom.addWidget(self.detail)
        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.addWidget(box)
        self.right.addWidget(self.bottom)
        for split in (self.right, self.bottom):
            split.setChildrenCollapsible(False)  # a pane dragged too far stops at its minimum, never vanishes
        self.right.setSizes([430, 300])
        self.bottom.setSizes([330, 400])
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.right)

    def _read_failed(self, what: str, token: int | None = None):
        """A read of the session shown that failed: said, unless the session went away meanwhile (deleted or purged
        while it was read: nothing to show, and the list drops it with the deletion's changes) or the user has moved
        on to another read (`token` no longer current)."""
        def failed(exc: BaseException) -> None:
            from sessionscope.errors import NotFound
            if isinstance(exc, NotFound) or (token is not None and not self._gen.current(token)):
                return
            failure_box(self, what)(exc)
        return failed

    # -- what it shows --------------------------------------------------------------------

    def set_store(self, store) -> None:
        self.store = store

    def choose(self, session) -> None:
        """The session the list chose: its head branch, unless it is the one shown and unchanged (new
        events in the session shown keep the reader's place)."""
        changed = self.session is None or session.id != self.session.id or session.event_count != self.session.event_count
        same = self.session is not None and session.id == self.session.id
        kept = self.kept_event() if same else None
        self.session = session
        if changed:
            self.show_branch(session.head_event_id, kept)
        self.sig_chosen.emit()

    def clear(self) -> None:
        """No session: the timeline, tree and detail empty."""
        self.session = None
        self._gen.next()
        self.timeline_model.show_ids(self.store, [])
        self.timeline_label.setText("(no session)")
        self._empty_panes()
        self.sig_chosen.emit()

    def _empty_panes(self) -> None:
        """The vital signs, the branch tree and the detail: nothing (not the last session's)."""
        self.vitals_strip.show_vitals(None)
        self._vitals_of = None
        self.tree.tree_model.set_layout(None)
        self.tree_session = None
        self.detail.show_event(self.store, None)

    def refreshed(self, session) -> None:
        """The session shown changed (new events, a rewind): its branch as it is now."""
        if self.session is None or session.id != self.session.id:
            return
        self.session = session
        self.tree_stale = True
        self.show_branch(session.head_event_id, self.kept_event())
        self.sig_chosen.emit()

    def show_branch(self, head: str | None, select_event: str | None) -> None:
        """Show the branch through `head` in the timeline; select an event in it."""
        token = self._gen.next()
        store, session = self.store, self.session
        self.shown_head = head
        if store is None or session is None or head is None:
            self.timeline_model.show_ids(store, [])
            self.timeline_label.setText("(no events)" if session is None or not session.event_count else html.escape(
                f"{printable(session.title or session.id[:8])} · no conversation: {session.event_count:,} events kept "
                "(subagent work or bookkeeping lines)"))
            self.branch_label = ""
            if session is not None:  # a session with nothing on a branch (a checkpoint alone): shown, as it is
                self._empty_panes()
                self.sig_ready.emit()
            return

        # the head branch comes from the outline cache; any other branch is the branch up to `head`
        up_to = None if head == session.head_event_id else head

        def load():
            notes: dict[str | None, list] = {}
            for n in store.notes(session.id):
                notes.setdefault(n.event_id, []).append(n)
            return (store.branch_outline(session.id, up_to, HIDDEN_KINDS, include_subagents=True),
                    frozenset(p.event_id for p in store.pins(session.id)), notes)
        run_task(load, lambda r: self._branch_loaded(token, head, select_event, *r), self._read_failed("show the branch"),
                 owner=self, urgent=True)  # (the user waits for its rows: background passes let it go first)

    def _branch_loaded(self, token, head, select_event, outline, pinned=frozenset(), notes=None) -> None:
        if not self._gen.current(token):
            return
        self.timeline_model.pinned = pinned
        notes = dict(notes or {})
        if None in notes and outline.ids:  # a note on the whole session: with its first event
            notes.setdefault(outline.ids[0], [])[:0] = notes.pop(None)
        self.timeline_model.notes = {k: tuple(v) for k, v in notes.items() if k is not None}
        self.tree.tree_model.set_marks(pinned, self.timeline_model.notes)
        s = self.session
        # new events of the session shown are followed when the user sits on the last one; another session
        # opens at its start, wherever the last one was left (a click meant for the first rows lands there)
        at_end = self._timeline_session == s.id and self._timeline_at_end()
        self._timeline_session = s.id
        ids = outline.ids
        self.timeline_model.show_outline(self.store, ids, outline.kinds, outline.turn_tokens, sidechain=outline.sidechain)
        rows = self.timeline_model.rowCount()
        found = self.timeline_model.row_of(select_event) if select_event else -1
        target = found if found >= 0 else (rows - 1 if at_end else 0)
        # the rows on screen are read first: what this method queues after (costs, tips, vitals) reads the
        # whole session, and with both workers taken the rows waited for them (~0.4 s of a 200,000-event branch)
        self.timeline_model.event_at(target)
        cost = self.cost_of(s.id)
        label, tip = branch_header(s, len(ids), head == s.head_event_id, cost)
        self.timeline_label.setText(label)
        if cost is None and (s.tokens_in or s.tokens_out):  # (the list prices only the rows it paints: a hidden
            store, sid = self.store, s.id                     # list, in reading mode, priced none of them)

            def priced(costs: dict, label: str = label) -> None:
                if self._gen.current(token) and costs.get(sid) is not None:
                    self.branch_label = f"{label} · {html.escape(money(costs[sid]))}"
                    self.timeline_label.setText(self.timeline_label.text().replace(label, self.branch_label, 1))
            run_task(lambda: store.session_costs([sid]), priced, lambda _exc: None, owner=self)
        self.timeline_label.setToolTip(tip)
        self.branch_label = label
        self.show_live()
        self._load_vitals(s)
        self._replay_of = None
        if self.replay.isVisible():
            self._load_replay()
        # tips and branch points read the whole session: they follow the rows, they do not hold them up
        store, session_id = self.store, s.id
        run_task(lambda: (store.branch_points(session_id), ops.changed_files(store, session_id)),
                 lambda r: self._branch_marks_loaded(token, *r), self._read_failed("mark the branch points", token),
                 owner=self)
        if rows:
            self.timeline.selectRow(target)
            self.timeline.scrollTo(self.timeline_model.index(target, 0))
        self.sig_ready.emit()
        if self.tree_session != s.id or self.tree_stale:
            self._load_tree()

    def _load_vitals(self, s) -> None:
        """The strip's and the Session tab's vital signs, worked out on a worker (once a session and size)."""
        if self._vitals_of == (s.id, s.event_count):
            return
        if self._vitals_of is None or self._vitals_of[0] != s.id:
            self.vitals_strip.show_vitals(None)  # not the last session's signs meanwhile
        self._vitals_of = (s.id, s.event_count)
        # after the first rows and cards: a big session not folded yet must not slow them down
        QTimer.singleShot(VITALS_DELAY_MS, self, lambda: self.session is not None and self.session.id == s.id
                          and self._fold_vitals(s))

    def _fold_vitals(self, s) -> None:
        store, sid, cost = self.store, s.id, self.cost_of(s.id)
        priced = cost is not None or not (s.tokens_in or s.tokens_out)

        def load():
            return store.vitals([sid]).get(sid), cost if priced else store.session_costs([sid]).get(sid)

        def loaded(result) -> None:
            v, cost = result
            if self.session is not None and self.session.id == sid:
                self.vitals_strip.show_vitals(v, cost)
                self.detail.show_signs(sid, list(self.vitals_strip.signs.values()))
        run_task(load, loaded, lambda _exc: None, owner=self)  # (signs are a help: never an error box)

    def set_replay(self, on: bool) -> None:
        """View ▸ Replay: the scrubber over the branch shown, or not."""
        self.replay.setVisible(on)
        if on:
            self._load_replay()
        else:
            self.replay.stop()

    def _load_replay(self) -> None:
        s = self.session
        if s is None or self.store is None:
            return
        key = (s.id, self.shown_head, self.timeline_model.rowCount())
        if key != self._replay_of:
            self._replay_of = key
            head = None if self.shown_head == s.head_event_id else self.shown_head
            self.replay.show_branch(self.store, s.id, head, self.timeline_model)
        self.replay.follow(self.timeline.currentIndex().row())

    def _replay_to(self, row: int) -> None:
        if 0 <= row < self.timeline_model.rowCount():
            self.timeline.selectRow(row)
            self.timeline.scrollTo(self.timeline_model.index(row, 0))

    def go_to(self, event_id: str, what: str = "") -> None:
        """Show an event of the session shown: in the branch shown, else on the branch that holds it."""
        if self.session is None:
            return
        if self.timeline_model.row_of(event_id) >= 0:
            self.reselect(event_id)
        else:
            self.show_branch(event_id, event_id)  # another branch's event: the path to it
            what = f"{what} (on another branch)" if what else what
        if what:
            self.sig_message.emit(what, 4000)

    def _branch_marks_loaded(self, token, marks: dict, files: dict) -> None:
        if not self._gen.current(token):
            return
        self.timeline_model.set_fork_points(marks)
        self.timeline_model.set_changed_files(files)
        self.tree.set_changed_files(files)

    def kept_event(self) -> str | None:
        """The event to keep selected when the session shown changes under the reader: the one selected,
        unless they sit on the last row (then the new events are followed)."""
        e = self.detail.current_event
        if e is None or self.session is None or self._timeline_at_end():
            return None  # (an event not on the new branch is simply not found: the usual row is taken)
        return e.id

    def _timeline_at_end(self) -> bool:
        """Whether the user sits on the last event (then new events are followed)."""
        return self.timeline_model.rowCount() > 0 and \
            self.timeline.currentIndex().row() == self.timeline_model.rowCount() - 1

    def _page_loaded(self, first_row: int) -> None:
        row = self.timeline.currentIndex().row()
        if first_row <= row < first_row + 200:
            self._event_selected(self.timeline.currentIndex())

    def _event_selected(self, current, _previous=None) -> None:
        e = self.timeline_model.event_at(current.row()) if current.isValid() else None
        if self.replay.isVisible():
            self.replay.follow(current.row() if current.isValid() else -1)
            self.replay.say()  # (the row's event may have just been read)
        self.detail.show_event(self.store, e)
        self.sig_chosen.emit()

    def _load_tree(self) -> None:
        store, session = self.store, self.session
        self.tree_session, self.tree_stale = session.id, False
        sid = session.id
        run_task(lambda: store.tree(sid), lambda layout: self._tree_loaded(sid, layout),
                 self._read_failed("draw the branch tree"), owner=self)

    def _tree_loaded(self, session_id: str, layout) -> None:
        """The tree, and in the header the branches a person would call branches: its lanes (a reply's
        parallel tool calls are not branches; a rewind, an edited prompt, a fork are)."""
        self.tree.tree_model.set_layout(layout)
        from sessionscope.store import gcpause
        gcpause.keep()  # (the tree's nodes live as long as the session is shown: no full collector pass over them)
        if self.session is not None and self.session.id == session_id and layout is not None and layout.lanes > 1:
            self.timeline_label.setText(f"{self.branch_label} · {layout.lanes} branches")

    def tree_layout(self):
        """The tree's layout, when it is the session shown's."""
        return self.tree.tree_model.layout_ if self.session is not None and self.tree_session == self.session.id else None

    # -- moving about ---------------------------------------------------------------------

    def find_next(self, step: int = 1) -> None:
        """The next (step -1: the previous) match of the find box in the branch shown (the FindBar's)."""
        self.finder.next(step)

    @property
    def found(self) -> tuple[str, list[int]] | None:
        """(the text found, the rows that hold it) of the last find in the branch shown."""
        return self.finder.found

    def jump_prompt(self, step: int) -> None:
        def found(row: int) -> None:
            if row >= 0:
                self.timeline.selectRow(row)
        self.timeline_model.find_async(self.timeline.currentIndex().row(),
                                       lambda e: e.kind == "message" and e.role == "user" and not e.sidechain,
                                       found, step)

    def set_live(self, states: dict) -> None:
        self.live_states = states
        self.show_live()

    def show_live(self) -> None:
        """The header's mark of the shown session's live state: a session that works, waits for you or was cut
        off says so beside its title (sessionscope.live.states); the others show nothing there."""
        st = self.live_states.get(self.session.id) if self.session is not None else None
        urgent = st is not None and st.state in ("needs_approval", "waiting", "working", "interrupted")
        self.live_label.setText(f"{st.mark} {st.label}" if urgent else "")
        self.live_label.setToolTip(f"{st.label[0].upper()}{st.label[1:]}: {st.why}" if urgent else "")
        self.live_label.setVisible(urgent)

    def set_folded(self, on: bool) -> None:
        QSettings().setValue("timeline/fold", on)
        current = self.detail.current_event
        self.timeline_model.set_folded(on)
        self.reselect(current.id if current else None)

    def set_reader(self, on: bool, remember: bool = True) -> None:
        """The branch as cards (the reader) or as the table; remembered for the next window (not while
        reading mode shows the reader for a while)."""
        if remember:
            QSettings().setValue("timeline/reader", on)
        self.timeline_stack.setCurrentWidget(self.reader if on else self.timeline)
        current = self.timeline.currentIndex()  # (invalid: row -1, nothing to follow)
        if on:
            self.reader.follow(current.row())
            self.reader.setFocus()
        else:
            self.timeline.setFocus()

    def _reader_chose(self, event_id: str) -> None:
        row = self.timeline_model.row_of(event_id)
        if row >= 0 and row != self.timeline.currentIndex().row():
            self.timeline.selectRow(row)

    def toggle_pair(self, row: int | None = None) -> None:
        row = self.timeline.currentIndex().row() if row is None else row
        if row < 0 or row >= self.timeline_model.rowCount():
            return
        event_id = self.timeline_model.ids[row]
        if self.timeline_model.toggle(row):
            self.reselect(event_id)

    def reselect(self, event_id: str | None) -> None:
        row = self.timeline_model.row_of(event_id) if event_id else -1
        if row >= 0:
            self.timeline.selectRow(row)
            self.timeline.scrollTo(self.timeline_model.index(row, 0))
