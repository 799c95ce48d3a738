"""Home: the window opens on it, its figures are the store's (counted here straight from the SQLite file), and each
item is a click from its session."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest
from PySide6.QtCore import QSettings, Qt

from sessionscope.gui.views.usage_view import money
from sessionscope.gui.window.pages import HOME


@pytest.fixture
def home_window(qtbot, demo):
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    make_app()
    QSettings().clear()  # the defaults a new user has: Home first
    store, ids = demo
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    w.set_store(store, first_run=False)
    home = w.pages.home
    qtbot.waitUntil(lambda: home.overview is not None, timeout=10000)
    yield w, store, ids
    w.close()


def _messages_since(store, since: str) -> tuple[int, int]:
    """(messages, sessions with one) from local midnight of `since`, read from the file by sqlite3 itself."""
    start = dt.datetime.combine(dt.date.fromisoformat(since), dt.time()).timestamp()
    with sqlite3.connect(store.engine.url.database) as db:
        return db.execute("SELECT count(*), count(DISTINCT session_id) FROM event WHERE kind = 'message' AND ts >= ?",
                          (start,)).fetchone()


def test_the_window_opens_on_home_with_the_stores_figures(home_window, qtbot):
    w, store, ids = home_window
    home = w.pages.home
    assert w.pages.showing_home() and w.sidebar.currentItem().data(0, Qt.ItemDataRole.UserRole) == HOME
    assert w.qactions["view.home_at_start"].isChecked()
    ov = home.overview
    assert ov.days == 30 and not ov.note  # the demo's sessions are hours old: the first range has them
    messages, sessions = _messages_since(store, ov.since)
    usage = store.usage(since=ov.since, until=ov.until)
    assert ov.messages == messages > 0
    assert ov.sessions >= sessions > 0
    assert ov.tokens == sum(usage.totals) > 0
    assert ov.spend == pytest.approx(usage.total_cost) and home.kpis["spend"].text() == money(usage.total_cost)
    assert home.kpis["sessions"].text() == f"{ov.sessions:,}"
    assert sum(v[0] for day, v in ov.activity.items() if day >= ov.since) == messages  # the heatmap's days add up
    assert sum(v[1] for day, v in ov.activity.items() if day >= ov.since) == ov.tokens
    recent = home.lists["recent"]
    assert recent.count() == min(8, len(store.sessions(limit=8)))
    assert recent.item(0).data(Qt.ItemDataRole.UserRole) == store.sessions(limit=1)[0].id
    top = home.lists["top"]
    assert top.item(0).data(Qt.ItemDataRole.UserRole) == usage.session_costs[0][2]


def test_each_item_is_a_click_from_its_session_and_home_is_a_key_away(home_window, qtbot):
    w, store, ids = home_window
    home = w.pages.home
    item = home.lists["recent"].item(2)
    sid = item.data(Qt.ItemDataRole.UserRole)
    home.lists["recent"].itemClicked.emit(item)
    qtbot.waitUntil(lambda: w.session is not None and w.session.id == sid, timeout=10000)
    assert not w.pages.showing_home()
    w.qactions["view.home"].trigger()
    assert w.pages.showing_home() and w.sidebar.currentItem().data(0, Qt.ItemDataRole.UserRole) == HOME
    # a day of the heatmap lists the sessions active that day
    # (the newest day with sessions: the demo's are hours old, yesterday's just after midnight)
    day = max(home.overview.day_sessions)
    hm = home.heatmap
    week = (dt.date.fromisoformat(day) - hm.first).days // 7
    qtbot.mouseClick(hm, Qt.MouseButton.LeftButton, pos=hm.rect_of(week, dt.date.fromisoformat(day).weekday()).center())
    assert not w.pages.showing_home()
    qtbot.waitUntil(lambda: w.sessions.model.rowCount() == len(home.overview.day_sessions[day]), timeout=10000)
    # the sidebar's entries show the browser again; its Home entry shows Home
    w.sidebar.setCurrentItem(w.sidebar.topLevelItem(0))
    assert w.pages.showing_home()
    w.sidebar.setCurrentItem(w.sidebar.topLevelItem(1))
    assert not w.pages.showing_home()
    # chosen off, the next window opens on the list
    w.qactions["view.home_at_start"].trigger()
    assert QSettings().value("view/home_at_start", type=bool) is False


def test_an_empty_range_widens_until_it_holds_something(home_window, qtbot):
    from sessionscope.insight.overview import overview
    w, store, ids = home_window
    later = dt.date.today() + dt.timedelta(days=45)  # the demo is 45 days old then
    with store.reader() as conn:
        ov = overview(conn, days=30, today=later)
        assert ov.days == 90 and ov.note == "Last 30 days had no activity: showing last 90 days" and ov.messages
        assert overview(conn, days=30, today=later, widen=False).messages == 0
        assert overview(conn, days=7, today=later + dt.timedelta(days=400)).days == 0  # all time, at the last


def test_the_sidebars_names_are_not_cut_at_its_first_width(home_window, qtbot):
    """"payments.se…" and "⚠ Needs app…" were cut at 190 px: the sidebar opens wide enough for a tool's name and
    a live state's, and cuts a long project in its middle, naming it whole in its tooltip."""
    w, _store, _ids = home_window
    bar = w.sidebar
    fm = bar.fontMetrics()
    qtbot.waitUntil(lambda: bar.topLevelItemCount() > 3)
    for words in ("⚠ Needs approval", "OpenAI Agents SDK", "Factory Droid"):
        assert fm.horizontalAdvance(words) + 2 * bar.indentation() + 8 <= bar.columnWidth(0), words
    assert bar.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert all(bar.topLevelItem(i).toolTip(0) for i in range(bar.topLevelItemCount()))


def test_an_empty_store_has_an_overview_of_nothing(tmp_path):
    """(All time was widened to all time again, for ever: the window hung on an empty store.)"""
    from sessionscope import open_store
    store = open_store(tmp_path / "empty.db")
    ov = store.overview(days=7)
    assert (ov.days, ov.sessions, ov.messages, ov.tokens, ov.activity) == (0, 0, 0, 0, {})
    store.close()


def test_home_reads_its_figures_only_while_shown_and_after_what_the_user_waits_for(home_window, qtbot, monkeypatch):
    """#61: the first figures of a big store fold every session's usage (seconds): read after the list's first page,
    stopped when a session is opened (its rows go first: the benchmark's first timeline rows took 3.7 s beside it),
    what was folded kept, and read again when Home is shown."""
    import time
    w, store, _ids = home_window
    home = w.pages.home
    real, steps = store.overview, []

    def slow(**query):
        for _ in range(300):
            query["pause"]()
            steps.append(1)
            time.sleep(0.005)
        return real(**query)
    monkeypatch.setattr(store, "overview", slow)
    before = home.overview
    home.refresh()
    qtbot.waitUntil(lambda: len(steps) > 5, timeout=5000)
    w.open_session(store.sessions(limit=1)[0].id)  # Home hidden: the reading stops at its next step
    qtbot.waitUntil(lambda: home._stale, timeout=5000)
    stopped = len(steps)
    qtbot.wait(200)
    assert len(steps) == stopped < 300 and home.overview is before
    w.qactions["view.home"].trigger()  # shown again: read again, to the end
    qtbot.waitUntil(lambda: home.overview is not before, timeout=10000)


def test_an_empty_store_opens_on_the_list_that_offers_a_way_in(qtbot, tmp_path):
    """Home's zeros offer nothing to a new user with no sessions: the window opens on the list's empty page (Rescan,
    Import, the demo store) instead, as it did before Home."""
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    make_app()
    QSettings().clear()
    store = open_store(tmp_path / "empty.db")
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    assert w.pages.showing_home()
    w.set_store(store, first_run=False)
    qtbot.waitUntil(lambda: not w.pages.showing_home(), timeout=10000)
    assert w.sessions.currentWidget() is w.sessions.empty and w.sessions.empty.isVisible()
    w.close()
    store.close()


def test_a_stream_of_changes_does_not_put_homes_reading_off(home_window, qtbot):
    """While an agent writes, the watcher's imports come every second or two: Home reads what changed once within its
    interval, not after the last change (never, while they keep coming)."""
    w, _store, _ids = home_window
    home = w.pages.home
    home._later.setInterval(300)
    before = home.overview
    for _ in range(12):  # a change every 100 ms for 1.2 s
        home.changed()
        qtbot.wait(100)
        if home.overview is not before:
            break
    assert home.overview is not before
