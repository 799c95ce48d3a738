"""The main window: it assembles the parts (the sidebar, the session list, the branch pane, the imports, the
session actions, the action table's menus) and routes between them: the session chosen, what an action or
an import changed (`apply_changes` fans each Changes out to every part that shows it)."""

from __future__ import annotations

import dataclasses
import sys
import time
from operator import attrgetter
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox, QSplitter

from sessionscope.gui.jobs.import_controller import ImportController
from sessionscope.gui.jobs.workers import failure_box, quiet_for, run_task, set_error_reporter
from sessionscope.gui.reader.branch_pane import BranchPane
from sessionscope.gui.sessions.session_actions import SessionActions
from sessionscope.gui.sessions.session_list import SessionListPane
from sessionscope.gui.window import live_parts, menus
from sessionscope.gui.window.action_table import BY_ID, Context
from sessionscope.gui.window.import_commands import ImportCommands
from sessionscope.gui.window.layout import PaneLayout, restore_geometry, save_geometry
from sessionscope.gui.window.openers import Openers
from sessionscope.gui.window.pages import HOME, Pages
from sessionscope.gui.window.sidebar import Sidebar


class MainWindow(QMainWindow):
    """Threading: everything here runs on the UI thread; store work goes through run_task."""

    if TYPE_CHECKING:  # (made by live_parts.build_live)
        from PySide6.QtWidgets import QToolButton

        from sessionscope.gui.jobs.live_tracker import LiveTracker
        from sessionscope.gui.jobs.notifier import Notifier
        from sessionscope.gui.views.limits import LimitWatch
        live: LiveTracker
        notifier: Notifier
        limit_watch: LimitWatch
        waiting_label: QToolButton

    def __init__(self):
        super().__init__()
        self.setWindowTitle("Sessionscope")
        self.store = None
        self.is_demo = False
        self._closed = False  # closeEvent ran: what start-up still had waiting (the live pass, the chores) stays undone
        self.own_store_url: str | None = None  # where File ▸ Back to Your Store goes (--store), set by the app
        self.pending_open = None  # a session `sessionscope open` asked for before the store was open (open_requests)
        self.tree_menu = None  # the tree's context menu, while it is up
        self._said_damaged = False  # a damaged store is said once, with what to do
        self._own_filters: dict | None = None  # the list's filters in the user's store, kept while the demo shows
        self.actions_ = SessionActions(self)
        self.actions_.sig_changes.connect(self.apply_changes)
        self.actions_.sig_message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.actions_.sig_busy.connect(self._busy)
        self.qactions = menus.build(self, self._triggered)
        set_error_reporter(self._report_worker_error)

        self.sidebar = Sidebar()
        self.sidebar.sig_filter.connect(self._sidebar_filter)
        a = self.qactions
        self.sessions = SessionListPane(a["view.show_archived"], [a["app.scan"], a["app.import"], a["app.demo"]])
        self.sessions.sig_chosen.connect(self._session_chosen)
        self.sessions.sig_none.connect(self.clear_panes)
        # several sessions selected: the actions that take a selection say how many ("Archive (5 sessions)")
        self.sessions.view.selectionModel().selectionChanged.connect(lambda *_: self._update_action_states())
        self.sessions.sig_tags_edited.connect(self.actions_.set_tags)
        self.sessions.known_tags = self.actions_.batch.known_tags
        self.branch = BranchPane(cost_of=self.sessions.model.cost_of)
        self.branch.sig_chosen.connect(self._update_actions)
        self.branch.sig_ready.connect(self._update_actions)  # (the branch's pins came with it: Pin's check)
        self.branch.sig_message.connect(lambda m, ms: self.statusBar().showMessage(m, ms))
        self.branch.sig_open_session.connect(lambda sid: self.open_session(sid))
        self.branch.sig_node_menu.connect(self._tree_menu)
        self.branch.sig_fork_menu.connect(self._tree_fork_menu)
        self.branch.composer.sig_changes.connect(self.apply_changes)
        self.branch.composer.sig_message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.branch.run_panel.sig_changes.connect(self._ran)
        self.branch.run_panel.sig_message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.center = QSplitter(Qt.Orientation.Horizontal)
        self.center.addWidget(self.sessions)
        self.center.addWidget(self.branch)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.sidebar)
        self.pages = Pages(self.center)  # Home, or the list and the branch
        self.main_split.addWidget(self.pages)
        for split in (self.main_split, self.center):
            split.setChildrenCollapsible(False)  # a pane dragged too far stops at its minimum, never vanishes
        self.main_split.setSizes([210, 1200])
        self.center.setSizes([560, 690])
        self.setCentralWidget(self.main_split)
        self.busy_label = QLabel("")  # what a running action is doing (fork, rewind, delete …)
        self.busy_label.setObjectName("busy-label")
        self.busy_label.hide()
        self.statusBar().addPermanentWidget(self.busy_label)

        self.imports = ImportController(self.statusBar(), self)
        self.imports.managed_sync.sig_said.connect(self.branch.composer.show_said)
        self.imports.sig_changes.connect(self.apply_changes)
        self.imports.sig_message.connect(lambda m, ms: self.statusBar().showMessage(m, ms))
        # sessions on their way: the list, not "No sessions yet"
        self.imports.sig_first_run.connect(lambda: self.sessions.setCurrentWidget(self.sessions.listed))
        self.sessions.importing = lambda: self.imports.busy
        self.imports.sig_busy.connect(self.sessions.model.hold_values)
        from sessionscope.gui.jobs.embed_job import EmbedJob
        self.embeds = EmbedJob(self.statusBar(), self)  # search by meaning's vectors, after each import
        self.embeds.sig_message.connect(lambda m, ms: self.statusBar().showMessage(m, ms))
        self.imports.sig_finished.connect(lambda _report: self.embeds.maybe_start(asked=True))
        self.imports.sig_changes.connect(lambda _changes: self.embeds.soon())
        from sessionscope.gui.jobs.sync_job import SyncJob
        self.syncs = SyncJob(self.statusBar(), self)  # the shared sessions pushed to the team store (File ▸ Sync)
        self.syncs.sig_message.connect(lambda m, ms: self.statusBar().showMessage(m, ms))
        self._quitting = False
        live_parts.build_live(self)
        self.live.sig_states.connect(lambda _states: self.sidebar.set_live_counts(self.live.counts))
        self.live.sig_states.connect(self.branch.set_live)
        self.imports.sig_changes.connect(lambda changes: self.live.refresh(changes.session_ids))
        self.openers = Openers(self, sessions=self.sessions, branch=self.branch, actions=self.actions_, live=self.live,
                               imports=self.imports, embeds=self.embeds, syncs=self.syncs)  # the views and dialogs
        self.openers.sig_open.connect(lambda sid, eid: self.open_session(sid, eid or None))
        self.openers.sig_forward.connect(self.bring_forward)
        self.openers.sig_filter.connect(self.filter_sessions)
        self.openers.sig_changes.connect(self.apply_changes)
        self.pages.wire(self)
        self.openers.sig_message.connect(lambda m, ms: self.statusBar().showMessage(m, ms))
        self.import_commands = ImportCommands(self, imports=self.imports, sessions=self.sessions, sidebar=self.sidebar)
        self.import_commands.sig_open.connect(lambda sid: self.open_session(sid))
        self.import_commands.sig_message.connect(lambda m, ms: self.statusBar().showMessage(m, ms))
        self._build_menus()
        self.layout_ = PaneLayout(self, {"sidebar": self.sidebar, "list": self.sessions, "tree": self.branch.bottom},
                                  self.toolbar, self.branch, self.qactions, sessions=self.sessions, center=self.center)
        restore_geometry(self, self._splits())
        self.layout_.restore()
        self._update_actions()

    # -- what is shown -----------------------------------------------------------------

    @property
    def session(self):
        """The session shown (the branch pane's), or None."""
        return self.branch.session

    def context(self, **more) -> Context:
        """What the window's actions act on now: the session shown, the event chosen, the branch shown."""
        return Context(**{"session": self.session, "event": self.branch.detail.current_event,
                          "rows": self.branch.timeline_model.rowCount() > 0, "demo": self.is_demo,
                          "shown_head": self.branch.shown_head, "selected": tuple(self.sessions.selected_sessions()),
                          **more})

    def _triggered(self, row, checked: bool) -> None:
        self.run_action(row, self.context(checked=checked))

    def run_action(self, row, ctx: Context) -> None:
        """Run a row of the action table in `ctx`; an event known by its id alone (a tree node's) is read first,
        on a worker."""
        if row.acts_on_many(ctx) and row.many != "selection":
            attrgetter(row.many)(self.actions_)(ctx.selected, ctx.checked)
            return
        if row.needs == "event" and isinstance(ctx.event, str):
            store = self.store
            run_task(lambda: store.event(ctx.event), lambda e: row.run(self, dataclasses.replace(ctx, event=e)),
                     self._error("read the event"), owner=self)
            return
        row.run(self, ctx)

    def _session_chosen(self, session) -> None:
        self.sessions.shown = session.id
        self.branch.choose(session)

    def clear_panes(self) -> None:
        """No session: the timeline, tree and detail empty, the session's actions off."""
        self.branch.clear()

    def open_session(self, session_id: str, event_id: str | None = None) -> None:
        """Show a session (listing everything first when a filter hides it), at an event if one is named."""
        self.pages.show_browser()
        if not self.sessions.select(session_id):
            self.sessions.select_when_listed(session_id, event_id, self.open_session)
            return
        if event_id:
            self.branch.show_branch(self.sessions.model.session_at(self.sessions.model.row_of(session_id)).head_event_id,
                                    event_id)

    def _ran(self, changes) -> None:
        """A run from the window ended: its transcript is in the store; a fork's run shows the fork."""
        self.apply_changes(changes)
        if changes.detail.get("fork") and changes.session is not None:
            self.open_session(changes.session.id)

    def apply_changes(self, changes) -> None:
        """One place fans out what an operation or an import changed: the list, the sidebar, the branch shown."""
        from sessionscope.history.read_models import Action
        shown = self.session
        if changes.session is not None and (changes.action in (Action.FORK, Action.REWIND) or
                                            shown is not None and changes.session.id == shown.id):
            self.branch.session = changes.session  # a fork or a rewind's new session is the one shown next
            self.sessions.shown = changes.session.id
        if changes.session_list:
            self.sessions.model.reload()
            self.sidebar.refresh()
        shown = self.session
        if self.openers.pins_view is not None and changes.action in (Action.PIN, Action.UNPIN, Action.DELETE, Action.PURGE):
            self.openers.pins_view.refresh()
        if self.openers.notes_view is not None and changes.action in (Action.NOTE_ADD, Action.NOTE_EDIT, Action.NOTE_REMOVE,
                                                              Action.SUMMARIZE, Action.DELETE, Action.PURGE):
            self.openers.notes_view.refresh()
        if shown is not None and changes.action in (Action.DELETE, Action.PURGE) and shown.id in changes.session_ids:
            self.clear_panes()  # the list reloads and picks what to show next
        elif shown is not None and shown.id in changes.session_ids:
            store, sid = self.store, shown.id
            run_task(lambda: store.session(sid), self.branch.refreshed, self._refresh_failed, owner=self)
        self._update_actions()

    def filter_sessions(self, filters: dict, words: str) -> None:
        """List only some sessions (the Usage view's bar, project or source); All Sessions lists all again."""
        self.pages.show_browser()
        self.sidebar.blockSignals(True)
        self.sidebar.clearSelection()
        self.sidebar.setCurrentItem(None)
        self.sidebar.blockSignals(False)
        self.sessions.sidebar_filters = dict(filters)
        self.qactions["view.show_archived"].setChecked(True)  # what was spent in archived sessions too
        self.sessions.refilter()
        n = len(filters["session_ids"]) if "session_ids" in filters else None
        self.statusBar().showMessage(f"Listing {f'the {n} sessions of ' if n is not None else ''}{words}; "
                                     "All sessions in the sidebar lists everything again", 15000)

    def _tree_menu(self, event_id: str, pos) -> None:
        """A branch node's menu, from the action table's tree rows with the clicked node as the context."""
        from sessionscope.gui.window import menus
        if self.session is None:
            return
        layout = self.branch.tree.tree_model.layout_
        node = next((n for n in (layout.nodes if layout else ()) if n.id == event_id and not n.fork_session), None)
        # Pin Event there toggles: its new state is the opposite of the node's (menus.popup shows the current)
        pinned = event_id in self.branch.timeline_model.pinned
        self._popup(menus.popup(self, "tree", self.context(event=event_id, node=node, checked=not pinned),
                                self.run_action), pos)

    def _tree_fork_menu(self, session_id: str, pos) -> None:
        """A fork node's menu: the fork is another session."""
        from sessionscope.gui.window import menus
        self._popup(menus.popup(self, "fork_node", self.context(fork_session=session_id), self.run_action), pos)

    def _popup(self, menu, pos) -> None:
        """One tree menu at a time: the one before is let go (each click makes its own)."""
        if self.tree_menu is not None:
            self.tree_menu.deleteLater()
        self.tree_menu = menu
        menu.popup(pos)

    def open_demo(self) -> None:
        from sessionscope.gui.window.stores import open_demo_store

        run_task(open_demo_store, lambda store: self.set_store(store, first_run=False, demo=True),
                 self._error("open the demo store"), owner=self)

    def open_own_store(self) -> None:
        """From the demo back to the user's store (the default one, or --store / $SESSIONSCOPE_STORE)."""
        from sessionscope.gui.window.stores import open_user_store

        url = self.own_store_url
        run_task(lambda: open_user_store(url), lambda store: self.set_store(store, first_run=True),
                 self._error("open your store"), owner=self)

    def _refresh_failed(self, exc: BaseException) -> None:
        from sessionscope.errors import NotFound
        if isinstance(exc, NotFound):  # it went away meanwhile (deleted elsewhere, purged): show nothing of it
            self.clear_panes()
            self.sessions.model.reload()
        else:
            self._error("refresh the session")(exc)

    def _build_menus(self) -> None:
        """Everything that acts comes from the action table (gui/window/action_table.py) through gui/window/menus.py."""
        from sessionscope.gui.window import theme
        a, b = self.qactions, self.branch
        a["timeline.fold"].setChecked(QSettings().value("timeline/fold", True, type=bool))
        b.timeline_model.folded = a["timeline.fold"].isChecked()
        a["view.reader"].setChecked(QSettings().value("timeline/reader", False, type=bool))
        b.timeline_stack.setCurrentWidget(b.reader if a["view.reader"].isChecked() else b.timeline)
        a[f"view.theme.{theme.saved()}"].setChecked(True)
        menus.install_menus(self, a)
        bar = self.toolbar = self.addToolBar("Main")
        bar.setObjectName("main-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)  # an icon alone is a guess
        menus.fill(bar, "toolbar", a)
        for widget, place in ((self.sessions.view, "sessions"), (b.timeline, "timeline"), (b.reader, "reader"),
                              (b.composer.edit, "composer")):
            widget.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
            menus.fill(widget, place, a)

    # -- store and data -----------------------------------------------------------

    def set_store(self, store, first_run: bool = True, demo: bool = False) -> None:
        """Show `store`; on a first run, import the known places (never into the demo store). The demo
        store says so in the title, and File ▸ Back to Your Store leaves it."""
        was_demo, self.store, self.is_demo = self.is_demo, store, demo
        # the demo store starts unfiltered; the user's own filter comes back with the user's store
        if demo and not was_demo:
            self._own_filters = self.sessions.filters_state()
            self.sessions.set_filters_state({})
        elif was_demo and not demo and self._own_filters is not None:
            self.sessions.set_filters_state(self._own_filters)
        if demo != was_demo:
            self.sidebar.choose(self.sessions.sidebar_filters)
        self.setWindowTitle("Sessionscope — demo store (made-up sessions, not yours)" if demo else "Sessionscope")
        self._update_actions()
        if demo:
            self.statusBar().showMessage("This is the demo store: File ▸ Back to Your Store returns to your sessions",
                                         15000)
        else:
            from sessionscope.safety.privacy import exposure
            warning = exposure(store.url)
            if warning:
                self.statusBar().showMessage(f"⚠ {warning[0].upper()}{warning[1:]}", 60000)
            elif self.statusBar().currentMessage().startswith("⚠ The store"):
                self.statusBar().clearMessage()  # fixed since it was said
        self.actions_.store = store
        self.branch.set_store(store)
        self.sessions.set_store(store)
        self.sidebar.set_store(store)
        self.pages.home.set_store(store)
        self.imports.watch(store)
        self.embeds.watch(store)
        self.embeds.soon()
        self.syncs.watch(store, demo=demo)
        self.live.stop()  # (its first pass waits for the list: _after_first_list)
        self.notifier.watch(store)
        self.openers.set_store(store)
        self.import_commands.set_store(store, demo)
        self._after_first_list(store, first_run, demo)

    # the start-up work waits for a pause of QUIET_S in what the user waits for (a session's rows, a reader's cards):
    # the live states' first pass from the list on, at most LIVE_MOST_S late; the chores CHORES_S at least after the
    # list, at most CHORES_MOST_S
    QUIET_S, LIVE_MOST_S, CHORES_S, CHORES_MOST_S = 0.5, 10.0, 3.0, 20.0

    def _after_first_list(self, store, first_run: bool, demo: bool) -> None:
        """The live states' first pass once the list is shown and the user's first clicks are answered (beside the
        list's read of 20,000 sessions it held a worker ~1 s and the list waited ~0.2 s more; beside a session
        opened at once, its rows and cards waited for it). The start-up chores — looking for a tool's places
        never imported (it loads every tool's reader), the first pull of the hosted agents' workspaces, the daily
        backup (a copy of the whole store) — at once into an empty store, whose first run is what the user waits
        for; a few seconds after the list appeared otherwise, in a pause: they took both workers as the user
        clicked the first session (its timeline waited ~0.5 s behind them), and held the reader's scrolling."""
        done = []

        def watch_live() -> None:
            if self.store is store and self.live.store is not store:
                self.live.watch(store)

        def chores() -> None:
            if self.store is not store or done:  # another store opened meanwhile; or done already
                return
            done.append(True)
            if first_run:
                self.imports.first_run(store)
            self.imports.pull()
            if not demo:  # the store is the only copy of what the tools deleted: a copy a day, in the background
                from sessionscope.safety import backup
                run_task(lambda: backup.scheduled(store.url), lambda made: None,
                         lambda exc: self.statusBar().showMessage(f"⚠ The daily backup of the store failed: {exc}",
                                                                  60000), owner=self)

        def when_quiet(fn, after: float, most: float) -> None:
            begun = time.monotonic()

            def check() -> None:
                waited = time.monotonic() - begun
                if self.store is not store or self._closed:  # (a window closed meanwhile starts nothing more)
                    return
                if waited >= after and (quiet_for(self.QUIET_S) or waited >= most):
                    fn()
                else:
                    QTimer.singleShot(100, self, check)
            check()

        model = self.sessions.model

        def listed(count: int) -> None:
            model.sig_loaded.disconnect(listed)
            when_quiet(watch_live, 0.0, self.LIVE_MOST_S)
            if count == 0:
                chores()
            else:
                when_quiet(chores, self.CHORES_S, self.CHORES_MOST_S)
        model.sig_loaded.connect(listed)
        # (a list that failed to load: the states and the chores all the same)
        QTimer.singleShot(int(self.CHORES_MOST_S * 1000), self, lambda: (watch_live(), chores()))

    def _sidebar_filter(self, filters: dict) -> None:
        if filters == HOME:
            self.pages.show_home()
            return
        self.pages.show_browser()
        self.sessions.sidebar_filters = filters
        self.sessions.refilter()

    def _update_actions(self) -> None:
        """Each action enabled by its row's rule for what is chosen; a disabled one's tooltip says why not."""
        self.branch.composer.show_session(self.store, self.session)
        self.branch.run_panel.show_session(self.store, self.session)
        self.imports.managed_sync.follow(self.session)
        self.branch.detail.show_session(self.session)
        self._update_action_states()

    def _update_action_states(self) -> None:
        """The actions' enabled states, tooltips and texts alone (what a change of the list's selection changes)."""
        ctx = self.context()
        for action_id, action in self.qactions.items():
            row = BY_ID[action_id]
            if not (row.needs or row.rule):
                continue
            why = row.refusal(ctx)
            action.setEnabled(why is None)
            action.setToolTip(row.tooltip(why))
            if row.many:  # what it acts on, said in the menu: "Archive (5 sessions)"
                many = f"{row.text.rstrip('…')} ({len(ctx.selected)} sessions){'…' if row.text.endswith('…') else ''}"
                action.setText(many if row.acts_on_many(ctx) else row.text)
                action.setIconText(row.short or row.name)
        self.qactions["session.star"].setChecked(bool(self.session is not None and self.session.starred))
        self.qactions["session.share"].setChecked(bool(self.session is not None and self.session.shared))
        self.qactions["event.pin"].setChecked(getattr(ctx.event, "id", ctx.event) in self.branch.timeline_model.pinned)

    def _busy(self, what: str) -> None:
        """While an action runs: say so, with a busy bar (an import's own bar takes precedence)."""
        self.busy_label.setText(f"{what.capitalize()}…" if what else "")
        self.busy_label.setVisible(bool(what))
        if what:
            QGuiApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        elif QGuiApplication.overrideCursor() is not None:
            QGuiApplication.restoreOverrideCursor()

    def _report_worker_error(self, exc: BaseException) -> None:
        """A worker's error no caller handled: said in the status bar, its trace on stderr."""
        if not shiboken6.isValid(self):
            return
        trace = getattr(exc, "__sessionscope_trace__", "")
        if trace:
            print(trace, file=sys.stderr)
        text = str(exc)
        if "malformed" in text or "store file is damaged" in text:  # said once, with what to do
            self.statusBar().showMessage("⚠ The store is damaged: sessionscope repair rebuilds it", 0)
            if not self._said_damaged:
                self._said_damaged = True
                from sessionscope.store.db import DAMAGED_ADVICE
                advice = text if "store file is damaged" in text else DAMAGED_ADVICE.format(problem="SQLite: " + text)
                QMessageBox.warning(self, "The store is damaged",
                                    f"{advice[0].upper()}{advice[1:]}.\n\nRun in a terminal, with this window closed:\n"
                                    f"  sessionscope --store {self.store.url.removeprefix('sqlite:///')} repair")
            return
        self.statusBar().showMessage(f"⚠ Something failed in the background: {type(exc).__name__}: {exc}", 20000)

    def _error(self, what: str):
        return failure_box(self, what)

    def closeEvent(self, event) -> None:
        s = QSettings()
        save_geometry(self, self._splits())
        if not self._quitting and self.notifier.keeps_running():  # the tray keeps watching the agents
            QApplication.setQuitOnLastWindowClosed(False)
            event.ignore()
            self.hide()
            if not s.value("notify/told_tray", False, type=bool):
                s.setValue("notify/told_tray", True)
                self.notifier.notify(None, "Sessionscope is still running", "It tells you here when an agent "
                                     "needs you; Quit from the tray icon's menu ends it")
            return
        self._closed = True
        self.imports.stop()
        self.embeds.close()
        self.syncs.close()
        self.branch.replay.stop()
        self.live.stop()
        self.sessions.model.stop()
        super().closeEvent(event)

    def bring_forward(self) -> None:
        """The window, shown and raised (from the tray, or a notification's click)."""
        self.showNormal()
        self.raise_()
        self.activateWindow()

    def quit_app(self) -> None:
        """Quit for good, the tray icon too (the tray's Quit; File ▸ Quit closes the window, which may stay)."""
        self._quitting = True
        self.close()
        QApplication.quit()

    def _splits(self) -> dict:
        """The splitters whose sizes the window remembers, by the names they were always saved under."""
        return {"main_split": self.main_split, "center": self.center, "right": self.branch.right,
                "bottom": self.branch.bottom}
