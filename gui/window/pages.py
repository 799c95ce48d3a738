"""Where the sidebar's right-hand side goes: Home (gui/views/home_view) or the browser (the session list and the
branch pane). The window opens on Home (View ▸ Open on Home, remembered); the sidebar's Home, View ▸ Home
(Alt+Home) and the toolbar come back to it; choosing any other sidebar entry, or opening a session from
anywhere, shows the browser."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QStackedWidget, QWidget

from sessionscope.gui.views.home_view import HomeView

HOME = {"home": True}  # the sidebar entry's filters (never the list's)


class Pages(QStackedWidget):
    def __init__(self, browser: QWidget, parent=None):
        super().__init__(parent)
        self.home = HomeView()
        self.browser = browser
        self.addWidget(self.home)
        self.addWidget(browser)
        self.setCurrentWidget(self.home if self.home_at_start() else browser)

    @staticmethod
    def home_at_start() -> bool:
        return bool(QSettings().value("view/home_at_start", True, type=bool))

    @staticmethod
    def set_home_at_start(on: bool) -> None:
        QSettings().setValue("view/home_at_start", on)

    def wire(self, w) -> None:
        """Home's clicks to the window's routes; what changes the figures to Home (read again only while shown)."""
        home = self.home
        home.sig_open.connect(lambda sid: w.open_session(sid))
        home.sig_settings.connect(lambda: w.openers.open_settings())
        home.sig_filter.connect(lambda filters: w.filter_sessions(filters, "the day chosen on Home"))
        w.live.sig_states.connect(lambda _states: home.set_needing(w.live.needing))
        w.imports.sig_changes.connect(lambda _changes: home.changed())
        w.actions_.sig_changes.connect(lambda _changes: home.changed())
        w.sidebar.first_choice = HOME if self.showing_home() else {}
        w.qactions["view.home_at_start"].setChecked(self.home_at_start())
        self._first_list = True
        w.sessions.model.sig_loaded.connect(lambda rows: self._listed(w, rows))

    def _listed(self, w, rows: int) -> None:
        """A store with no session yet opens on the list's empty page instead (it offers Rescan, Import and the demo
        store: Home's zeros offer nothing); once, for the store the window opened with."""
        if w.store is None or not self._first_list:
            return  # (the first page, read before the store is open, is not the store's answer)
        self._first_list = False
        if rows == 0 and self.showing_home() and w.sessions.currentWidget() is w.sessions.empty:
            self.show_browser()
            w.sidebar.choose({})

    def showing_home(self) -> bool:
        return self.currentWidget() is self.home

    def show_home(self) -> None:
        self.setCurrentWidget(self.home)

    def show_browser(self) -> None:
        self.setCurrentWidget(self.browser)
