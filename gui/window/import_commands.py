"""The window's ways in for sessions: File ▸ Import Folder, Import Files, Import from a Database Server, Rescan
Sources, files given on the command line; and, while a user's import runs, the list shown growing with what it
committed. A part of the window over the imports (gui/jobs/import_controller.py), the list and the sidebar."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from sessionscope.gui.jobs.workers import failure_box, run_task

# While a user's import runs, an empty list is queried again at every tick (jobs.LIVE_TICK_MS): a first
# run lists its first sessions as soon as they are committed. A list with rows is queried again no more
# often than every LIVE_EVERY_S, a list of thousands every LIVE_RELOAD_S.
LIVE_EVERY_S = 0.7
LIVE_RELOAD_S = 3.0


class ImportCommands(QObject):
    """Threading: the UI thread's; the import runs in a child process (ImportController), the lookups on workers."""

    sig_open = Signal(str)  # the newest session files given to open held, once imported
    sig_message = Signal(str, int)  # for the status bar, and for how long (ms)

    def __init__(self, window: QWidget, *, imports, sessions, sidebar):
        super().__init__(window)
        self.window = window  # the parent of the file dialogs and questions
        self.imports, self.sessions, self.sidebar = imports, sessions, sidebar
        self.store = None
        self.demo = False  # the demo store is read-only: nothing is imported into it
        self._live_reload_at = 0.0  # when a running import last listed what it committed
        self._live_mark: tuple | None = None  # the store's change mark then
        imports.sig_tick.connect(self.import_tick)

    def set_store(self, store, demo: bool) -> None:
        self.store, self.demo = store, demo

    def _error(self, what: str):
        return failure_box(self.window, what)

    def _opened(self, session_id: str) -> None:
        self.sig_open.emit(session_id)

    def import_folder(self) -> None:
        # from the home folder, never the working directory (a launcher's, or the app's own): an Enter on the
        # dialog's default button imports the folder it starts in
        folder = QFileDialog.getExistingDirectory(self.window, "Import the sessions of a folder", str(Path.home()))
        if folder:
            self._import([folder])

    def import_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self.window, "Import session files", str(Path.home()),
            "Sessions (*.jsonl *.json *.zst *.db *.sqlite *.sqlite3 *.md);;All files (*)")
        if files:
            self._import(files)

    def import_database(self) -> None:
        """File ▸ Import from a Database Server: LangGraph's or the Agents SDK's state on PostgreSQL, by its address."""
        from PySide6.QtWidgets import QInputDialog

        from sessionscope.sources.server_databases import is_address
        from sessionscope.store import db
        address, ok = QInputDialog.getText(
            self.window, "Import from a database server",
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
            QMessageBox.warning(self.window, "Import from a database server", str(exc))
            return
        self._import([address])

    def _import(self, paths: list[str]) -> None:
        if self.demo:  # (every way in: the menus, a drop, files given to open)
            from sessionscope.gui.window.action_table import DEMO_READ_ONLY
            self.sig_message.emit(f"Not imported: {DEMO_READ_ONLY}", 10000)
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
                         self._opened, self._error("open the imported session"), owner=self)
        self.imports.sig_finished.connect(shown)
        self._import(paths)

    def scan(self) -> None:
        from sessionscope.sources.importing import default_roots

        if self.store is None or self.demo:  # (F5 in the demo: its sources are none of the user's)
            return
        store = self.store
        run_task(lambda: sorted(set(map(str, default_roots() + list(store.source_locations())))), self._scan,
                 self._error("find the places to scan"), owner=self)

    def _scan(self, roots: list[str]) -> None:
        self.imports.pull()  # and the workspaces of sessions behind an API, if any
        if not roots:
            QMessageBox.information(self.window, "Scan", "None of the tools Sessionscope reads keeps sessions on this "
                                                  "machine where it looks, and nothing was imported yet: use File ▸ "
                                                  "Import Folder… or Import Files….")
            return
        self.imports.start(self.store, roots)

    def import_tick(self) -> None:
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
