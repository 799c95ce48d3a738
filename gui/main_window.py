"""The main window: only assembles the parts and routes selections and Changes between them."""

from __future__ import annotations

import dataclasses
import sys

import shiboken6
from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from . import menus
from .action_table import Context
from .detail_view import EventDetail
from .jobs import ImportJob, SourceWatcher
from .managed_panel import Composer, ManagedSync
from .reader_view import ReaderView
from .session_actions import SessionActions
from .session_model import SessionTableModel
from .session_panes import SessionPanes
from .sidebar import Sidebar
from .timeline_model import TimelineModel
from .tree_view import BranchTreeView
from .window_commands import WindowCommands
from .workers import Generation, run_task, set_error_reporter


class MainWindow(SessionPanes, WindowCommands, QMainWindow):
    """Threading: everything here runs on the UI thread; store work goes through run_task."""

    sig_timeline_ready = Signal()

    def __init__(self):
        super().__init__()
        self.setWindowTitle("Sessionscope")
        self.store = None
        self.session = None
        self.branch_label = ""  # the timeline header before the tree's branch count joins it
        self.import_problems: list[dict] = []  # the last import's problems (File ▸ Import Problems…)
        self.tree_session, self.tree_stale = None, False
        self.usage_view = None  # View ▸ Usage and Cost, once opened
        self._branch_gen = Generation()
        self.actions_ = SessionActions(self)
        self.actions_.sig_changes.connect(self.apply_changes)
        self.actions_.sig_message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.actions_.sig_busy.connect(self._busy)
        self.qactions = menus.build(self, self._triggered)
        set_error_reporter(self._report_worker_error)
        self._build_views()
        self._build_menus()
        self.job = ImportJob(self)
        self.job.sig_progress.connect(self._progress)
        self.job.sig_tick.connect(self._import_tick)
        self.job.sig_finished.connect(self._import_finished)
        self.job.sig_failed.connect(lambda exc: (self._progress_done(), QMessageBox.warning(
            self, "Import failed", f"{exc}\n\nWhat was imported before the failure is kept.")))
        self.watcher = SourceWatcher(self.job, self)
        self.watcher.sig_store_changed.connect(self.apply_changes)
        self.managed_sync = ManagedSync(self)
        self.managed_sync.sig_problem.connect(lambda m: self.statusBar().showMessage(m, 20000))
        self._restore_layout()
        self._update_actions()

    # -- construction -------------------------------------------------------------

    def context(self, **more) -> Context:
        """What the window's actions act on now: the session shown, the event chosen, the branch shown."""
        return Context(**{"session": self.session, "event": self.detail.current_event,
                          "rows": self.timeline_model.rowCount() > 0, "demo": getattr(self, "is_demo", False),
                          "shown_head": getattr(self, "shown_head", None), **more})

    def _triggered(self, row, checked: bool) -> None:
        self.run_action(row, self.context(checked=checked))

    def run_action(self, row, ctx: Context) -> None:
        """Run a row of the action table in `ctx`; an event known by its id alone (a tree node's) is read first,
        on a worker."""
        if row.needs == "event" and isinstance(ctx.event, str):
            store = self.store
            run_task(lambda: store.event(ctx.event), lambda e: row.run(self, dataclasses.replace(ctx, event=e)),
                     self._error("read the event"), owner=self)
            return
        row.run(self, ctx)

    def _build_views(self) -> None:
        self.sidebar = Sidebar()
        self.sidebar.sig_filter.connect(self._sidebar_filter)
        self.sidebar_filters: dict = {}

        self.sessions_model = SessionTableModel(self)
        self.sessions_model.sig_loaded.connect(self._sessions_loaded)
        self.sessions_view = _table(self.sessions_model, sortable=True)
        # several sessions can be selected for an export; the current one is what the other views show
        self.sessions_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.sessions_view.selectionModel().currentRowChanged.connect(self._session_selected)
        self.sessions_view.selectionModel().selectionChanged.connect(self._selection_changed)
        _fit_columns(self.sessions_view, stretch=0, stretch_width=210)
        self.filter = QLineEdit(placeholderText="Filter sessions (title, id, project)")
        self.filter.setClearButtonEnabled(True)
        self._filter_timer = QTimer(self, singleShot=True, interval=200)
        self._filter_timer.timeout.connect(self._filters_changed)
        self.filter.textChanged.connect(lambda: self._filter_timer.start())
        self.status_filter = QComboBox()
        self.status_filter.addItems(["any status", "active", "idle", "paused", "closed", "running", "terminated"])
        self.status_filter.currentIndexChanged.connect(self._filters_changed)
        list_box = QWidget()
        lay = QVBoxLayout(list_box)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.filter)
        row.addWidget(self.status_filter)
        lay.addLayout(row)
        lay.addWidget(self.sessions_view)

        self.empty = QWidget()
        empty_lay = QVBoxLayout(self.empty)
        empty_lay.addStretch()
        msg = QLabel("<h2>No sessions yet</h2><p>Sessionscope looks for the sessions of Claude Code, Codex CLI, "
                     "Gemini CLI and Cline where those tools keep them. A LangGraph or Agents SDK database, an "
                     "Aider repository or OpenHands trajectories come in with Import; Anthropic managed-agent "
                     "sessions from a workspace you add in Settings.</p>")
        msg.setAlignment(Qt.AlignmentFlag.AlignCenter)
        msg.setWordWrap(True)  # unwrapped, its width became the session list's minimum and squeezed the timeline
        empty_lay.addWidget(msg)
        for text, slot in (("Scan for sessions", self.scan), ("Import a folder…", self.import_folder),
                           ("Open the demo store", self.open_demo)):
            b = QPushButton(text)
            b.clicked.connect(slot)
            b.setObjectName(text)
            empty_lay.addWidget(b, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_lay.addStretch()
        self.list_stack = QStackedWidget()
        self.list_stack.addWidget(list_box)
        self.list_stack.addWidget(self.empty)

        self.timeline_model = TimelineModel(self)
        self.timeline_model.sig_page_loaded.connect(self._page_loaded)
        self.timeline = _table(self.timeline_model)
        _fit_columns(self.timeline, stretch=3, fixed={2: 96})  # "agent explore-1" must not take the Text's width
        self.timeline.selectionModel().currentRowChanged.connect(self._event_selected)
        self.timeline_label = QLabel("")
        self.timeline_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.timeline_label.setWordWrap(True)  # a long header takes a second line instead of running under the find box
        self.find_edit = QLineEdit(placeholderText="Find in session")
        self.find_edit.setMaximumWidth(200)  # the header beside it is the session's title
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.returnPressed.connect(self.find_next)
        tl_box = QWidget()
        lay = QVBoxLayout(tl_box)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.timeline_label, 1)
        row.addWidget(self.find_edit)
        lay.addLayout(row)
        # the reader is the same branch as cards; the table keeps the selection both follow
        self.reader = ReaderView(self.timeline_model)
        self.reader.sig_event_chosen.connect(self._reader_chose)
        self.timeline.selectionModel().currentRowChanged.connect(
            lambda index: self.reader.follow(index.row()))
        self.find_edit.textChanged.connect(lambda text: text.strip() or self.reader.set_needle(""))
        self.timeline_stack = QStackedWidget()
        self.timeline_stack.addWidget(self.timeline)
        self.timeline_stack.addWidget(self.reader)
        lay.addWidget(self.timeline_stack, 1)
        self.composer = Composer()  # only for a managed-agent session
        self.composer.sig_changes.connect(self.apply_changes)
        self.composer.sig_message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        lay.addWidget(self.composer)

        self.tree = BranchTreeView()
        self.tree.sig_show_branch.connect(self.show_branch)
        self.tree.sig_open_session.connect(lambda sid: self.open_session(sid))
        self.tree.sig_menu.connect(self._tree_menu)
        self.tree.sig_fork_menu.connect(self._tree_fork_menu)
        self.detail = EventDetail()

        self.bottom = QSplitter(Qt.Orientation.Horizontal)
        self.bottom.addWidget(self.tree)
        self.bottom.addWidget(self.detail)
        self.right = QSplitter(Qt.Orientation.Vertical)
        self.right.addWidget(tl_box)
        self.right.addWidget(self.bottom)
        self.center = QSplitter(Qt.Orientation.Horizontal)
        self.center.addWidget(self.list_stack)
        self.center.addWidget(self.right)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(self.sidebar)
        self.main_split.addWidget(self.center)
        for split in (self.main_split, self.center, self.right, self.bottom):
            split.setChildrenCollapsible(False)  # a pane dragged too far stops at its minimum, never vanishes
        self.sessions_view.setMinimumWidth(260)
        self.main_split.setSizes([190, 1200])
        self.center.setSizes([600, 650])
        self.right.setSizes([430, 300])
        self.bottom.setSizes([330, 400])
        self.setCentralWidget(self.main_split)

        self.progress = QProgressBar(maximumWidth=220)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(lambda: self.job.cancel())
        self.busy_label = QLabel("")  # what a running action is doing (fork, rewind, delete …)
        self.busy_label.setObjectName("busy-label")
        for w in (self.busy_label, self.progress, self.cancel_button):
            w.hide()
            self.statusBar().addPermanentWidget(w)

    def _build_menus(self) -> None:
        """Everything that acts comes from the action table (gui/action_table.py) through gui/menus.py."""
        from . import theme
        a = self.qactions
        a["timeline.fold"].setChecked(QSettings().value("timeline/fold", True, type=bool))
        self.timeline_model.folded = a["timeline.fold"].isChecked()
        a["view.reader"].setChecked(QSettings().value("timeline/reader", False, type=bool))
        self.timeline_stack.setCurrentWidget(self.reader if a["view.reader"].isChecked() else self.timeline)
        a[f"view.theme.{theme.saved()}"].setChecked(True)
        self.timeline.doubleClicked.connect(lambda index: self.toggle_pair(index.row()))
        menus.install_menus(self, a)
        bar = self.addToolBar("Main")
        bar.setObjectName("main-toolbar")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)  # an icon alone is a guess
        menus.fill(bar, "toolbar", a)
        for widget, place in ((self.sessions_view, "sessions"), (self.timeline, "timeline"), (self.reader, "reader"),
                              (self.composer.edit, "composer")):
            widget.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
            menus.fill(widget, place, a)

    # -- store and data -----------------------------------------------------------

    def set_store(self, store, first_run: bool = True, demo: bool = False) -> None:
        """Show `store`; on a first run, import the known places (never into the demo store). The demo
        store says so in the title, and File ▸ Back to Your Store leaves it."""
        self.store, self.is_demo = store, demo
        self.setWindowTitle("Sessionscope — demo store (made-up sessions, not yours)" if demo else "Sessionscope")
        self._update_actions()
        if demo:
            self.statusBar().showMessage("This is the demo store: File ▸ Back to Your Store returns to your sessions",
                                         15000)
        else:
            from sessionscope.privacy import exposure
            warning = exposure(store.url)
            if warning:
                self.statusBar().showMessage(f"⚠ {warning[0].upper()}{warning[1:]}", 60000)
            elif self.statusBar().currentMessage().startswith("⚠ The store"):
                self.statusBar().clearMessage()  # fixed since it was said
        self.actions_.store = store
        self.sessions_model.set_store(store)
        self.sidebar.set_store(store)
        self.watcher.watch(store)
        self.managed_sync.watch(store)
        if self.usage_view is not None:
            self.usage_view.store = store
            self.usage_view.refresh()
        if first_run:
            run_task(lambda: _first_run_roots(store), self._first_run, owner=self)
        if not demo:  # the store is the only copy of what the tools deleted: a copy a day, in the background
            from sessionscope import backup
            run_task(lambda: backup.scheduled(store.url), lambda made: None,
                     lambda exc: self.statusBar().showMessage(f"⚠ The daily backup of the store failed: {exc}", 60000),
                     owner=self)

    def _first_run(self, roots) -> None:
        """First run on a store: import the known places with a progress bar, then watch them."""
        if roots:
            self.statusBar().showMessage("Importing your agents' sessions; browse while it runs", 10000)
            if self.job.start(self.store, roots):
                self.list_stack.setCurrentWidget(self.list_stack.widget(0))  # they are on their way

    def _sidebar_filter(self, filters: dict) -> None:
        self.sidebar_filters = filters
        self._filters_changed()

    def _filters_changed(self, *_):
        filters = dict(self.sidebar_filters)
        status = self.status_filter.currentText()
        if status != "any status":
            filters["status"] = status
        filters["text"] = self.filter.text().strip()
        filters["include_archived"] = self.qactions["view.show_archived"].isChecked()
        self.sessions_model.set_filters(**filters)

    def _update_actions(self) -> None:
        """Each action enabled by its row's rule for what is chosen; a disabled one's tooltip says why not."""
        from .action_table import BY_ID
        self.composer.show_session(self.store, self.session)
        self.managed_sync.follow(self.session)
        self.detail.show_session(self.session)
        ctx = self.context()
        for action_id, action in self.qactions.items():
            row = BY_ID[action_id]
            if not (row.needs or row.rule):
                continue
            why = row.refusal(ctx)
            action.setEnabled(why is None)
            action.setToolTip(row.tip or row.text.replace("&", "").rstrip("…") if why is None else
                              f"{row.text.replace('&', '').rstrip('…')}: not now ({why})")

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
            if not getattr(self, "_said_damaged", False):
                self._said_damaged = True
                from sessionscope.db import DAMAGED_ADVICE
                advice = text if "store file is damaged" in text else DAMAGED_ADVICE.format(problem="SQLite: " + text)
                QMessageBox.warning(self, "The store is damaged",
                                    f"{advice[0].upper()}{advice[1:]}.\n\nRun in a terminal, with this window closed:\n"
                                    f"  sessionscope --store {self.store.url.removeprefix('sqlite:///')} repair")
            return
        self.statusBar().showMessage(f"⚠ Something failed in the background: {type(exc).__name__}: {exc}", 20000)

    def _error(self, what: str):
        return lambda exc: QMessageBox.warning(self, f"Could not {what}", str(exc))

    # -- layout memory ----------------------------------------------------------------

    def _restore_layout(self) -> None:
        s = QSettings()
        geometry = s.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1440, 860)
        for name in ("main_split", "center", "right", "bottom"):
            state = s.value(f"window/{name}")
            if isinstance(state, QByteArray):
                getattr(self, name).restoreState(state)

    def closeEvent(self, event) -> None:
        s = QSettings()
        s.setValue("window/geometry", self.saveGeometry())
        for name in ("main_split", "center", "right", "bottom"):
            s.setValue(f"window/{name}", getattr(self, name).saveState())
        self.watcher.stop()
        self.managed_sync.stop()
        self.sessions_model.stop()
        self.job.cancel()
        super().closeEvent(event)


def _first_run_roots(store) -> list:
    """The default places, if this store has never imported from any of them."""
    from sessionscope.sources.importing import default_roots

    known = set(store.source_locations())
    roots = default_roots()
    return [] if any(str(r) in known for r in roots) else roots


def _fit_columns(view: QTableView, stretch: int, stretch_width: int = 0, fixed: dict[int, int] | None = None) -> None:
    """The others fit their contents (measured on the rows in view) whenever the rows are replaced or
    added; `stretch` takes the rest. With `stretch_width` the column starts that wide and the user
    resizes it instead; `fixed` columns start at their width and are never fitted.

    Fitted by hand rather than with ResizeToContents, which measures again on every dataChanged: a
    cost column priced a batch at a time in a list of 20,000 sessions held the UI for 30 ms a batch.
    """
    header, fixed = view.horizontalHeader(), fixed or {}
    header.setResizeContentsPrecision(50)
    count = view.model().columnCount()
    fitted = [c for c in range(count) if c != stretch and c not in fixed]
    for col in range(count):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
    for col, width in fixed.items():
        header.resizeSection(col, width)
    due: set[int] = set()  # the columns to measure on the next turn of the event loop

    def fit() -> None:
        for c in sorted(due):
            view.resizeColumnToContents(c)
        due.clear()
    refit = QTimer(view, singleShot=True, interval=0, timeout=fit)

    def columns(first: int, last: int) -> None:
        due.update(c for c in fitted if first <= c <= last)
        refit.start()
    for signal in (view.model().modelReset, view.model().rowsInserted, view.model().layoutChanged):
        signal.connect(lambda *_: columns(0, count - 1))
    # changed cells (a cost priced) measure only their own columns
    view.model().dataChanged.connect(lambda tl, br, *_: columns(tl.column(), br.column()))
    if stretch_width:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(stretch, stretch_width)
    else:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)


def _table(model, sortable: bool = False) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.setShowGrid(False)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    if sortable:
        view.setSortingEnabled(True)
        view.sortByColumn(4, Qt.SortOrder.DescendingOrder)
    return view
