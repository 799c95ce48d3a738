"""The session list: the filter box and status filter over the table of sessions (keyset-paged,
sessionscope.gui.sessions.session_model), or, in a store with none yet, what to do about it. It says which session
is current (`sig_chosen`) or that none is listed (`sig_none`); the window wires it to the branch pane."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sessionscope.gui.sessions.session_model import COLUMNS, SessionTableModel
from sessionscope.gui.window.tables import fit_columns, table
from sessionscope.live.words import LABELS, MARKS, STATES

# the states the Status column shows (sessionscope.live.words), then the one a tool keeps of its own (paused)
STATUSES = [("any state", {}), *((f"{MARKS[s]} {LABELS[s]}", {"live": s}) for s in STATES),
            ("paused", {"status": "paused"})]
EMPTY = ("<h2>No sessions yet</h2><p>Sessionscope looks for the sessions of Claude Code, Codex CLI, Gemini CLI, "
         "Cursor, Copilot, Cline, OpenCode and thirty more agents where those tools keep them (Help&nbsp;▸&nbsp;Manual lists "
         "them). A LangGraph or Agents SDK database, an Aider repository or OpenHands "
         "trajectories come in with Import; sessions behind an API (Anthropic managed agents) from a workspace you "
         "add in Settings.</p>")


class SessionListPane(QStackedWidget):
    sig_chosen = Signal(object)  # the current session (a SessionView)
    sig_none = Signal()  # nothing is listed: nothing to show, nothing for an action to hit
    sig_tags_edited = Signal(object, list)  # a Tags cell typed in: (the SessionView, all its tags)

    def __init__(self, archived_action, empty_actions=(), parent=None):
        """`archived_action`: View ▸ Show Archived (checked: archived sessions are listed too); `empty_actions`:
        the actions (from the action table) offered as buttons while the store is empty."""
        super().__init__(parent)
        self.sidebar_filters: dict = {}  # what the sidebar or the Usage view chose
        self.archived_action = archived_action
        self.importing = lambda: False  # a user's import is on its way: never "No sessions yet" meanwhile
        self._pending = None
        self.shown: str | None = None  # the session the window shows (the window keeps it current here)
        self.model = SessionTableModel(self)
        self.model.sig_loaded.connect(self._loaded)
        # newest activity first (as `sessionscope list`); a header click sorts by another column
        self.view = table(self.model, sort_column=[c[0] for c in COLUMNS].index("updated"))
        self.known_tags = lambda: []  # the tags in use, most used first (the window hands the sidebar's counts)
        self.model.sig_tags_edited.connect(self.sig_tags_edited)
        from sessionscope.gui.sessions.tag_edit import TagsDelegate
        self.view.setItemDelegateForColumn(next(i for i, c in enumerate(COLUMNS) if c[0] == "tags"),
                                           TagsDelegate(lambda: self.known_tags(), self.view))
        # only the Tags cell edits; F2 stays the window's Rename
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked)
        # several sessions can be selected for an export; the current one is what the other views show
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        header = self.view.horizontalHeader()  # its menu: which columns the list shows (remembered)
        header.sortIndicatorChanged.connect(self._sort_shown)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._columns_menu)
        self.narrow = False  # the layout's narrow column of titles hides the rest, whatever is chosen here
        self.show_columns()
        self.view.setMinimumWidth(260)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a title's end (its issue, its file) stays in sight
        fit_columns(self.view, stretch=0, stretch_width=210)
        self.filter = QLineEdit(placeholderText="Filter sessions (title, id, project)")
        self.filter.setClearButtonEnabled(True)
        self._filter_timer = QTimer(self, singleShot=True, interval=200)
        self._filter_timer.timeout.connect(self.refilter)
        self.filter.textChanged.connect(lambda: self._filter_timer.start())
        self.status_filter = QComboBox()
        self.status_filter.addItems([words for words, _f in STATUSES])
        self.status_filter.setToolTip("Only the sessions in this state, as the Status column shows it")
        self.status_filter.currentIndexChanged.connect(self.refilter)
        listed = QWidget()
        lay = QVBoxLayout(listed)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.filter)
        row.addWidget(self.status_filter)
        lay.addLayout(row)
        lay.addWidget(self.view)

        self.empty = QWidget()
        empty_lay = QVBoxLayout(self.empty)
        empty_lay.addStretch()
        msg = QLabel(EMPTY)
        msg.setAlignment(Qt.AlignmentFlag.AlignCenter)
        msg.setWordWrap(True)  # unwrapped, its width became the session list's minimum and squeezed the timeline
        empty_lay.addWidget(msg)
        buttons = []
        for action in empty_actions:  # the table's own actions, as buttons
            b = QToolButton()
            b.setDefaultAction(action)
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            b.setObjectName(f"empty.{action.objectName()}")
            empty_lay.addWidget(b, 0, Qt.AlignmentFlag.AlignHCenter)
            buttons.append(b)
        for b in buttons:  # one column of equal buttons
            b.setMinimumWidth(max(x.sizeHint().width() for x in buttons) + 24)
        empty_lay.addStretch()
        self.listed = listed
        self.addWidget(listed)
        self.addWidget(self.empty)

    def set_store(self, store) -> None:
        self.model.set_store(store)

    def hidden_columns(self) -> set[str]:
        return set(QSettings().value("list/hidden_columns", [], type=list) or [])

    def show_columns(self, narrow: bool | None = None) -> None:
        """The columns chosen in the header's menu; in the narrow list, the titles and their tools alone."""
        if narrow is not None:
            self.narrow = narrow
        hidden = self.hidden_columns()
        for col, (key, _title, _sort) in enumerate(COLUMNS):
            self.view.setColumnHidden(col, key not in ("title", "source") if self.narrow else key in hidden)

    def _columns_menu(self, pos) -> None:
        from PySide6.QtWidgets import QMenu

        menu, hidden = QMenu(self), self.hidden_columns()
        for key, title, _sort in COLUMNS[1:]:  # the title always shows
            action = menu.addAction(title)
            action.setCheckable(True)
            action.setChecked(key not in hidden)
            action.toggled.connect(lambda on, key=key: self.set_column_shown(key, on))
        menu.popup(self.view.horizontalHeader().mapToGlobal(pos))

    def set_column_shown(self, key: str, on: bool) -> None:
        hidden = self.hidden_columns() - {key} if on else self.hidden_columns() | {key}
        QSettings().setValue("list/hidden_columns", sorted(hidden))
        self.show_columns()

    def refilter(self, *_) -> None:
        filters = dict(self.sidebar_filters)
        filters |= STATUSES[max(0, self.status_filter.currentIndex())][1]
        filters["text"] = self.filter.text().strip()
        filters["include_archived"] = self.archived_action.isChecked()
        self.model.set_filters(**filters)

    def filters_state(self) -> dict:
        """What the user filters the list by (the text, the status, the sidebar's entry, archived shown)."""
        return {"text": self.filter.text(), "status": self.status_filter.currentIndex(),
                "sidebar": dict(self.sidebar_filters), "archived": self.archived_action.isChecked()}

    def set_filters_state(self, state: dict) -> None:
        """Filter by `state` (from filters_state; {} for none at all but the default status)."""
        self._filter_timer.stop()  # (a refilter still to come would be of the text replaced now)
        for widget in (self.filter, self.status_filter):
            widget.blockSignals(True)
        self.filter.setText(state.get("text", ""))
        self.status_filter.setCurrentIndex(state.get("status", 0))
        for widget in (self.filter, self.status_filter):
            widget.blockSignals(False)
        self.sidebar_filters = dict(state.get("sidebar", {}))
        self.archived_action.setChecked(state.get("archived", False))
        self.refilter()

    def show_everything(self) -> None:
        """No filter of any kind (archived sessions too)."""
        self.sidebar_filters = {}
        self.filter.clear()
        self.archived_action.setChecked(True)
        self.refilter()

    def current(self):
        return self.model.session_at(self.view.currentIndex().row()) if self.view.currentIndex().isValid() else None

    def selected_ids(self) -> list[str]:
        return [s.id for s in self.selected_sessions()]

    def selected_sessions(self) -> list:
        """The selected rows' sessions (SessionViews), in list order."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [self.model.rows[r] for r in rows if r < len(self.model.rows)]

    def select(self, session_id: str) -> bool:
        """Make the session current; False when it is not listed."""
        row = self.model.row_of(session_id)
        if row >= 0:
            self.view.selectRow(row)
        return row >= 0

    def select_when_listed(self, session_id: str, event_id: str | None, then) -> None:
        """List everything, then make the session current and call `then(session_id, event_id)`."""
        self._pending = (session_id, event_id, then)
        self.model.sig_loaded.connect(self._open_pending)
        self.show_everything()

    def _open_pending(self, _rows: int) -> None:
        self.model.sig_loaded.disconnect(self._open_pending)
        session_id, event_id, then = self._pending
        self._pending = None
        if self.model.row_of(session_id) >= 0:
            then(session_id, event_id)

    def keep(self, session_id: str | None) -> None:
        """After the rows changed: the session shown stays current where it is listed, else the first row."""
        rows = self.model.rowCount()
        row = self.model.row_of(session_id) if session_id is not None else -1
        if row < 0 and rows:
            row = 0  # the session shown is no longer listed (a filter, a delete): the panes follow the list
        if row >= 0:
            self.view.selectionModel().setCurrentIndex(
                self.model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            self._current_changed(self.model.index(row, 0))
        else:
            self.sig_none.emit()

    def _loaded(self, rows: int) -> None:
        empty = rows == 0 and not self.filter.text() and not self.sidebar_filters and not self.importing()
        self.setCurrentWidget(self.empty if empty else self.listed)
        self.keep(self.shown)

    def _selection_changed(self, *_):
        """What is highlighted is what the panes show: when the current row leaves the selection
        (Ctrl+click), the last selected row becomes current; a current row outside it joins it."""
        sm = self.view.selectionModel()
        current = self.view.currentIndex()
        selected = sorted(i.row() for i in sm.selectedRows())
        if current.isValid() and current.row() not in selected:
            if selected:
                sm.setCurrentIndex(self.model.index(selected[-1], 0), QItemSelectionModel.SelectionFlag.NoUpdate)
            else:
                sm.select(current, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)

    def _sort_shown(self, column: int, _order) -> None:
        """A column the store cannot sort by (cost, source, the vital signs, …) keeps the arrow on the order the
        rows are in: it moved to Cost while the rows kept their order."""
        if COLUMNS[column][2] is not None:
            return
        header = self.view.horizontalHeader()
        keys = [c[2] for c in COLUMNS]
        order = Qt.SortOrder.DescendingOrder if self.model.descending else Qt.SortOrder.AscendingOrder
        header.blockSignals(True)
        header.setSortIndicator(keys.index(self.model.sort_key), order)
        header.blockSignals(False)

    def _current_changed(self, current, _previous=None) -> None:
        s = self.model.session_at(current.row())
        if s is None or self.model.store is None:  # (the first page, listed before the store is open)
            return
        # Ctrl+Home, Ctrl+End move the current row alone: it joins the selection, once the view is done. Not
        # at once: a Ctrl+click makes its row current before it toggles it, and a row selected here was then
        # toggled off again (Ctrl+click never added a row to the selection)
        QTimer.singleShot(0, self, self._join_current)
        self.sig_chosen.emit(s)

    def _join_current(self) -> None:
        current, sm = self.view.currentIndex(), self.view.selectionModel()
        if current.isValid() and not sm.isRowSelected(current.row(), current.parent()):
            sm.select(current, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
