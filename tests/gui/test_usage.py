"""Usage and cost: tokens split into input, output, cache reads and writes from the agents' own lines,
priced by genai-prices, counted once per reply and never for a fork's copied lines; the Usage view's
bars and legend filter the session list."""

from __future__ import annotations

import datetime as dt

import orjson
import pytest

from tests.sources.claude_factory import Transcript

MODEL = "claude-sonnet-4-5-20250929"


def _reply(t: Transcript, text: str, usage: dict) -> dict:
    line = t.assistant(text, model=MODEL)
    line["message"]["usage"] = usage
    return line


def _sessions(folder) -> tuple[Transcript, Transcript]:
    today = dt.datetime.now(dt.timezone.utc).replace(hour=9, minute=0, second=0, microsecond=0)
    a = Transcript(cwd="/work/shop")
    a.clock = today - dt.timedelta(days=2)
    a.user("first")
    # one reply written as two lines (text, then a tool call) sharing message.id: counted once
    first = _reply(a, "looking", {"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 5000,
                                  "cache_creation_input_tokens": 2000})
    second = _reply(a, "still", {"input_tokens": 100, "output_tokens": 50, "cache_read_input_tokens": 5000,
                                 "cache_creation_input_tokens": 2000})
    second["message"]["id"] = first["message"]["id"]
    a.write(folder / "-work-shop")
    b = Transcript(cwd="/work/blog")
    b.clock = today - dt.timedelta(days=1)
    b.user("second")
    _reply(b, "done", {"input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 0,
                       "cache_creation_input_tokens": 0})
    # a fork's copy of a line of `a` (fork_session's forkedFrom): its tokens were spent in `a`
    copied = _reply(b, "copied", {"input_tokens": 100, "output_tokens": 10, "cache_read_input_tokens": 5000,
                                  "cache_creation_input_tokens": 2000})
    copied["forkedFrom"] = {"sessionId": a.session_id, "messageUuid": first["uuid"]}
    b.write(folder / "-work-blog")
    return a, b


@pytest.fixture(autouse=True)
def usage_defaults():
    """The Usage view remembers its range and choices: each test starts from, and leaves, the defaults."""
    from PySide6.QtCore import QSettings
    QSettings().remove("usage")
    yield
    QSettings().remove("usage")


@pytest.fixture
def usage_store(store, tmp_path):
    from sessionscope.sources.claude_code import import_paths
    folder = tmp_path / "claude" / "projects"
    a, b = _sessions(folder)
    import_paths(store, [folder])
    return store, a, b


def _price(**kw) -> float:
    from genai_prices import Usage, calc_price
    return float(calc_price(Usage(**kw), MODEL).total_price)


def test_usage_splits_tokens_by_kind_and_prices_them(usage_store):
    store, a, b = usage_store
    r = store.usage(group="project")
    assert r.totals == [100 + 1000, 50 + 200, 5000, 2000]  # once per reply; the copy not at all
    expected_a = _price(input_tokens=7100, cache_read_tokens=5000, cache_write_tokens=2000, output_tokens=50)
    expected_b = _price(input_tokens=1000, output_tokens=200)
    assert r.total_cost == pytest.approx(expected_a + expected_b, rel=1e-9)
    assert r.cache_hit_ratio == pytest.approx(5000 / 8100)
    assert [sid for _c, _t, sid in r.session_costs] == sorted([a.session_id, b.session_id],
                                                                key=lambda s: s != a.session_id)
    assert set(r.groups) == {"/work/shop", "/work/blog"} and len(r.buckets) == 2
    costs = store.session_costs([a.session_id, b.session_id])
    assert costs[a.session_id] == pytest.approx(expected_a) and costs[b.session_id] == pytest.approx(expected_b)
    # by week, one bucket a week; by model, one group
    assert store.usage(group="model").groups == [MODEL]
    assert all(dt.date.fromisoformat(w).weekday() == 0 for w in store.usage(by="week").buckets)


def test_usage_is_cached_until_the_session_grows(usage_store, tmp_path):
    from sessionscope.sources.claude_code import import_paths
    from sessionscope.store.schema import USAGE_CACHE
    store, a, _b = usage_store
    store.usage()
    with store.reader() as conn:
        cached = {r.session_id: r.last_seq for r in conn.execute(USAGE_CACHE.select())}
    assert set(cached) == {a.session_id, _b.session_id}
    _reply(a, "more", {"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 0,
                       "cache_creation_input_tokens": 0})
    a.write(tmp_path / "claude" / "projects" / "-work-shop")
    import_paths(store, [tmp_path / "claude" / "projects"])
    assert store.usage().totals[:2] == [1110, 251]
    with store.reader() as conn:
        row = conn.execute(USAGE_CACHE.select().where(USAGE_CACHE.c.session_id == a.session_id)).first()
    assert row.last_seq > cached[a.session_id] and orjson.loads(row.rows)[-1][2] >= 10


def test_an_unknown_model_has_no_cost_and_says_so(store):
    from sessionscope.store.ingest import NewEvent, SessionInfo, ingest
    sid = store.open_session(title="local model").id
    payload = orjson.dumps({"message": {"model": "my-own-llama", "usage": {"input_tokens": 500}}}).decode()
    store.write(lambda conn: ingest(conn, SessionInfo(sid, 1), [
        NewEvent("e1", None, dt.datetime.now().timestamp(), "message", "assistant", text="hi", payload=payload,
                 tokens_in=500, tokens_out=20, head=True)]))
    r = store.usage(group="model")
    assert r.total_cost == 0 and r.unpriced == {"my-own-llama": 520}
    assert store.session_costs([sid]) == {sid: None}


def test_the_usage_view_filters_the_list(window, qtbot, usage_store):
    store, a, b = usage_store
    window.set_store(store, first_run=False)
    qtbot.waitUntil(lambda: window.sessions.model.row_of(a.session_id) >= 0, timeout=10000)
    window.qactions["view.usage"].trigger()
    u = window.openers.usage_view
    qtbot.waitUntil(lambda: u.report is not None and u.top.rowCount() == 2, timeout=10000)
    assert "$" in u.totals.text() and "cache hit ratio 62%" in u.totals.text()
    assert u.top.item(0, 4).text() == a.session_id  # the costliest first
    # a click on the bar of /work/blog's day lists that session only
    qtbot.waitUntil(lambda: bool(u.chart.hits), timeout=5000)
    rect, bucket, group = next(h for h in u.chart.hits if h[2] == "/work/blog")
    from PySide6.QtCore import Qt
    qtbot.mouseClick(u.chart, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 1, timeout=10000)
    assert window.sessions.model.session_at(0).id == b.session_id
    assert "/work/blog" in window.statusBar().currentMessage()
    # the legend's project lists the project; All sessions lists everything again
    item = next(u.legend.item(i) for i in range(u.legend.count())
                if u.legend.item(i).data(Qt.ItemDataRole.UserRole) == "/work/shop")
    u._legend_clicked(item)
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 1
                    and window.sessions.model.session_at(0).id == a.session_id, timeout=10000)
    # tokens instead of cost, per week: the chart follows
    u.show_as.setCurrentIndex(1)
    u.by.setCurrentIndex(1)
    qtbot.waitUntil(lambda: u.chart.fmt(1500.0) == "1.5k", timeout=10000)
    u.top.itemActivated.emit(u.top.item(1, 0))
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == u.top.item(1, 4).text(),
                    timeout=10000)
    u.close()


def test_the_list_and_the_header_show_the_cost(window, qtbot, usage_store):
    from sessionscope.gui.sessions.session_model import COLUMNS
    store, a, b = usage_store
    window.set_store(store, first_run=False)
    qtbot.waitUntil(lambda: window.sessions.model.row_of(a.session_id) >= 0, timeout=10000)
    col = [c[0] for c in COLUMNS].index("cost")
    m = window.sessions.model
    expected = store.session_costs([a.session_id])[a.session_id]
    qtbot.waitUntil(lambda: m.index(m.row_of(a.session_id), col).data() == f"${expected:.3f}", timeout=10000)
    assert [c[0] for c in COLUMNS][:4] == ["title", "updated", "events", "cost"]  # visible without scrolling
    assert m.index(m.row_of(a.session_id), [c[0] for c in COLUMNS].index("source")).data() == "Claude"
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(a.session_id)
    assert MODEL in window.branch.timeline_label.text() and "main" in window.branch.timeline_label.text()
    assert f"${expected:.3f}" in window.branch.timeline_label.text()


def test_an_older_demo_store_is_replaced_by_one_the_usage_view_can_price(tmp_path):
    from sessionscope.store.demo import demo_store
    store = demo_store(tmp_path)
    store.write(lambda conn: conn.exec_driver_sql("DELETE FROM setting WHERE key = 'demo_version'"))
    store.write(lambda conn: conn.exec_driver_sql("UPDATE session SET model = ''"))  # as the first demo was
    store.close()
    store = demo_store(tmp_path)
    try:
        assert all(s.model for s in store.sessions(include_archived=True))
        assert store.usage(group="model").unpriced == {}
    finally:
        store.close()


def test_the_usage_view_answers_at_a_glance_and_remembers_its_range(window, qtbot, usage_store):
    """Spend, tokens, sessions and the cache hit ratio of the range as cards; the top projects, models and
    sources by cost; bars per month; the range and the choices kept for the next time it opens."""
    from PySide6.QtCore import Qt

    from sessionscope.gui.views.usage_view import UsageView, money
    store, a, b = usage_store
    window.set_store(store, first_run=False)
    window.qactions["view.usage"].trigger()
    u = window.openers.usage_view
    qtbot.waitUntil(lambda: u.report is not None and u.top.rowCount() == 2, timeout=10000)
    r = u.report
    assert u.cards["sessions"].text() == "2" and u.cards["cache"].text() == "62%"
    from sessionscope.gui.sessions.session_model import tokens_text
    assert u.cards["spend"].text() == money(r.total_cost) and u.cards["tokens"].text() == tokens_text(sum(r.totals))
    projects = [u.tops["project"].item(i).data(Qt.ItemDataRole.UserRole) for i in range(u.tops["project"].count())]
    assert projects == [n for n, _c in r.top["project"]]
    assert projects[0] == "/work/shop"  # the costlier (a's cache writes)
    assert [u.tops["model"].item(i).data(Qt.ItemDataRole.UserRole) for i in range(u.tops["model"].count())] == [MODEL]
    assert u.tops["source"].item(0).data(Qt.ItemDataRole.UserRole) == "claude_code"
    u.tops["project"].itemClicked.emit(u.tops["project"].item(1))  # a top project lists its sessions
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 1
                    and window.sessions.model.session_at(0).id == b.session_id, timeout=10000)
    u.tops["model"].itemClicked.emit(u.tops["model"].item(0))  # a model: the sessions that used it in the range
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 2, timeout=10000)
    # per month: one bar for this month (or two, early in a month)
    u.by.setCurrentIndex(u.by.findText("per month"))
    qtbot.waitUntil(lambda: u.report is not r and all(b.endswith("-01") for b in u.report.buckets), timeout=10000)
    assert 1 <= len(u.report.buckets) <= 2
    u.range.setCurrentIndex(u.range.findText("Today"))  # nothing was spent today in this store
    qtbot.waitUntil(lambda: u.cards["sessions"].text() == "0", timeout=10000)
    u.close()
    again = UsageView(store, window)
    qtbot.addWidget(again)
    assert (again.range.currentText(), again.by.currentText()) == ("Today", "per month")
    qtbot.waitUntil(lambda: again.report is not None, timeout=10000)
    again.close()


def test_a_custom_range_is_the_days_between_two_dates_and_is_remembered(window, qtbot, usage_store):
    import datetime as dt

    from PySide6.QtCore import QDate

    from sessionscope.gui.views.usage_view import UsageView
    store, a, b = usage_store
    window.set_store(store, first_run=False)
    window.qactions["view.usage"].trigger()
    u = window.openers.usage_view
    qtbot.waitUntil(lambda: u.report is not None, timeout=10000)
    assert not u.since_edit.isVisibleTo(u)  # only for a custom range
    u.range.setCurrentIndex(u.range.findText("Custom range"))
    assert u.since_edit.isVisibleTo(u) and u.until_edit.isVisibleTo(u)
    two_days_ago = dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=2)
    u.since_edit.setDate(QDate(two_days_ago))
    u.until_edit.setDate(QDate(two_days_ago))  # the day `a` was written, not `b` the day after
    qtbot.waitUntil(lambda: u.query()["until"] == two_days_ago.isoformat() and u.cards["sessions"].text() == "1",
                    timeout=10000)
    assert u.report.sessions_in and {sid for ids in u.report.sessions_in.values() for sid in ids} == {a.session_id}
    u.until_edit.setDate(QDate(two_days_ago + dt.timedelta(days=1)))
    qtbot.waitUntil(lambda: u.cards["sessions"].text() == "2", timeout=10000)
    u.close()
    again = UsageView(store, window)
    qtbot.addWidget(again)
    assert again.range.currentText() == "Custom range"
    assert again.query()["since"] == two_days_ago.isoformat() and again.since_edit.isVisibleTo(again)
    qtbot.waitUntil(lambda: again.report is not None, timeout=10000)
    again.close()


def test_the_first_range_widens_until_it_holds_usage(window, qtbot, store, tmp_path):
    """#60: Usage opened on "Last 30 days" and said $0.00 when the newest reply was 31 days old. The first range
    shown widens to the next that holds usage, and says so; a range the user chose stays as chosen."""
    from sessionscope.gui.views.usage_view import UsageView
    from sessionscope.sources.claude_code import import_paths
    folder = tmp_path / "claude" / "projects"
    t = Transcript(cwd="/work/old")
    t.clock = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=40)
    t.user("an old question")
    _reply(t, "an old answer", {"input_tokens": 1000, "output_tokens": 100})
    t.write(folder / "-work-old")
    import_paths(store, [folder])
    view = UsageView(store, window)
    qtbot.addWidget(view)
    qtbot.waitUntil(lambda: view.report is not None, timeout=10000)
    assert view.range.currentText() == "Last 90 days" and view.cards["sessions"].text() == "1"
    assert "Last 30 days had no usage" in view.totals.text()
    view.range.setCurrentIndex(view.range.findText("Last 30 days"))  # chosen: kept, empty as it is
    qtbot.waitUntil(lambda: view.cards["sessions"].text() == "0", timeout=10000)
    assert "had no usage" not in view.totals.text()
    view.close()
    again = UsageView(store, window)
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: again.report is not None, timeout=10000)
    assert again.range.currentText() == "Last 30 days" and again.cards["sessions"].text() == "0"
    again.close()
