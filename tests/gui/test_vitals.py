"""Vital signs in the window (#37 item 2): the strip under the timeline's header, each sign explained in its tooltip
and going to its events in turn; the Session tab's section; the list's Active, Turns, Failed and Tests columns."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QUrl

from sessionscope.gui.sessions.session_model import COLUMNS

pytestmark = pytest.mark.sqlite_only

FAIL = "=========== 1 failed, 4 passed in 0.31s ===========\nExit code 1"


def _troubled(store):
    """A session whose pytest failed three times in a row (a loop), then passed."""
    import time
    sid = store.open_session(title="flaky tests").id
    t = time.time() - 3600
    store.append(sid, "message", role="user", text="make the tests pass", ts=t)
    ids = []
    for i, out in enumerate((FAIL, FAIL, FAIL, "===== 5 passed in 0.2s =====")):
        ids.append(store.append(sid, "tool_call", role="assistant", text="Bash {}", ts=t + 10 * i + 1,
                                payload={"id": f"c{i}", "name": "Bash", "input": {"command": "pytest"}}).id)
        store.append(sid, "tool_result", role="tool", text=out, ts=t + 10 * i + 5,
                     payload={"tool_use_id": f"c{i}", "output": out})
    return sid, ids


def test_the_strip_explains_each_sign_and_goes_to_its_events(window, qtbot):
    sid, calls = _troubled(window.store)
    window.sessions.model.reload()
    window.open_session(sid)
    strip = window.branch.vitals_strip
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == sid, timeout=10000)
    qtbot.waitUntil(lambda: strip.isVisible() and "loops" in strip.signs, timeout=10000)
    signs = strip.signs
    assert signs["failures"].value == "3 of 4" and signs["failures"].alarm
    assert signs["loops"].value == "1" and "Bash: pytest failed 3 times" in signs["loops"].about
    assert signs["tests"].value == "✓ 4 runs" and "5 passed, 0 failed" in signs["tests"].about
    assert signs["turns"].value == "1" and "active" in signs
    with qtbot.waitSignal(window.branch.sig_message) as said:
        strip.linkActivated.emit("failures")  # the first failed call, then the next
    assert window.branch.detail.current_event.id == calls[0] and said.args[0] == "Failed calls: 1 of 3"
    strip.linkActivated.emit("failures")
    assert window.branch.detail.current_event.id == calls[1]
    strip.linkHovered.emit("loops")  # (the tooltip: shown without error)
    # the Session tab says the same, and its links go to the events too
    info = window.branch.detail.session_info
    qtbot.waitUntil(lambda: "Vital signs" in info.toPlainText(), timeout=10000)
    assert "3 of 4" in info.toPlainText() and "Bash: pytest failed 3 times" in info.toPlainText()
    info.anchorClicked.emit(QUrl("vital:tests"))
    assert window.branch.detail.current_event.kind == "tool_result"


def test_the_list_shows_the_signs_in_columns(window, qtbot):
    sid, _calls = _troubled(window.store)
    model = window.sessions.model
    model.reload()
    qtbot.waitUntil(lambda: model.row_of(sid) >= 0, timeout=10000)
    col = {key: i for i, (key, *_r) in enumerate(COLUMNS)}
    cell = lambda key, role=Qt.ItemDataRole.DisplayRole: model.index(model.row_of(sid), col[key]).data(role)  # noqa: E731
    cell("failed")  # asked for: worked out on a worker, for the rows painted
    qtbot.waitUntil(lambda: cell("failed") != "…", timeout=10000)
    assert cell("failed") == "3 (75%) ⟳" and cell("turns") == "1" and cell("tests") == "✓"
    assert "failed 3 times" in cell("failed", Qt.ItemDataRole.ToolTipRole)
    assert cell("failed", Qt.ItemDataRole.ForegroundRole) is not None  # in the alarm colour
    assert cell("active").endswith(("s", "min"))
    # a new event: worked out again
    window.store.append(sid, "message", role="user", text="and the lint", ts=1e10)
    model.reload()
    qtbot.waitUntil(lambda: cell("turns") == "2", timeout=10000)


def test_the_signs_wait_while_a_users_import_runs_and_come_once_it_ends(window, qtbot, tmp_path):
    """A session still growing was folded again at every tick of the import, beside the import's processes (#61)."""
    sid, _calls = _troubled(window.store)
    model = window.sessions.model
    model.reload()
    qtbot.waitUntil(lambda: model.row_of(sid) >= 0, timeout=10000)
    col = {key: i for i, (key, *_r) in enumerate(COLUMNS)}
    cell = lambda key: model.index(model.row_of(sid), col[key]).data(Qt.ItemDataRole.DisplayRole)  # noqa: E731
    (tmp_path / "empty").mkdir()
    with qtbot.waitSignal(window.imports.sig_busy) as busy:
        assert window.imports.start(window.store, [tmp_path / "empty"])
    assert busy.args == [True]
    cell("failed"), cell("cost")  # asked for while it runs (its child process takes a while to start): they wait
    at_the_end = []
    window.imports.sig_finished.connect(lambda _r: at_the_end.append((sid in model.vitals.known, sid in model.costs.known)))
    qtbot.waitUntil(lambda: bool(at_the_end), timeout=20000)
    assert at_the_end == [(False, False)]
    qtbot.waitUntil(lambda: cell("failed") == "3 (75%) ⟳", timeout=10000)


def test_the_headers_menu_chooses_the_columns_and_the_next_window_remembers(window, qtbot):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMenu
    lst, col = window.sessions, {key: i for i, (key, *_r) in enumerate(COLUMNS)}
    header = lst.view.horizontalHeader()
    header.customContextMenuRequested.emit(header.rect().center())
    menu = next(m for m in lst.findChildren(QMenu) if m.isVisible())
    assert [a.text() for a in menu.actions()][:3] == ["Last activity", "Events", "Cost"]  # the title always shows
    next(a for a in menu.actions() if a.text() == "Tests").trigger()  # unticked: hidden
    menu.close()
    assert lst.view.isColumnHidden(col["tests"]) and QSettings().value("list/hidden_columns") == ["tests"]
    window.qactions["view.pane.narrow"].trigger()  # the narrow list: titles and tools alone
    assert lst.view.isColumnHidden(col["turns"]) and not lst.view.isColumnHidden(col["source"])
    window.qactions["view.pane.narrow"].trigger()  # back: as chosen
    assert lst.view.isColumnHidden(col["tests"]) and not lst.view.isColumnHidden(col["turns"])
    from sessionscope.gui.sessions.session_list import SessionListPane
    again = SessionListPane(window.qactions["view.show_archived"])
    qtbot.addWidget(again)
    assert again.view.isColumnHidden(col["tests"])
    lst.set_column_shown("tests", True)
    assert not lst.view.isColumnHidden(col["tests"])
