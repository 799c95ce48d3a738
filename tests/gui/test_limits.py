"""Usage limits in the window: set in Settings, shown on Home against the store's figures for the active five-hour
window and the week (`usage blocks` and `usage daily` of the same store), and a limit crossed is said once through
the notifier after an import."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QSettings

from sessionscope.cli.main import main
from sessionscope.gui.views import limits
from sessionscope.gui.views.usage_view import money
from tests.usage_home import generate


@pytest.fixture
def usage_window(qtbot, tmp_path, capsys):
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    make_app()
    QSettings().clear()
    projects = generate(tmp_path / ".claude", sessions=12)
    db = tmp_path / "s.db"
    assert main(["--store", str(db), "import", str(projects)]) == 0
    capsys.readouterr()
    assert main(["--store", str(db), "--json", "usage", "blocks", "--active"]) == 0
    block = json.loads(capsys.readouterr().out)["blocks"][0]
    store = open_store(db)
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    yield w, store, block
    w.close()
    store.close()


def test_home_shows_the_window_and_the_week_against_the_limits_set(usage_window, qtbot):
    w, store, block = usage_window
    from sessionscope.gui.dialogs.settings_dialog import SettingsDialog
    dialog = SettingsDialog(store, w)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.ok.isEnabled(), timeout=10000)
    dialog.limits.block.setValue(block["cost"] / 2)  # the window is past it already
    dialog.limits.week.setValue(1000)
    dialog.accept()
    assert limits.load().block == pytest.approx(round(block["cost"] / 2, 2)) and limits.load().week == 1000

    w.show()
    w.set_store(store, first_run=False)
    card = w.pages.home.limits
    figure, bar, words = card.parts["block"]
    qtbot.waitUntil(lambda: figure.text() not in ("…", ""), timeout=10000)
    assert figure.text() == f"{money(block['cost'])} of {money(round(block['cost'] / 2, 2))}"
    assert bar.isVisible() and bar.value() == 1000
    assert words.text().startswith("⚠ This five-hour window has cost") and "resets" in words.text()
    week_figure, week_bar, week_words = card.parts["week"]
    assert week_figure.text().endswith(f" of {money(1000)}") and not week_words.text().startswith("⚠")
    assert card.set_limits.text() == "Change Limits…"


def test_a_limit_crossed_is_said_once_through_the_notifier(usage_window, qtbot):
    w, store, block = usage_window
    limits.save(limits.Limits(block=block["cost"] / 2))
    w.set_store(store, first_run=False)
    said = []
    w.notifier.sig_notified.connect(lambda sid, title, text: said.append((title, text)))
    w.limit_watch.look()
    qtbot.waitUntil(lambda: len(said) == 1, timeout=10000)
    assert said[0][0] == "⚠ Usage limit" and "five-hour window" in said[0][1]
    w.limit_watch.look()  # the same window again: not said twice
    qtbot.wait(500)
    assert len(said) == 1
    limits.save(limits.Limits())  # no limit: nothing looked at after an import
    w.limit_watch.changed()
    assert not w.limit_watch._soon.isActive()


def test_usage_shows_the_year_by_day_as_usage_daily_counts_it(usage_window, qtbot, capsys):
    import datetime as dt

    from PySide6.QtCore import Qt
    w, store, _block = usage_window
    w.show()
    w.set_store(store, first_run=False)
    capsys.readouterr()
    assert main(["--store", store.engine.url.database, "--json", "usage", "daily"]) == 0
    daily = {r["key"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    w.openers.show_usage()
    u = w.openers.usage_view
    qtbot.waitUntil(lambda: u.report is not None and bool(u.heatmap.activity), timeout=10000)
    hm = u.heatmap
    assert {day: (int(v[1]), round(v[2], 6)) for day, v in hm.activity.items()} == \
        {day: (r["total_tokens"], pytest.approx(r["cost"], abs=1e-6)) for day, r in daily.items()}
    assert hm.figure == 2  # cost, as the chart shows it
    day = max(daily)
    week = (dt.date.fromisoformat(day) - hm.first).days // 7
    qtbot.mouseClick(hm, Qt.MouseButton.LeftButton, pos=hm.rect_of(week, dt.date.fromisoformat(day).weekday()).center())
    qtbot.waitUntil(lambda: w.sessions.model.rowCount() == daily[day]["sessions"], timeout=10000)
    u.close()
