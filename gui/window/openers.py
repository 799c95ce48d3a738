"""The views and dialogs the window opens (usage, tool outcomes, blame, pins, notes, Needs You, similar sessions,
compare, facts, export, search, settings, sync, about, the manual, the shortcuts, the problems): a part of the window, each
view made once and raised again, over the parts it reads (the list's selection, the session and event shown).
What it asks of the rest of the window goes out as signals: a session to open, the list to filter, a message."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from sessionscope.gui.dialogs.search_dialog import SearchDialog
from sessionscope.gui.jobs.workers import failure_box, run_task
from sessionscope.gui.views.facts_diff import FactsDiffDialog


def present(view) -> None:
    """A view of its own (Usage, Tool Outcomes, …) shown, in front, and taking the keyboard."""
    view.show()
    view.raise_()
    view.activateWindow()


class Openers(QObject):
    """Threading: the UI thread's; what a view reads is read on workers (run_task)."""

    sig_open = Signal(str, str)  # a session to show, at an event ("" for none)
    sig_forward = Signal()  # the window brought forward (a notification's or Needs You's answer)
    sig_filter = Signal(dict, str)  # list only these sessions (the filters), described in words
    sig_message = Signal(str, int)  # for the status bar, and for how long (ms)
    sig_changes = Signal(object)  # what a view's action changed (Fork and Explore's runs and archives)

    def __init__(self, window: QWidget, *, sessions, branch, actions, live, imports, embeds, syncs):
        super().__init__(window)
        self.window = window  # the parent of every view and dialog
        self.sessions, self.branch, self.actions = sessions, branch, actions
        self.live, self.imports, self.embeds, self.syncs = live, imports, embeds, syncs
        self.store = None
        self.usage_view = None  # View ▸ Usage and Cost, once opened
        self.outcomes_view = None  # View ▸ Tool Outcomes, once opened
        self.blame_view = None  # File ▸ Who Wrote This, once opened
        self.pins_view = None  # View ▸ Pins, once opened
        self.notes_view = None  # View ▸ Notes, once opened
        self.needs_you_view = None  # View ▸ Needs You, once opened
        self.compare_view = None  # the newest comparison opened (a second Compare opens another beside it)
        self.shortcuts_dialog = None  # Help ▸ Keyboard Shortcuts, once opened (raised again, not opened twice)
        self.sync_dialog = None  # File ▸ Sync with Team Store, once opened
        self.similar_dialog = None  # Sessions Like This, while it is up
        self.manual_dialog = None  # Help ▸ Manual, once opened
        self.explore_view: QWidget | None = None  # the newest Fork and Explore opened

    def set_store(self, store) -> None:
        """The views made so far show `store` from now on."""
        self.store = store
        if self.needs_you_view is not None:
            self.needs_you_view.store = store
        for view in (self.usage_view, self.outcomes_view, self.blame_view):
            if view is not None:
                view.store = store
                view.refresh()
        for view in (self.pins_view, self.notes_view):
            if view is not None:
                view.store = store
                view.set_session(None)

    def _error(self, what: str):
        return failure_box(self.window, what)

    def show_usage(self) -> None:
        from sessionscope.gui.views.usage_view import UsageView
        if self.store is None:
            return
        if self.usage_view is None:
            self.usage_view = UsageView(self.store, self.window)
            self.usage_view.sig_filter.connect(self.sig_filter.emit)
            self.usage_view.sig_open.connect(lambda sid: self.sig_open.emit(sid, ""))
        else:
            self.usage_view.refresh()
        present(self.usage_view)

    def show_outcomes(self) -> None:
        """View ▸ Tool Outcomes (made once, read again each time it is shown)."""
        from sessionscope.gui.views.outcomes_view import OutcomesView
        if self.store is None:
            return
        if self.outcomes_view is None:
            self.outcomes_view = OutcomesView(self.store, self.window)
            self.outcomes_view.sig_open.connect(lambda sid, eid: self.sig_open.emit(sid, eid or ""))
        self.outcomes_view.refresh()
        present(self.outcomes_view)

    def show_blame(self, path: str | None = None, at_event: str | None = None) -> None:
        """File ▸ Who Wrote This… (made once; a file chosen there, or `path`, its change by `at_event` chosen)."""
        from sessionscope.gui.views.blame_view import BlameView
        if self.store is None:
            return
        if self.blame_view is None:
            self.blame_view = BlameView(self.store, self.window)
            self.blame_view.sig_open.connect(lambda sid, eid: self.sig_open.emit(sid, eid or ""))
        present(self.blame_view)
        if path:
            self.blame_view.show_file(path, at_event)
        elif not self.blame_view.path:
            self.blame_view.choose()

    def show_pins(self) -> None:
        from sessionscope.gui.views.marks_view import PinsView
        self.pins_view = self._show_marks(self.pins_view, PinsView)

    def show_notes(self) -> None:
        from sessionscope.gui.views.marks_view import NotesView
        self.notes_view = self._show_marks(self.notes_view, lambda *a: NotesView(
            *a, edit=self.actions.note_edit, remove=self.actions.note_remove, go_on=self.continue_from_note))

    def show_needs_you(self) -> None:
        """View ▸ Needs You: the sessions that need approval or wait for you, each answered from there."""
        from sessionscope.gui.views.needs_you import NeedsYouView
        if self.store is None:
            return
        if self.needs_you_view is None:
            self.needs_you_view = NeedsYouView(self.store, self.window)
            self.needs_you_view.sig_open.connect(lambda sid: (self.sig_forward.emit(), self.sig_open.emit(sid, "")))
            self.needs_you_view.sig_answer.connect(self.answer_in_its_tool)
        self.needs_you_view.set_states(self.live.states)
        present(self.needs_you_view)

    def answer_in_its_tool(self, session_id: str) -> None:
        """Needs You's Open in Its Tool: the tool's resume in a terminal, as Resume does (asking first when the
        tool still runs the session: a second one would write the same transcript); for an agent behind an API,
        the composer under its timeline."""
        from sessionscope import sources
        session = self.store.session(session_id)
        if sources.of(session.source_kind).remote_home:
            self.sig_forward.emit()
            self.sig_open.emit(session_id, "")
            self.branch.composer.edit.setFocus()
            return
        live = self.live.states.get(session_id)
        if live is not None and live.pid is not None:
            label = sources.of(session.source_kind).label
            asked = QMessageBox.question(
                self.needs_you_view or self.window, "Open in Its Tool",
                f"{label} still runs this session (process {live.pid}): answer it in the terminal it runs in.\n\n"
                f"Open it in a second {label} anyway? Both would write the same transcript.",
                QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
            if asked != QMessageBox.StandardButton.Open:
                return
        self.actions.resume(session)

    def show_similar(self, session) -> None:
        """Sessions like this one (search by meaning), each opened from the list it shows."""
        from sessionscope.gui.dialogs.similar_dialog import SimilarDialog
        if self.store is None or session is None:
            return
        dialog = SimilarDialog(self.store, session, self.window)
        dialog.sig_open.connect(lambda sid: self.sig_open.emit(sid, ""))
        dialog.sig_settings.connect(self.open_settings)
        dialog.show()
        self.similar_dialog = dialog  # (kept while it is up)

    def pin_event(self, session_id: str, event_id: str) -> None:
        """Pin an event found elsewhere than the timeline (a search result), through the same action."""
        if self.store is not None:
            self.actions.pin(session_id, event_id, True)

    def continue_from_note(self, note) -> None:
        """Fork Here and Continue from a note: at its event (a note on the whole session: at the session's head),
        the note checked. Its session and event are read on a worker."""
        store = self.store

        def read():
            s = store.session(note.session_id)
            at = note.event_id or s.head_event_id
            return s, store.event(at) if at else None

        def chosen(found) -> None:
            session, event = found
            if event is None:
                QMessageBox.information(self.window, "Fork Here and Continue", "The session has no event to fork at yet.")
                return
            self.actions.fork_continue(session, event, note.id)
        run_task(read, chosen, self._error("read the note's event"), owner=self)

    def _show_marks(self, view, make):
        """View ▸ Pins or Notes: made once, then shown again (on the session shown now)."""
        if self.store is None:
            return view
        shown = self.branch.session.id if self.branch.session is not None else None
        if view is None:
            view = make(self.store, shown, self.window)
            view.sig_open.connect(lambda sid, eid: self.sig_open.emit(sid, eid or ""))
        else:
            view.set_session(shown)
        present(view)
        return view

    def compare(self) -> None:
        """Ctrl+D: two sessions selected are compared; else a fork with its origin; else the branch shown
        with the session's head; else the newest other branch with the head; else facts at two points."""
        ids = self.selected_session_ids()
        if len(ids) >= 2:
            self.open_compare((ids[0], None), (ids[1], None))
            return
        s = self.branch.session
        if s is None:
            return
        if s.forked_from_session:
            self.open_compare((s.forked_from_session, None), (s.id, None))
            return
        shown = self.branch.shown_head
        if shown and shown != s.head_event_id:
            self.open_compare((s.id, None), (s.id, shown))
            return
        store = self.store
        layout = self.branch.tree_layout()
        head_tip = next((n.tip for n in (layout.nodes if layout else ()) if n.kind == "head"), s.head_event_id)
        lanes = [n.tip for n in (layout.nodes if layout else ()) if not n.fork_session and n.tip
                 and n.tip not in (s.head_event_id, head_tip)]

        def other_tip():  # the tree's other lanes (a rewind, an edited prompt), newest first; else its newest fork
            if layout is not None and lanes:
                return lanes[-1], None
            if layout is None:
                tip = next((leaf for leaf in reversed(store.leaves(s.id)) if leaf != s.head_event_id), None)
                if tip:
                    return tip, None
            forks = store.forks_of(s.id)
            return None, (forks[-1] if forks else None)

        def found(result) -> None:
            tip, fork = result
            if tip:
                self.open_compare((s.id, None), (s.id, tip))
            elif fork:  # a fork or a rewind written as a session of its own (Claude Code's): compared with it
                self.open_compare((s.id, None), (fork, None))
            else:
                self.sig_message.emit("This session has one branch and no fork: pick two points to compare "
                                             "their facts, or select two sessions", 8000)
                self.compare_facts()
        run_task(other_tip, found, self._error("find the branches"), owner=self)

    def open_compare(self, a: tuple[str, str | None], b: tuple[str, str | None]) -> None:
        from sessionscope.gui.views.compare_view import CompareView
        view = CompareView(self.store, a, b, self.window)
        view.sig_open.connect(lambda sid, head: self._open_compared(sid, head))
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.compare_view = view
        view.show()

    def explore(self, session, event) -> None:
        """Fork and Explore from `event`: forks run side by side, then compared, one kept (views/explore_view)."""
        from sessionscope.gui.views.explore_view import ExploreView
        view = ExploreView(self.store, session, event.id, parent=self.window)
        view.sig_changes.connect(self.sig_changes)
        view.sig_compare.connect(self.open_compare)
        view.sig_open.connect(lambda sid: self.sig_open.emit(sid, ""))
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.explore_view = view
        present(view)

    def _open_compared(self, session_id: str, head: str) -> None:
        self.sig_open.emit(session_id, "")
        if head and self.branch.session is not None and self.branch.session.id == session_id:
            self.branch.show_branch(head, head)

    def compare_facts(self, a: str | None = None) -> None:
        if self.branch.session is None:
            return
        points = []
        if self.branch.detail.current_event is not None:
            e = self.branch.detail.current_event
            points.append((f"selected event #{e.seq}: {e.text[:40]}", e.id))
        layout = self.branch.tree.tree_model.layout_
        for node in (layout.nodes if layout else ()):
            if not node.fork_session:
                points.append((f"{node.kind} · {node.label[:50]}", node.id))
        for s in self.sessions.model.rows[:200]:
            if s.head_event_id:
                points.append((f"head of {s.title or s.id[:8]}", s.head_event_id))
        if not points:
            return
        b = self.branch.session.head_event_id
        FactsDiffDialog(self.store, points, a or points[0][1], b, self.window).exec()

    def selected_session_ids(self) -> list[str]:
        ids = self.sessions.selected_ids()
        if self.branch.session is not None and self.branch.session.id not in ids:
            ids = [self.branch.session.id] if not ids else ids
        return ids

    def export_sessions(self, search: str | None = None) -> None:
        from sessionscope.gui.dialogs.export_dialog import ExportDialog

        if self.store is None:
            return
        ids = [] if search else self.selected_session_ids()
        if not ids and not search:
            return
        titles = {r.id: r.title for r in self.sessions.model.rows if r.id in set(ids)}
        if self.branch.session is not None:
            titles.setdefault(self.branch.session.id, self.branch.session.title)
        ExportDialog(self.store, self.window, session_ids=ids, search=search, titles=titles).exec()

    def tree_export(self, e) -> None:
        """Export the branch from the root to a tree node's event (it need not be on the timeline)."""
        self._export_to(e)

    def export_branch(self) -> None:
        e = self.branch.detail.current_event
        if self.store is None or self.branch.session is None or e is None:
            return
        self._export_to(e)

    def _export_to(self, e) -> None:
        """The branch of the session shown, from its root to event `e`."""
        from sessionscope.gui.dialogs.export_dialog import ExportDialog
        s = self.branch.session
        ExportDialog(self.store, self.window, session_ids=[s.id], head=e.id, head_label=f"event #{e.seq} ({e.kind})",
                     titles={s.id: s.title}).exec()

    def open_search(self) -> None:
        if self.store is None:
            return
        dialog = SearchDialog(self.store, self.window)
        dialog.sig_open.connect(lambda sid, eid: self.open_hit(sid, eid, dialog.needle()))
        dialog.sig_export.connect(lambda query: self.export_sessions(search=query))
        dialog.sig_pin.connect(self.pin_event)
        dialog.show()

    def open_hit(self, session_id: str, event_id: str, needle: str) -> None:
        """A search hit: its session at its event, the words found marked in the reader and in the find box
        (Return there steps to the branch's other matches)."""
        self.sig_open.emit(session_id, event_id or "")
        if needle:
            self.branch.find_edit.setText(needle)
            self.branch.reader.set_needle(needle)

    def open_settings(self) -> None:
        from sessionscope.gui.dialogs.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.store, self.window)
        for box in dialog.workspace_boxes:
            box.sig_added.connect(self.imports.pull)
        if not dialog.exec() or self.store is None:
            return
        if dialog.added:
            self.imports.start(self.store, dialog.added)
        if dialog.meaning_on.isChecked():
            self.embeds.maybe_start(asked=True)

    def open_sync(self) -> None:
        """File ▸ Sync with Team Store: one dialog, raised again when open (it follows the status bar's job)."""
        from sessionscope.gui.dialogs.sync_dialog import SyncDialog
        if self.sync_dialog is not None and self.sync_dialog.isVisible() and self.sync_dialog.store is self.store:
            self.sync_dialog.raise_()
            self.sync_dialog.activateWindow()
            return
        if self.sync_dialog is not None:
            self.sync_dialog.close()
        self.sync_dialog = SyncDialog(self.store, self.syncs, self.window)
        self.sync_dialog.show()

    def sync_now(self) -> None:
        """File ▸ Sync Now: with a team store set, the job starts; without, the dialog asks for one."""
        from sessionscope import sync
        store = self.store

        def target():
            with store.reader() as conn:
                return sync.target(conn)
        run_task(target, lambda kept: self.syncs.start() if kept else self.open_sync(), self._error("sync"), owner=self)

    def show_about(self) -> None:
        from sessionscope.store.revision import version
        where = getattr(self.store, "url", None) or "(no store open)"
        QMessageBox.about(self.window, "About Sessionscope",
                          f"<h3>Sessionscope {version()}</h3><p>See, audit and steer your AI agents' sessions.</p>"
                          f"<p>Store: {where}</p><p>MIT licence.</p>")

    def show_manual(self) -> None:
        """Help ▸ Manual: one dialog, raised again when open."""
        from sessionscope.gui.dialogs.manual_dialog import ManualDialog
        if self.manual_dialog is None:
            self.manual_dialog = ManualDialog(self.window)
        present(self.manual_dialog)

    def show_shortcuts(self) -> None:
        """Help ▸ Keyboard Shortcuts: every action that has one, from the one table they come from."""
        from PySide6.QtWidgets import QDialog, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout

        from sessionscope.gui.window import menus
        if self.shortcuts_dialog is not None and self.shortcuts_dialog.isVisible():
            self.shortcuts_dialog.raise_()
            self.shortcuts_dialog.activateWindow()
            return
        rows = menus.shortcut_rows()
        dialog = QDialog(self.window)
        dialog.setWindowTitle("Keyboard shortcuts")
        table = QTableWidget(len(rows), 2, dialog)
        table.setHorizontalHeaderLabels(["Action", "Shortcut"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for i, (what, keys) in enumerate(rows):
            table.setItem(i, 0, QTableWidgetItem(what))
            table.setItem(i, 1, QTableWidgetItem(keys))
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        table.resizeColumnToContents(1)
        QVBoxLayout(dialog).addWidget(table)
        dialog.resize(520, 560)
        self.shortcuts_dialog = dialog
        dialog.show()

    def show_problems(self) -> None:
        """What the imports could not read: this run's report, and every file's kept problems."""
        from sessionscope.gui.dialogs.problems_dialog import ProblemsDialog
        if self.store is not None:
            ProblemsDialog(self.store, list(self.imports.problems), self.window).exec()

