"""The window driven as a user would: views, actions, dialogs, import and the watcher."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QToolButton

from sessionscope.gui.dialogs import ask
from tests.conftest import REPO
from tests.gui.pages import loaded


def _select(window, qtbot, title):
    row = next(i for i, s in enumerate(window.sessions.model.rows) if s.title == title)
    if window.sessions.view.currentIndex().row() != row:
        with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
            window.sessions.view.selectRow(row)
    return window.sessions.model.rows[row]


def _wait_changes(window, qtbot):
    return qtbot.waitSignal(window.actions_.sig_changes, timeout=10000)


def test_session_list_timeline_detail_and_tree(window, qtbot):
    s = _select(window, qtbot, "Fix the flaky login test")
    assert window.session.id == s.id
    model = window.branch.timeline_model
    qtbot.waitUntil(lambda: model.event_at(0) is not None, timeout=5000)
    assert model.data(model.index(0, 3)) == "The login test fails one run in five. Find out why."
    assert "Fix the flaky login test" in window.branch.timeline_label.text()
    # stepping through the timeline replays the facts
    row = next(r for r in range(model.rowCount()) if model.event_at(r) and model.event_at(r).kind == "fact.set")
    window.branch.timeline.selectRow(row)
    qtbot.waitUntil(lambda: window.branch.detail.facts.topLevelItemCount() >= 1, timeout=5000)
    assert window.branch.detail.current_event.kind == "fact.set"
    assert "todos" in window.branch.detail.rendered.toPlainText() or "decision" in window.branch.detail.rendered.toPlainText()
    # the tree shows the rewind's abandoned branch; clicking its tip shows that branch
    qtbot.waitUntil(lambda: window.branch.tree.tree_model.rowCount() > 3, timeout=5000)
    nodes = window.branch.tree.tree_model.layout_.nodes
    other = next(n for n in nodes if n.kind == "tip" and n.lane != 0 and not n.fork_session)
    index = window.branch.tree.tree_model.index(nodes.index(other), 0)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.branch.tree.clicked.emit(index)
    assert "another branch" in window.branch.timeline_label.text()
    assert any(n.fork_session for n in nodes)


def test_prompt_jumps_and_find(window, qtbot):
    """They read the branch on a worker: the window answers at once, the row is selected when found."""
    _select(window, qtbot, "Fix the flaky login test")
    window.branch.timeline.selectRow(0)
    window.qactions["timeline.next_prompt"].trigger()
    qtbot.waitUntil(lambda: window.branch.timeline.currentIndex().row() > 0, timeout=5000)
    model = window.branch.timeline_model
    loaded(model, qtbot, window.branch.timeline.currentIndex().row())
    e = model.event_at(window.branch.timeline.currentIndex().row())
    assert e.kind == "message" and e.role == "user" and e.text.startswith("Show me the fixture")
    window.qactions["timeline.prev_prompt"].trigger()
    qtbot.waitUntil(lambda: window.branch.timeline.currentIndex().row() == 0, timeout=5000)
    window.branch.find_edit.setText("wait_for_cookie")
    window.branch.find_next()
    assert window.branch.timeline.currentIndex().row() == 0  # not found yet: the UI thread did not read the branch
    qtbot.waitUntil(lambda: window.branch.timeline.currentIndex().row() > 0, timeout=5000)
    loaded(model, qtbot, window.branch.timeline.currentIndex().row())
    assert "wait_for_cookie" in model.event_at(window.branch.timeline.currentIndex().row()).text
    window.branch.find_edit.setText("no event says this")
    window.branch.find_next()
    qtbot.waitUntil(lambda: "is not in this branch" in window.statusBar().currentMessage(), timeout=5000)


def test_archive_unarchive_and_delete(window, qtbot, monkeypatch):
    s = _select(window, qtbot, "Write the release notes for 2.4")
    before = s.status
    with _wait_changes(window, qtbot):
        window.qactions["session.archive"].trigger()
    qtbot.waitUntil(lambda: all(r.id != s.id for r in window.sessions.model.rows), timeout=5000)
    assert window.store.session(s.id).status == "archived"
    window.qactions["view.show_archived"].setChecked(True)
    window.sessions.refilter()
    qtbot.waitUntil(lambda: any(r.id == s.id for r in window.sessions.model.rows), timeout=5000)
    _select(window, qtbot, "Write the release notes for 2.4")
    assert not window.qactions["session.archive"].isEnabled() and window.qactions["session.unarchive"].isEnabled()
    with _wait_changes(window, qtbot):
        window.qactions["session.unarchive"].trigger()
    assert window.store.session(s.id).status == before == "idle"  # back as it was archived
    asked = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Cancel)
    window.qactions["session.delete"].trigger()  # (the files it may remove are looked up first, on a worker)
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)
    assert "for good" in asked[0] and window.store.session(s.id)  # cancelled: still there
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: QMessageBox.StandardButton.Yes)
    with _wait_changes(window, qtbot):
        window.qactions["session.delete"].trigger()
    assert not any(x.id == s.id for x in window.store.sessions(include_archived=True))
    assert window.store.audit_log(s.id)[0]["action"] == "delete"


def test_fork_rewind_compact_rename(window, qtbot, monkeypatch):
    s = _select(window, qtbot, "Nightly triage bot")
    window.branch.timeline.selectRow(1)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None, timeout=5000)
    event = window.branch.detail.current_event
    monkeypatch.setattr(ask, "text", lambda *a, **k: "triage, take two")
    busy = []
    window.actions_.sig_busy.connect(lambda what: busy.append((what, window.busy_label.isVisible())))
    with _wait_changes(window, qtbot) as blocker:
        window.qactions["session.fork"].trigger()
        assert window.busy_label.text() == "Fork…"  # said at once, while the worker runs
    fork = blocker.args[0].session
    assert [w for w, _ in busy] == ["fork", ""] and window.busy_label.isHidden()
    assert fork.forked_from_event == event.id and fork.title == "triage, take two"
    # the window moves on to the new session once the list has it
    qtbot.waitUntil(lambda: window.sessions.view.currentIndex().row() == window.sessions.model.row_of(fork.id)
                    and window.session.id == fork.id, timeout=5000)
    _select(window, qtbot, "Nightly triage bot")
    window.branch.timeline.selectRow(1)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None and window.branch.detail.current_event.id == event.id,
                    timeout=5000)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    with _wait_changes(window, qtbot):
        window.qactions["session.rewind"].trigger()
    assert window.store.session(s.id).head_event_id == event.id
    monkeypatch.setattr(ask, "text", lambda *a, **k: "triaged 3 issues")
    with _wait_changes(window, qtbot):
        window.qactions["session.compact"].trigger()
    assert window.store.resume_context(s.id).transcript[0].text == "triaged 3 issues"
    monkeypatch.setattr(ask, "text", lambda *a, **k: "Renamed bot")
    with _wait_changes(window, qtbot):
        window.qactions["session.rename"].trigger()
    assert window.store.session(s.id).title == "Renamed bot"


def test_refused_action_is_shown_not_swallowed(window, qtbot, monkeypatch):
    s = _select(window, qtbot, "Nightly triage bot")
    window.store.report_status(s.id, "start")  # running elsewhere meanwhile: delete must be refused
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: shown.append(a) or QMessageBox.StandardButton.Yes)
    window.actions_.delete(window.store.session(s.id))
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=5000)
    assert "running" in shown[1][2] and "Nothing was changed" in shown[1][2]


def test_facts_diff_dialog(window, qtbot):
    from sessionscope.gui.views.facts_diff import FactsDiffDialog

    s = _select(window, qtbot, "Fix the flaky login test")
    layout = window.store.tree(s.id)
    tips = [n.id for n in layout.nodes if n.kind == "tip"]
    points = [("a", tips[0]), ("b", s.head_event_id)]
    dialog = FactsDiffDialog(window.store, points, tips[0], s.head_event_id, window)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: hasattr(dialog, "last_diff"), timeout=5000)
    text = dialog.view.toPlainText()
    assert "Decision" in text and ("wait_for_cookie" in text or "explicit" in text)


def test_search_opens_the_hit(window, qtbot):
    from sessionscope.gui.dialogs.search_dialog import SearchDialog

    dialog = SearchDialog(window.store, window)
    qtbot.addWidget(dialog)
    dialog.sig_open.connect(lambda sid, eid: window.openers.open_hit(sid, eid, dialog.needle()))
    dialog.run("retried")
    qtbot.waitUntil(lambda: dialog.results.topLevelItemCount() == 1, timeout=5000)
    group = dialog.results.topLevelItem(0)
    assert group.text(0) == "Try retry-on-failure instead" and "«retried»" in group.child(0).text(2)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        dialog.results.itemActivated.emit(group.child(0), 0)
    assert window.session.title == "Try retry-on-failure instead"
    row = window.branch.timeline.currentIndex().row()
    qtbot.waitUntil(lambda: window.branch.timeline_model.event_at(row) is not None, timeout=5000)
    assert "retried" in window.branch.timeline_model.event_at(row).text
    assert window.branch.find_edit.text() == "retried" == window.branch.reader.needle  # marked where it opened
    dialog.run('"open quote')  # said where and why, nothing run
    assert dialog.status.text() == "at character 1: the quote opened there is not closed"
    assert dialog.results.topLevelItemCount() == 0 and not dialog.export_button.isEnabled()
    dialog.order.setCurrentIndex(1)  # newest first
    dialog.run("retried OR cookie -kind:thinking")
    qtbot.waitUntil(lambda: dialog.results.topLevelItemCount() > 1, timeout=5000)


def test_empty_store_offers_scan_and_demo(qtbot, tmp_path):
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    make_app()
    w = MainWindow()
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.sessions.model.sig_loaded, timeout=10000):
        w.set_store(open_store(tmp_path / "empty.db"))
    assert w.sessions.currentWidget() is w.sessions.empty
    demo_button = w.sessions.empty.findChild(QToolButton, "empty.app.demo")  # the action table's Open Demo Store
    with qtbot.waitSignal(w.sessions.model.sig_loaded, timeout=40000):
        demo_button.click()
    qtbot.waitUntil(lambda: w.sessions.model.rowCount() >= 6, timeout=30000)
    w.imports.watcher.stop()


def test_import_with_progress_then_watch_follows_new_lines(qtbot, tmp_path):
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    from tests.sources.claude_factory import Transcript

    make_app()
    project = tmp_path / "projects" / "-work-app"
    t = Transcript()
    for i in range(30):
        t.user(f"prompt {i}")
        t.assistant(f"answer {i}")
    path = t.write(project)
    w = MainWindow()
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.sessions.model.sig_loaded, timeout=10000):
        w.set_store(open_store(tmp_path / "s.db"))
    progress = []
    w.imports.job.sig_progress.connect(lambda d, total, f: progress.append((d, total)))
    with qtbot.waitSignal(w.imports.job.sig_finished, timeout=20000):
        w.imports.job.start(w.store, [tmp_path / "projects"])
    assert progress and progress[-1][0] == progress[-1][1]
    qtbot.waitUntil(lambda: w.sessions.model.rowCount() == 1, timeout=5000)
    w.sessions.view.selectRow(0)  # (the list may have selected it already on loading)
    qtbot.waitUntil(lambda: w.session is not None and w.branch.timeline_model.rowCount() == 60, timeout=10000)
    n = w.branch.timeline_model.rowCount()
    w.branch.timeline.selectRow(n - 1)  # at the end: the timeline follows new events
    t.lines = []
    t.user("a new prompt, written while we watch")
    with open(path, "a") as fh:
        fh.write(t.text())
    # the watch ticks every 2 s; slack for a loaded CI
    qtbot.waitUntil(lambda: w.branch.timeline_model.rowCount() > n, timeout=15000)
    last = w.branch.timeline_model.rowCount() - 1
    qtbot.waitUntil(lambda: w.branch.timeline.currentIndex().row() == last, timeout=5000)
    w.imports.watcher.stop()


def test_screenshot_command(tmp_path):
    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--demo", "--screenshot", str(out)], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 20_000 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_screenshot_of_an_empty_store_waits_for_the_store(tmp_path):
    """An empty store is shot once it is open (its sidebar counted), not on the empty first page the window
    lists before it opens; and it is shot, not waited on."""
    out = tmp_path / "empty.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "empty.db"),
                          "--screenshot", str(out)], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_first_run_imports_the_default_places(qtbot, tmp_path, monkeypatch):
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    from tests.sources.claude_factory import Transcript

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    t = Transcript()
    t.user("found on first run")
    t.assistant("hello")
    t.write(tmp_path / "claude" / "projects" / "-work-app")
    make_app()
    w = MainWindow()
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.imports.job.sig_finished, timeout=20000):
        w.set_store(open_store(tmp_path / "s.db"))
    qtbot.waitUntil(lambda: w.sessions.model.rowCount() == 1, timeout=10000)
    assert w.sessions.model.rows[0].title == "found on first run"
    w.imports.watcher.stop()


def test_a_store_with_sessions_looks_for_new_places_after_its_list_shows(qtbot, tmp_path, monkeypatch):
    """The start-up chores (a tool's places never imported, the daily backup) wait until the list has been shown
    a moment, so the first session clicked is not read behind them; they still run."""
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    from tests.sources.claude_factory import Transcript

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setattr(MainWindow, "CHORES_S", 0.7)
    t = Transcript()
    t.user("found after the list")
    t.assistant("hello")
    t.write(tmp_path / "claude" / "projects" / "-work-app")
    store = open_store(tmp_path / "s.db")
    store.open_session(title="already here")
    make_app()
    w = MainWindow()
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.sessions.model.sig_loaded, timeout=10000):
        w.set_store(store)
    assert getattr(w.imports.job, "process", None) is None and not list((tmp_path / "s-backups").glob("*.db"))
    with qtbot.waitSignal(w.imports.job.sig_finished, timeout=20000):
        pass
    qtbot.waitUntil(lambda: w.sessions.model.rowCount() == 2, timeout=10000)
    assert {s.title for s in w.sessions.model.rows} == {"already here", "found after the list"}
    qtbot.waitUntil(lambda: bool(list((tmp_path / "s-backups").glob("*.db"))), timeout=10000)  # and the backup
    w.imports.watcher.stop()


def test_import_runs_in_a_child_process_and_can_be_cancelled(qtbot, tmp_path):
    import gc

    from sessionscope import open_store
    from sessionscope.gui.jobs.progress import ImportJob
    from tests.benchmarks.generate import generate

    generate(tmp_path / "projects", 8_000_000, seed=5)
    store = open_store(tmp_path / "s.db")
    job = ImportJob()
    reports = []
    job.sig_finished.connect(reports.append)
    job.sig_progress.connect(lambda *a: job.cancel())
    job.start(store, [tmp_path / "projects"])
    assert job.process is not None
    assert gc.get_freeze_count() > 0  # the window's objects are out of the collector's sight while it runs
    qtbot.waitUntil(lambda: bool(reports), timeout=30000)
    assert reports[0].cancelled
    assert gc.get_freeze_count() == 0  # …and back in it once it ends, cancelled or not
    # what was committed before the cancel is whole; a second run completes it
    assert all(r.ok for r in store.verify())
    again = []
    job.sig_progress.disconnect()
    job.sig_finished.connect(again.append)
    job.start(store, [tmp_path / "projects"])
    before = gc.get_freeze_count()
    made = [[] for _ in range(5000)]  # what the window makes while it runs: out of sight at the next tick too
    qtbot.waitUntil(lambda: gc.get_freeze_count() >= before + len(made), timeout=5000)
    assert not again, "the import ended before its first tick"
    qtbot.waitUntil(lambda: bool(again), timeout=60000)
    assert not again[0].cancelled and again[0].bad_lines == 0 and gc.get_freeze_count() == 0
    assert store.count_sessions() >= 1


def test_tool_output_folds_under_its_call(window, qtbot):
    _select(window, qtbot, "Fix the flaky login test")
    model = window.branch.timeline_model
    qtbot.waitUntil(lambda: bool(model.fork_points), timeout=5000)  # rewinds and the fork, marked
    assert any("forked into “Try retry-on-failure instead”" in n for notes in model.fork_points.values() for n in notes)
    # the header counts branches as the tree draws them (lanes), and says why the session has more events
    qtbot.waitUntil(lambda: "branches" in window.branch.timeline_label.text(), timeout=5000)
    lanes = window.branch.tree.tree_model.layout_.lanes
    assert f"· {lanes} branches" in window.branch.timeline_label.text() and " of 37 events · head branch" in \
        window.branch.timeline_label.text() and "other branches" in window.branch.timeline_label.toolTip()
    assert window.qactions["timeline.fold"].isChecked() and model.folded
    rows = model.rowCount()
    loaded(model, qtbot, *range(rows))
    marked = [r for r in range(rows) if model.data(model.index(r, 1)).endswith("⎇")]
    tips = [model.data(model.index(r, 1), Qt.ItemDataRole.ToolTipRole) for r in marked]
    assert marked and all("branch point" in t or "forked into" in t for t in tips)
    call = next(r for r in range(rows) if model.data(model.index(r, 1)).startswith("▸ tool call"))
    assert "→" in model.data(model.index(call, 3))  # the output's first line, inline
    window.branch.timeline.scrollTo(model.index(call, 3))
    rect = window.branch.timeline.visualRect(model.index(call, 3))
    qtbot.mouseClick(window.branch.timeline.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(window.branch.timeline.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert model.rowCount() == rows + 1 and window.branch.timeline.currentIndex().row() == call
    loaded(model, qtbot, call + 1)
    assert model.event_at(call + 1).kind == "tool_result"
    window.qactions["timeline.toggle_pair"].trigger()  # Space on the selected call folds it again
    assert model.rowCount() == rows
    window.qactions["timeline.fold"].trigger()  # unfold everything
    assert not model.folded and model.rowCount() > rows + 1
    assert window.branch.detail.current_event is not None and model.ids[window.branch.timeline.currentIndex().row()] == \
        window.branch.detail.current_event.id
    window.qactions["timeline.fold"].trigger()
    assert model.folded


def test_marks_of_a_session_deleted_meanwhile_are_dropped_quietly(window, qtbot, dialogs):
    from sessionscope.errors import NotFound, StoreUnavailable

    token = window.branch._gen.value
    window.branch._read_failed("mark the branch points", token)(NotFound("no session with id 'x' in this store"))
    assert dialogs == []  # nothing to tell: the session is gone
    window.branch._read_failed("mark the branch points", token)(
        StoreUnavailable("the store could not be used: disk I/O error"))
    assert dialogs and "disk I/O error" in dialogs[-1][1]
    dialogs.expected = len(dialogs)


def test_facts_of_an_event_whose_session_was_deleted_meanwhile_are_dropped(window, qtbot):
    """The detail's facts task can outlive the session it reads (deleted, purged): no error escapes."""
    s = _select(window, qtbot, "Fix the flaky login test")
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None, timeout=5000)
    e = window.branch.detail.current_event
    store = window.store
    from sessionscope.store.schema import EVENT
    # the event vanishes, as a purge in another process would remove it
    store.write(lambda conn: conn.execute(EVENT.delete().where(EVENT.c.id == e.id)))
    window.branch.detail.show_event(store, e)
    qtbot.waitUntil(lambda: window.branch.detail.facts.topLevelItemCount() == 0, timeout=5000)
    assert s.id


def test_find_in_session_says_n_of_n_steps_back_and_clears(window, qtbot):
    """Find counts the branch's matches once (on a worker) and says where the selection is among them;
    Shift+Return goes back, both wrap; a new text or other rows clear the count."""
    b = window.branch
    b.timeline.selectRow(0)
    b.find_edit.setText("cookie")
    b.find_next()
    qtbot.waitUntil(lambda: " of " in b.find_status.text(), timeout=5000)
    rows = b.found[1]
    n = len(rows)
    k = next(i for i, r in enumerate(rows) if r > 0)  # the first match after the selection
    assert n >= 3 and b.find_status.text() == f"{k + 1} of {n}" and b.timeline.currentIndex().row() == rows[k]
    b.find_next()
    assert b.find_status.text() == f"{k + 2} of {n}" and b.timeline.currentIndex().row() == rows[k + 1]
    qtbot.keyClick(b.find_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert b.find_status.text() == f"{k + 1} of {n}"
    b.timeline.selectRow(rows[0])
    qtbot.keyClick(b.find_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert b.find_status.text() == f"{n} of {n}"  # wrapped to the last
    qtbot.keyClick(b.find_edit, Qt.Key.Key_End)  # (a key without Shift: QTest leaves the application's modifiers
    #                                              as the last key event had them, and the next test would inherit)
    b.find_edit.setText("cookies and no event says this")
    assert b.find_status.text() == ""
    b.find_next()
    qtbot.waitUntil(lambda: b.find_status.text() == "not found", timeout=5000)
    b.find_edit.clear()
    assert b.find_status.text() == "" and b.found is None


def test_the_demo_store_opens_unfiltered_and_the_users_filter_comes_back(window, qtbot):
    store = window.store
    lst = window.sessions
    lst.filter.setText("login")
    lst.status_filter.setCurrentIndex(2)
    qtbot.waitUntil(lambda: lst.model.filters.get("text") == "login", timeout=5000)
    window.set_store(store, first_run=False, demo=True)  # (the same rows serve: only the filters matter here)
    assert lst.filter.text() == "" and lst.status_filter.currentIndex() == 0 and lst.sidebar_filters == {}
    assert "text" not in lst.model.filters and "status" not in lst.model.filters
    window.set_store(store, first_run=False)
    assert lst.filter.text() == "login" and lst.status_filter.currentIndex() == 2
    assert lst.model.filters.get("text") == "login"


def test_facts_here_name_files_from_the_sessions_folder(window, qtbot, tmp_path):
    from sessionscope.gui.reader.detail_view import fact_label
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import Transcript
    assert fact_label("file:/work/app/src/a.py", "/work/app") == "file:src/a.py"
    assert fact_label("file:/elsewhere/a.py", "/work/app") == "file:/elsewhere/a.py"
    assert fact_label("file:/work/application/a.py", "/work/app") == "file:/work/application/a.py"
    assert fact_label("todos", "/work/app") == "todos" and fact_label("file:/a", "") == "file:/a"
    t = Transcript(cwd="/work/app")
    t.user("edit two files deep in the tree")
    for name in ("lib/spotter/services/transcript_renderer.ex", "lib/spotter/transcripts/jsonl_parser.ex"):
        call = t.assistant(tool=("Edit", {"file_path": f"/work/app/{name}", "old_string": "a", "new_string": "b"}))
        t.tool_result(call, "updated")
    t.write(tmp_path / "p")
    import_paths(window.store, [tmp_path / "p"])
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(t.session_id) >= 0, timeout=10000)
    window.open_session(t.session_id)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == t.session_id
                    and "edit two files" in window.branch.timeline_label.text()
                    and window.branch.timeline_model.rowCount() >= 3, timeout=10000)
    window.branch.timeline.selectRow(window.branch.timeline_model.rowCount() - 1)
    facts = window.branch.detail.facts
    qtbot.waitUntil(lambda: any("jsonl_parser" in facts.topLevelItem(i).text(0)
                                for i in range(facts.topLevelItemCount())), timeout=5000)
    shown = {facts.topLevelItem(i).text(0): facts.topLevelItem(i).toolTip(0) for i in range(facts.topLevelItemCount())}
    assert shown["file:lib/spotter/transcripts/jsonl_parser.ex"] == "file:/work/app/lib/spotter/transcripts/jsonl_parser.ex"


def test_a_session_with_no_branch_is_shown_and_said_ready(qtbot, tmp_path):
    """A session with nothing on a branch (in the corpus: a file of one checkpoint line): the timeline says so and
    the pane says it is ready (`--screenshot` waited for ever when such a session came first in the list)."""
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    store = open_store(tmp_path / "s.db")
    empty = store.open_session(title="nothing yet").id
    make_app()
    w = MainWindow()
    qtbot.addWidget(w)
    w.set_store(store, first_run=False)
    qtbot.waitUntil(lambda: w.session is not None, timeout=10000)  # the list's first row, opened
    with qtbot.waitSignal(w.branch.sig_ready, timeout=5000):
        w.branch.refreshed(store.session(empty))
    assert w.session.id == empty and w.branch.timeline_label.text() == "(no events)"
    w.imports.watcher.stop()
