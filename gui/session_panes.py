"""What the window shows, and keeps true: the session list drives the timeline, tree and detail panes;
what they show is what the actions act on, and changes an action reports refresh them (a mixin of
MainWindow, which owns the views)."""

from __future__ import annotations

import html

from PySide6.QtCore import QItemSelectionModel

from sessionscope import ops
from sessionscope.untrusted import printable

from .session_model import money
from .workers import run_task

HIDDEN_KINDS = ("progress", "meta", "checkpoint")  # a prompt row shows its turn's files instead


class SessionPanes:
    """Needs the MainWindow's views, store and actions; runs on the UI thread."""

    def _sessions_loaded(self, rows: int) -> None:
        importing = self.job.running and not self.job.quiet  # sessions are on their way: never "No sessions yet"
        empty = rows == 0 and not self.filter.text() and not self.sidebar_filters and not importing
        self.list_stack.setCurrentWidget(self.empty if empty else self.list_stack.widget(0))
        row = self.sessions_model.row_of(self.session.id) if self.session is not None else -1
        if row < 0 and rows:
            row = 0  # the session shown is no longer listed (a filter, a delete): the panes follow the list
        if row >= 0:
            self.sessions_view.selectionModel().setCurrentIndex(
                self.sessions_model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            self._session_selected(self.sessions_model.index(row, 0))
        else:
            self.clear_panes()  # nothing listed: nothing shown, and nothing for an action to hit

    def clear_panes(self) -> None:
        """No session: the timeline, tree and detail empty, the session's actions off."""
        self.session = None
        self._branch_gen.next()
        self.timeline_model.show_ids(self.store, [])
        self.timeline_label.setText("(no session)")
        self.tree.tree_model.set_layout(None)
        self.tree_session = None
        self.detail.show_event(self.store, None)
        self._update_actions()

    def _selection_changed(self, *_):
        """What is highlighted is what the panes show: when the current row leaves the selection
        (Ctrl+click), the last selected row becomes current; a current row outside it joins it."""
        sm = self.sessions_view.selectionModel()
        current = self.sessions_view.currentIndex()
        selected = sorted(i.row() for i in sm.selectedRows())
        if current.isValid() and current.row() not in selected:
            if selected:
                sm.setCurrentIndex(self.sessions_model.index(selected[-1], 0),
                                   QItemSelectionModel.SelectionFlag.NoUpdate)
            else:
                sm.select(current, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)

    def _session_selected(self, current, _previous=None) -> None:
        s = self.sessions_model.session_at(current.row())
        if s is None:
            return
        sm = self.sessions_view.selectionModel()
        if not sm.isRowSelected(current.row(), current.parent()):  # Ctrl+Home, Ctrl+End: it joins the selection
            sm.select(current, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
        if self.session is None or s.id != self.session.id or s.event_count != self.session.event_count:
            same = self.session is not None and s.id == self.session.id
            self.session = s
            # the tree follows once the timeline shows; new events in the same session keep the reader's place
            self.show_branch(s.head_event_id, self._kept_event() if same else None)
        self.session = s
        self._update_actions()

    def open_session(self, session_id: str, event_id: str | None = None) -> None:
        row = self.sessions_model.row_of(session_id)
        if row < 0:  # filtered out or archived: show everything
            self.sidebar_filters = {}
            self.filter.clear()
            self.qactions["view.show_archived"].setChecked(True)
            self._filters_changed()
            self._pending_open = (session_id, event_id)
            self.sessions_model.sig_loaded.connect(self._open_pending)
            return
        self.sessions_view.selectRow(row)
        if event_id:
            self.show_branch(self.sessions_model.session_at(row).head_event_id, event_id)

    def _open_pending(self, _rows: int) -> None:
        self.sessions_model.sig_loaded.disconnect(self._open_pending)
        session_id, event_id = self._pending_open
        if self.sessions_model.row_of(session_id) >= 0:
            self.open_session(session_id, event_id)

    def show_branch(self, head: str | None, select_event: str | None) -> None:
        """Show the branch through `head` in the timeline; select an event in it."""
        token = self._branch_gen.next()
        store, session = self.store, self.session
        self.shown_head = head  # the tip of the branch shown (what Compare sets against the head)
        if store is None or session is None or head is None:
            self.timeline_model.show_ids(store, [])
            self.timeline_label.setText("(no events)")
            self.branch_label = ""
            return

        # the head branch comes from the outline cache; any other branch is the branch up to `head`
        up_to = None if head == session.head_event_id else head

        def load():
            return store.branch_outline(session.id, up_to, HIDDEN_KINDS, include_subagents=True)
        run_task(load, lambda r: self._branch_loaded(token, head, select_event, r), self._error("show the branch"), owner=self)

    def _branch_loaded(self, token, head, select_event, outline) -> None:
        if not self._branch_gen.current(token):
            return
        # new events of the session shown are followed when the user sits on the last one; another session
        # opens at its start, wherever the last one was left (a click meant for the first rows lands there)
        same = getattr(self, "_timeline_session", None) == self.session.id
        at_end = same and self._timeline_at_end()
        self._timeline_session = self.session.id
        ids = outline.ids
        self.timeline_model.show_outline(self.store, ids, outline.kinds, outline.turn_tokens,
                                         sidechain=outline.sidechain)
        branch = "head branch" if head == self.session.head_event_id else "another branch"
        title = printable(self.session.title or self.session.id[:8])  # a bidi override shown, not obeyed
        title = title if len(title) <= 60 else title[:59] + "…"
        total = self.session.event_count
        shown = f"{len(ids):,} of {total:,} events" if total > len(ids) else f"{len(ids):,} events"
        label = f"<b>{html.escape(title)}</b> · {shown} · {branch}"  # short: the pane is narrow
        about = [x for x in (self.session.model, f"⎇ {self.session.git_branch}" if self.session.git_branch else "",
                             money(self.sessions_model.cost_of(self.session.id))
                             if self.sessions_model.cost_of(self.session.id) is not None else "") if x]
        if about:
            label += " · " + html.escape(" · ".join(about))
        self.timeline_label.setText(label)
        self.timeline_label.setToolTip(
            f"The timeline shows one branch: {len(ids):,} events. The session holds {total:,}: the others are on "
            "other branches (rewinds, edits), or are facts and bookkeeping lines (progress, snapshots) kept but "
            "not shown." if total > len(ids) else "")
        self.branch_label = label
        session_id = self.session.id
        # tips and branch points read the whole session: they follow the rows, they do not hold them up
        store = self.store
        run_task(lambda: (store.branch_points(session_id), ops.changed_files(store, session_id)),
                 lambda r: self._branch_marks_loaded(token, label, *r), self._marks_failed(token), owner=self)
        rows = self.timeline_model.rowCount()
        found = self.timeline_model.row_of(select_event) if select_event else -1
        target = found if found >= 0 else (rows - 1 if at_end else 0)
        if rows:
            self.timeline.selectRow(target)
            self.timeline.scrollTo(self.timeline_model.index(target, 0))
        self.sig_timeline_ready.emit()
        if self.tree_session != self.session.id or self.tree_stale:
            self._load_tree()

    def _marks_failed(self, token):
        def failed(exc: BaseException) -> None:
            from sessionscope.errors import NotFound
            # the session went away meanwhile (deleted, purged): the marks no longer matter
            if self._branch_gen.current(token) and not isinstance(exc, NotFound):
                self._error("mark the branch points")(exc)
        return failed

    def _branch_marks_loaded(self, token, label: str, marks: dict, files: dict) -> None:
        if not self._branch_gen.current(token):
            return
        self.timeline_model.set_fork_points(marks)
        self.timeline_model.set_changed_files(files)
        self.tree.set_changed_files(files)

    def _kept_event(self) -> str | None:
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
        self.detail.show_event(self.store, e)
        self._update_actions()

    def _load_tree(self) -> None:
        store, session = self.store, self.session
        self.tree_session, self.tree_stale = session.id, False
        run_task(lambda: store.tree(session.id), lambda layout: self._tree_loaded(session.id, layout),
                 self._error("draw the branch tree"), owner=self)

    def _tree_loaded(self, session_id: str, layout) -> None:
        """The tree, and in the header the branches a person would call branches: its lanes (a reply's
        parallel tool calls are not branches; a rewind, an edited prompt, a fork are)."""
        self.tree.tree_model.set_layout(layout)
        if self.session is not None and self.session.id == session_id and layout is not None and layout.lanes > 1:
            self.timeline_label.setText(f"{self.branch_label} · {layout.lanes} branches")

    def apply_changes(self, changes) -> None:
        """One place reacts to what an operation changed."""
        if changes.session is not None and changes.action in ("fork", "rewind") and changes.session.id != (
                self.session.id if self.session else None):
            self.session = changes.session
        elif changes.session is not None and self.session is not None and changes.session.id == self.session.id:
            self.session = changes.session
        if changes.session_list:
            self.sessions_model.reload()
            self.sidebar.refresh()
        if self.session is not None and changes.action in ("delete", "purge") and self.session.id in changes.session_ids:
            self.clear_panes()  # the list reloads and picks what to show next
        elif self.session is not None and self.session.id in changes.session_ids:
            store, sid = self.store, self.session.id
            run_task(lambda: store.session(sid), self._session_refreshed, self._refresh_failed, owner=self)
        self._update_actions()

    def _refresh_failed(self, exc: BaseException) -> None:
        from sessionscope.errors import NotFound
        if isinstance(exc, NotFound):  # it went away meanwhile (deleted elsewhere, purged): show nothing of it
            self.clear_panes()
            self.sessions_model.reload()
        else:
            self._error("refresh the session")(exc)

    def _session_refreshed(self, session) -> None:
        """The session changed (new events, a rewind): show its branch as it is now."""
        if self.session is None or session.id != self.session.id:
            return
        self.session = session
        self.tree_stale = True
        self.show_branch(session.head_event_id, self._kept_event())
        self._update_actions()
