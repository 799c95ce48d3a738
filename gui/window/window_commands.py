"""The window's commands that open something (compare, facts, export, search, settings, usage, about, the
shortcuts, the problems, the tree's menus) or import (a folder, files, a rescan): a mixin of MainWindow,
over its parts (`sessions`, `branch`, `imports`)."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from sessionscope.gui.dialogs.search_dialog import SearchDialog
from sessionscope.gui.jobs.workers import run_task
from sessionscope.gui.views.facts_diff import FactsDiffDialog

# While a user's import runs, an empty list is queried again at every tick (jobs.LIVE_TICK_MS): a first
# run lists its first sessions as soon as they are committed. A list with rows is queried again no more
# often than every LIVE_EVERY_S, a list of thousands every LIVE_RELOAD_S.
LIVE_EVERY_S = 0.7
LIVE_RELOAD_S = 3.0


def present(view) -> None:
    """A view of its own (Usage, Tool Outcomes, …) shown, in front, and taking the keyboard."""
    view.show()
    view.raise_()
    view.activateWindow()


class WindowCommands:
    """Needs the MainWindow's parts, store and actions; runs on the UI thread."""

    # -- commands -------------------------------------------------------------------

    def show_usage(self) -> None:
        from sessionscope.gui.views.usage_view import UsageView
        if self.store is None:
            return
        if self.usage_view is None:
            self.usage_view = UsageView(self.store, self)
            self.usage_view.sig_filter.connect(self.filter_sessions)
            self.usage_view.sig_open.connect(lambda sid: self.open_session(sid))
        else:
            self.usage_view.refresh()
        present(self.usage_view)

    def show_outcomes(self) -> None:
        """View ▸ Tool Outcomes (made once, read again each time it is shown)."""
        from sessionscope.gui.views.outcomes_view import OutcomesView
        if self.store is None:
            return
        if self.outcomes_view is None:
            self.outcomes_view = OutcomesView(self.store, self)
            self.outcomes_view.sig_open.connect(lambda sid, eid: self.open_session(sid, eid))
        self.outcomes_view.refresh()
        present(self.outcomes_view)

    def show_blame(self, path: str | None = None, at_event: str | None = None) -> None:
        """File ▸ Who Wrote This… (made once; a file chosen there, or `path`, its change by `at_event` chosen)."""
        from sessionscope.gui.views.blame_view import BlameView
        if self.store is None:
            return
        if self.blame_view is None:
            self.blame_view = BlameView(self.store, self)
            self.blame_view.sig_open.connect(lambda sid, eid: self.open_session(sid, eid))
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
            *a, edit=self.actions_.note_edit, remove=self.actions_.note_remove, go_on=self.continue_from_note))

    def show_needs_you(self) -> None:
        """View ▸ Needs You: the sessions that need approval or wait for you, each answered from there."""
        from sessionscope.gui.views.needs_you import NeedsYouView
        if self.store is None:
            return
        if self.needs_you_view is None:
            self.needs_you_view = NeedsYouView(self.store, self)
            self.needs_you_view.sig_open.connect(lambda sid: (self.bring_forward(), self.open_session(sid)))
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
            self.bring_forward()
            self.open_session(session_id)
            self.branch.composer.edit.setFocus()
            return
        live = self.live.states.get(session_id)
        if live is not None and live.pid is not None:
            label = sources.of(session.source_kind).label
            asked = QMessageBox.question(
                self.needs_you_view or self, "Open in Its Tool",
                f"{label} still runs this session (process {live.pid}): answer it in the terminal it runs in.\n\n"
                f"Open it in a second {label} anyway? Both would write the same transcript.",
                QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
            if asked != QMessageBox.StandardButton.Open:
                return
        self.actions_.resume(session)

    def show_similar(self, session) -> None:
        """Sessions like this one (search by meaning), each opened from the list it shows."""
        from sessionscope.gui.dialogs.similar_dialog import SimilarDialog
        if self.store is None or session is None:
            return
        dialog = SimilarDialog(self.store, session, self)
        dialog.sig_open.connect(lambda sid: self.open_session(sid))
        dialog.sig_settings.connect(self.open_settings)
        dialog.show()
        self.similar_dialog = dialog  # (kept while it is up)

    def pin_event(self, session_id: str, event_id: str) -> None:
        """Pin an event found elsewhere than the timeline (a search result), through the same action."""
        if self.store is not None:
            self.actions_.pin(session_id, event_id, True)

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
                QMessageBox.information(self, "Fork Here and Continue", "The session has no event to fork at yet.")
                return
            self.actions_.fork_continue(session, event, note.id)
        run_task(read, chosen, self._error("read the note's event"), owner=self)

    def _show_marks(self, view, make):
        """View ▸ Pins or Notes: made once, then shown again (on the session shown now)."""
        if self.store is None:
            return view
        shown = self.session.id if self.session is not None else None
        if view is None:
            view = make(self.store, shown, self)
            view.sig_open.connect(lambda sid, eid: self.open_session(sid, eid or None))
        else:
            view.set_session(shown)
        present(view)
        return view

    def filter_sessions(self, filters: dict, words: str) -> None:
        """List only some sessions (the Usage view's bar, project or source); All Sessions lists all again."""
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

    def tree_export(self, e) -> None:
        """Export the branch from the root to a tree node's event (it need not be on the timeline)."""
        from sessionscope.gui.dialogs.export_dialog import ExportDialog
        ExportDialog(self.store, self, session_ids=[self.session.id], head=e.id, head_label=f"event #{e.seq} ({e.kind})",
                     titles={self.session.id: self.session.title}).exec()

    def compare(self) -> None:
        """Ctrl+D: two sessions selected are compared; else a fork with its origin; else the branch shown
        with the session's head; else the newest other branch with the head; else facts at two points."""
        ids = self.selected_session_ids()
        if len(ids) >= 2:
            self.open_compare((ids[0], None), (ids[1], None))
            return
        s = self.session
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
                self.statusBar().showMessage("This session has one branch and no fork: pick two points to compare "
                                             "their facts, or select two sessions", 8000)
                self.compare_facts()
        run_task(other_tip, found, self._error("find the branches"), owner=self)

    def open_compare(self, a: tuple[str, str | None], b: tuple[str, str | None]) -> None:
        from sessionscope.gui.views.compare_view import CompareView
        view = CompareView(self.store, a, b, self)
        view.sig_open.connect(lambda sid, head: self._open_compared(sid, head))
        view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.compare_view = view
        view.show()

    def _open_compared(self, session_id: str, head: str) -> None:
        self.open_session(session_id)
        if head and self.session is not None and self.session.id == session_id:
            self.branch.show_branch(head, head)

    def compare_facts(self, a: str | None = None) -> None:
        if self.session is None:
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
        b = self.session.head_event_id
        FactsDiffDialog(self.store, points, a or points[0][1], b, self).exec()

    def selected_session_ids(self) -> list[str]:
        ids = self.sessions.selected_ids()
        if self.session is not None and self.session.id not in ids:
            ids = [self.session.id] if not ids else ids
        return ids

    def export_sessions(self, search: str | None = None) -> None:
        from sessionscope.gui.dialogs.export_dialog import ExportDialog

        if self.store is None:
            return
        ids = [] if search else self.selected_session_ids()
        if not ids and not search:
            return
        titles = {r.id: r.title for r in self.sessions.model.rows if r.id in set(ids)}
        if self.session is not None:
            titles.setdefault(self.session.id, self.session.title)
        ExportDialog(self.store, self, session_ids=ids, search=search, titles=titles).exec()

    def export_branch(self) -> None:
        from sessionscope.gui.dialogs.export_dialog import ExportDialog

        e = self.branch.detail.current_event
        if self.store is None or self.session is None or e is None:
            return
        ExportDialog(self.store, self, session_ids=[self.session.id], head=e.id,
                     head_label=f"event #{e.seq} ({e.kind})", titles={self.session.id: self.session.title}).exec()

    def open_search(self) -> None:
        if self.store is None:
            return
        dialog = SearchDialog(self.store, self)
        dialog.sig_open.connect(lambda sid, eid: self.open_hit(sid, eid, dialog.needle()))
        dialog.sig_export.connect(lambda query: self.export_sessions(search=query))
        dialog.sig_pin.connect(self.pin_event)
        dialog.show()

    def open_hit(self, session_id: str, event_id: str, needle: str) -> None:
        """A search hit: its session at its event, the words found marked in the reader and in the find box
        (Return there steps to the branch's other matches)."""
        self.open_session(session_id, event_id or None)
        if needle:
            self.branch.find_edit.setText(needle)
            self.branch.reader.set_needle(needle)

    def open_settings(self) -> None:
        from sessionscope.gui.dialogs.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.store, self)
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
        self.sync_dialog = SyncDialog(self.store, self.syncs, self)
        self.sync_dialog.show()

    def sync_now(self) -> None:
        """File ▸ Sync Now: with a team store set, the job starts; without, the dialog asks for one."""
        from sessionscope import sync
        store = self.store

        def target():
            with store.reader() as conn:
                return sync.target(conn)
        run_task(target, lambda kept: self.syncs.start() if kept else self.open_sync(), self._error("sync"), owner=self)

    def import_folder(self) -> None:
        # from the home folder, never the working directory (a launcher's, or the app's own): an Enter on the
        # dialog's default button imports the folder it starts in
        folder = QFileDialog.getExistingDirectory(self, "Import the sessions of a folder", str(Path.home()))
        if folder:
            self._import([folder])

    def import_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Import session files", str(Path.home()),
            "Sessions (*.jsonl *.json *.zst *.db *.sqlite *.sqlite3 *.md);;All files (*)")
        if files:
            self._import(files)

    def import_database(self) -> None:
        """File ▸ Import from a Database Server: LangGraph's or the Agents SDK's state on PostgreSQL, by its address."""
        from PySide6.QtWidgets import QInputDialog

        from sessionscope.sources.server_databases import is_address
        from sessionscope.store import db
        address, ok = QInputDialog.getText(
            self, "Import from a database server",
            "The address of a PostgreSQL database where LangGraph (PostgresSaver) or the Agents SDK\n"
            "(SQLAlchemySession) keep their agents' state; it is read, never written, and looked at again\n"
            "every minute. The password goes in ~/.pgpass (host:port:database:user:password), not here.",
            text="postgresql://")
        address = address.strip()
        if not ok or address in ("", "postgresql://"):
            return
        try:
            if not is_address(address):
                raise ValueError("an address starts with postgresql://")
            if db.split_address(address)[1]:
                raise ValueError("leave the password out of the address: Sessionscope never keeps one; put it in "
                                 "~/.pgpass (host:port:database:user:password) or $PGPASSWORD")
        except Exception as exc:  # (InvalidInput from split_address too)
            QMessageBox.warning(self, "Import from a database server", str(exc))
            return
        self._import([address])

    def _import(self, paths: list[str]) -> None:
        if self.is_demo:  # (every way in: the menus, a drop, files given to open)
            from sessionscope.gui.window.action_table import DEMO_READ_ONLY
            self.statusBar().showMessage(f"Not imported: {DEMO_READ_ONLY}", 10000)
            return
        self.imports.start(self.store, paths)

    def open_paths(self, paths: list[str]) -> None:
        """Files given on the command line (a file manager's Open With): imported, then the newest
        session they hold is shown."""
        def shown(report) -> None:
            self.imports.sig_finished.disconnect(shown)
            if report.sessions:
                store, ids = self.store, sorted(report.sessions)
                run_task(lambda: max((store.session(i) for i in ids), key=lambda s: s.updated_at or 0).id,
                         self.open_session, self._error("open the imported session"), owner=self)
        self.imports.sig_finished.connect(shown)
        self._import(paths)

    def scan(self) -> None:
        from sessionscope.sources.importing import default_roots

        if self.store is None or self.is_demo:  # (F5 in the demo: its sources are none of the user's)
            return
        store = self.store
        run_task(lambda: sorted(set(map(str, default_roots() + list(store.source_locations())))), self._scan,
                 self._error("find the places to scan"), owner=self)

    def _scan(self, roots: list[str]) -> None:
        self.imports.pull()  # and the workspaces of sessions behind an API, if any
        if not roots:
            QMessageBox.information(self, "Scan", "None of the tools Sessionscope reads keeps sessions on this "
                                                  "machine where it looks, and nothing was imported yet: use File ▸ "
                                                  "Import Folder… or Import Files….")
            return
        self.imports.start(self.store, roots)

    def show_about(self) -> None:
        from sessionscope.store.revision import version
        where = getattr(self.store, "url", None) or "(no store open)"
        QMessageBox.about(self, "About Sessionscope",
                          f"<h3>Sessionscope {version()}</h3><p>See, audit and steer your AI agents' sessions.</p>"
                          f"<p>Store: {where}</p><p>MIT licence.</p>")

    def show_shortcuts(self) -> None:
        """Help ▸ Keyboard Shortcuts: every action that has one, from the one table they come from."""
        from PySide6.QtWidgets import QDialog, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout

        from sessionscope.gui.window import menus
        if self.shortcuts_dialog is not None and self.shortcuts_dialog.isVisible():
            self.shortcuts_dialog.raise_()
            self.shortcuts_dialog.activateWindow()
            return
        rows = menus.shortcut_rows()
        dialog = QDialog(self)
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
            ProblemsDialog(self.store, list(self.imports.problems), self).exec()

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

    def _import_tick(self) -> None:
        """During a user's import, list what it committed so far: a first run on a big home is browsable
        from its first seconds, and a big file's session shows from its first batch."""
        now, rows = time.monotonic(), self.sessions.model.rowCount()
        since = now - self._live_reload_at
        if rows and since < (LIVE_RELOAD_S if rows > 2000 else LIVE_EVERY_S):
            return
        job = self.imports.job
        if job.mark in (None, job.start_mark, self._live_mark):  # nothing committed since the list was read
            return
        self._live_reload_at, self._live_mark = now, job.mark
        self.sessions.model.reload()
        self.sidebar.refresh()
