"""The window tells the truth: what the panes show is what actions hit, failures are said, store work
stays off the UI thread, files given to it open, and exports never come back into their origin."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from tests.gui.test_window import _select, _wait_changes


def test_the_tree_menu_offers_the_registry_actions_as_they_apply(window, qtbot, monkeypatch):
    from PySide6.QtCore import QPoint
    s = _select(window, qtbot, "Write the release notes for 2.4")
    with _wait_changes(window, qtbot):
        window.qactions["session.archive"].trigger()
    window.qactions["view.show_archived"].setChecked(True)
    window.sessions.refilter()
    qtbot.waitUntil(lambda: any(r.id == s.id for r in window.sessions.model.rows), timeout=5000)
    _select(window, qtbot, "Write the release notes for 2.4")
    qtbot.waitUntil(lambda: window.branch.tree.tree_model.rowCount() > 0, timeout=5000)
    node = window.branch.tree.tree_model.layout_.nodes[0]
    window.branch.tree.sig_menu.emit(node.id, QPoint(0, 0))
    menu = window.tree_menu
    items = {a.objectName(): a for a in menu.actions()}
    assert not items["session.rewind"].isEnabled()  # an archived session is not rewound: not offered
    assert items["session.fork"].isEnabled() and items["session.fork"].text() == window.qactions["session.fork"].text()
    assert items["tree.show_branch"].isEnabled() and items["tree.export_branch"].isEnabled()
    menu.close()


def test_the_tree_from_the_keyboard_and_a_fork_node_opens_the_fork(window, qtbot):
    from PySide6.QtCore import Qt

    from sessionscope.gui.sessions.session_model import lineage, lineage_icon
    s = _select(window, qtbot, "Fix the flaky login test")
    qtbot.waitUntil(lambda: window.branch.tree.tree_model.rowCount() > 0, timeout=5000)
    nodes = window.branch.tree.tree_model.layout_.nodes
    branch = next(n for n in nodes if not n.fork_session and n.tip != s.head_event_id)
    window.branch.tree.setFocus()
    window.branch.tree.setCurrentIndex(window.branch.tree.tree_model.index(branch.row))
    qtbot.keyClick(window.branch.tree, Qt.Key.Key_Return)  # Enter shows that node's branch, as a click does
    qtbot.waitUntil(lambda: "another branch" in window.branch.timeline_label.text(), timeout=5000)
    fork = next(n for n in nodes if n.fork_session)
    window.branch.tree.setCurrentIndex(window.branch.tree.tree_model.index(fork.row))
    window.branch.tree.customContextMenuRequested.emit(window.branch.tree.viewport().rect().bottomRight() * 4)  # the Menu key
    items = {a.objectName(): a for a in window.tree_menu.actions()}
    items["tree.open_fork"].trigger()
    qtbot.waitUntil(lambda: window.session.id == fork.fork_session, timeout=5000)
    assert lineage(window.session) == "fork"
    row = window.sessions.model.row_of(window.session.id)
    icon = window.sessions.model.index(row, 0).data(Qt.ItemDataRole.DecorationRole)
    assert icon.cacheKey() == lineage_icon("fork").cacheKey() and not icon.isNull() and not icon.pixmap(16, 16).isNull()
    assert not lineage_icon("rewind").pixmap(16, 16).isNull()
    window.tree_menu.close()


def test_a_timeline_page_that_cannot_be_read_says_so(qtbot, store, monkeypatch):
    import sqlite3

    from sessionscope.gui.reader.timeline_model import TimelineModel
    s = store.open_session()
    for i in range(5):
        store.append(s.id, "message", role="user", text=f"line {i}")
    model = TimelineModel()
    ids = store.branch_ids(s.id)

    def unreadable(_ids):  # as SQLite says it when the disk goes away under the store
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(store, "events_by_ids", unreadable)
    model.show_ids(store, ids)
    model.data(model.index(0, 3))  # asks for the page
    qtbot.waitUntil(lambda: bool(model.failed), timeout=5000)
    assert model.data(model.index(0, 3)).startswith("⚠ could not be read")


def test_the_timeline_gets_its_share_of_the_window_at_first_start(qtbot, tmp_path):
    """No page of the session list may demand a width that squeezes the timeline (an unwrapped empty-state
    text once did: 938 px of a 1,440 px window)."""
    from sessionscope.gui.window.main_window import MainWindow
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1440, 860)
    w.show()
    qtbot.waitExposed(w)
    for i in range(w.sessions.count()):
        assert w.sessions.widget(i).minimumSizeHint().width() < 500
    w.center.setSizes([600, 650])
    list_width, right_width = w.center.sizes()
    assert right_width >= 0.45 * (list_width + right_width)


def test_an_empty_list_clears_the_panes_and_session_actions_hit_nothing(window, qtbot):
    s = _select(window, qtbot, "Fix the flaky login test")
    assert window.qactions["session.archive"].isEnabled()
    with qtbot.waitSignal(window.sessions.model.sig_loaded, timeout=10000):
        window.sessions.filter.setText("no session is called this")
    assert window.sessions.model.rowCount() == 0
    assert window.session is None and window.branch.timeline_model.rowCount() == 0 and window.branch.detail.current_event is None
    assert not window.qactions["session.archive"].isEnabled() and not window.qactions["session.export"].isEnabled()
    window.qactions["session.archive"].trigger()  # Ctrl+E with nothing shown
    assert window.store.session(s.id).status != "archived"
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.sessions.filter.clear()  # the list comes back, and the panes with it
    assert window.session is not None and window.branch.timeline_model.rowCount() > 0


def test_the_panes_show_the_highlighted_session(window, qtbot):
    from PySide6.QtCore import QItemSelectionModel as Sel
    from PySide6.QtCore import Qt
    view, rows = window.sessions.view, window.sessions.model.rows
    sm = view.selectionModel()
    _select(window, qtbot, rows[0].title)

    def ctrl_click(row):  # a person's Ctrl+click: the row becomes current, its selection toggles
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                         view.visualRect(window.sessions.model.index(row, 0)).center())

    ctrl_click(1)  # adds row 1: it is current, highlighted and shown
    qtbot.waitUntil(lambda: window.session.id == rows[1].id, timeout=5000)
    qtbot.waitUntil(lambda: window.openers.selected_session_ids() == [rows[0].id, rows[1].id], timeout=5000)
    ctrl_click(1)  # takes row 1 out again: the panes go back to what stays highlighted
    qtbot.waitUntil(lambda: window.session.id == rows[0].id, timeout=5000)
    assert window.openers.selected_session_ids() == [rows[0].id]
    last = window.sessions.model.rowCount() - 1
    # Ctrl+End moves the current row only: it joins the selection, so an export offers what is shown
    sm.setCurrentIndex(window.sessions.model.index(last, 0), Sel.SelectionFlag.NoUpdate)
    qtbot.waitUntil(lambda: window.session.id == rows[last].id, timeout=5000)
    qtbot.waitUntil(lambda: rows[last].id in window.openers.selected_session_ids(), timeout=5000)


def test_deleting_the_shown_session_moves_on_without_an_error(window, qtbot, monkeypatch):
    s = _select(window, qtbot, "Write the release notes for 2.4")
    said = []

    def warning(parent, title, text, *a, **k):
        said.append(f"{title}: {text}")
        return QMessageBox.StandardButton.Yes
    monkeypatch.setattr(QMessageBox, "warning", warning)
    with _wait_changes(window, qtbot):
        window.qactions["session.delete"].trigger()
    qtbot.waitUntil(lambda: window.session is not None and window.session.id != s.id, timeout=10000)
    qtbot.wait(300)  # a refresh of the deleted session would fail about now
    assert len(said) == 1 and "for good" in said[0]  # the question, and no "Could not refresh the session"


def test_import_problems_are_shown_where_the_status_bar_says(window, qtbot, monkeypatch, tmp_path):
    from sessionscope.gui.dialogs.problems_dialog import ProblemsDialog
    from tests.sources.claude_factory import Transcript
    t = Transcript()
    t.user("hello")
    t.assistant("hi")
    path = t.write(tmp_path / "p")
    with open(path, "a") as fh:
        fh.write("{not json\n")
    (tmp_path / "p" / "notes.jsonl").write_text('{"some": "other tool"}\n')
    shown = []
    monkeypatch.setattr(ProblemsDialog, "exec", lambda self: shown.append(self) or self.show() or 0)
    finished = []
    window.imports.job.sig_finished.connect(finished.append)
    window.imports.start(window.store, [str(tmp_path / "p")])
    qtbot.waitUntil(lambda: bool(finished), timeout=30000)
    assert "File ▸ Import Problems…" in window.statusBar().currentMessage()
    window.qactions["app.problems"].trigger()
    dialog = shown[0]
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: "problem" in dialog.summary.text() and "Reading" not in dialog.summary.text(),
                    timeout=5000)
    rows = [dialog.list.topLevelItem(i).text(2) for i in range(dialog.list.topLevelItemCount())]
    assert any("not valid JSON" in r for r in rows) and any("left alone" in r for r in rows)
    # each problem is read whole below the list: its file, its line and all of its text
    for i in range(dialog.list.topLevelItemCount()):
        item = dialog.list.topLevelItem(i)
        dialog.list.setCurrentItem(item)
        whole = dialog.whole.toPlainText()
        assert whole.startswith(item.toolTip(0)) and item.text(2) in whole


def test_an_export_the_watcher_picks_up_is_a_fork_never_part_of_its_origin(window, qtbot, monkeypatch, tmp_path):
    """The manual: exports never change the store. With the window's watcher running over Claude Code's folder,
    a Claude-format export written there comes in as a session of its own, forked from its origin."""
    from pathlib import Path

    from sessionscope.export.core import ExportRequest, export
    from sessionscope.sources.claude_code import import_paths
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    (tmp_path / "claude" / "projects").mkdir(parents=True)
    import_paths(window.store, [tmp_path / "claude" / "projects"])  # a known place: the watcher rescans it
    s = _select(window, qtbot, "Fix the flaky login test")
    before = window.store.session(s.id)
    report = export(window.store, ExportRequest("claude", (s.id,)), None)
    copy_id = Path(report.files[0]).stem
    assert window.imports.watcher.timer.isActive()

    def arrived():
        try:
            return window.store.session(copy_id)
        except Exception:
            return None
    qtbot.waitUntil(lambda: arrived() is not None, timeout=15000)
    qtbot.wait(2500)  # one more watcher round
    after = window.store.session(s.id)
    assert (after.event_count, after.title, after.head_event_id) == (before.event_count, before.title,
                                                                      before.head_event_id)
    assert arrived().forked_from_session == s.id and arrived().title.endswith("(export)")


def test_help_about_names_the_version_and_the_store(window, monkeypatch):
    from sessionscope.store.revision import version
    said = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: said.append(text))
    window.qactions["app.about"].trigger()
    assert version() in said[0] and str(window.store.url) in said[0]


def test_sessionscope_file_opens_the_window_on_it(window, qtbot, tmp_path):
    """What the .desktop file's `Exec=sessionscope %F` does: the files are imported (an export here) and
    the session they hold is shown."""
    from sessionscope import open_store
    from sessionscope.cli.parser import file_arguments
    from sessionscope.export.core import ExportRequest, export
    other = open_store(tmp_path / "elsewhere.db")
    s = other.open_session(title="brought over")
    other.append(s.id, "message", role="user", text="hello from elsewhere")
    export(other, ExportRequest("jsonl", (s.id,)), tmp_path / "brought.jsonl")
    other.close()
    files, rest = file_arguments([str(tmp_path / "brought.jsonl"), "--store", "x.db"])
    assert files == [str(tmp_path / "brought.jsonl")] and rest == ["--store", "x.db"]
    assert file_arguments(["list"]) == ([], ["list"])  # a command is never taken for a file
    window.import_commands.open_paths(files)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == s.id, timeout=30000)
    assert window.session.title == "brought over"


def test_settings_read_and_save_the_store_off_the_ui_thread(window, qtbot):
    from sessionscope.export.core import redaction_patterns
    from sessionscope.gui.dialogs.settings_dialog import SettingsDialog
    dialog = SettingsDialog(window.store, window)
    qtbot.addWidget(dialog)
    assert not dialog.ok.isEnabled()  # nothing shown yet: nothing to save over the store's settings
    qtbot.waitUntil(dialog.ok.isEnabled, timeout=5000)
    dialog.patterns.setPlainText("ACME-[0-9]{6}")
    dialog.archive_after.setValue(30)
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.accept()
    assert redaction_patterns(window.store) == ["ACME-[0-9]{6}"]
    assert window.store.retention_policy().archive_after_days == 30


def test_new_events_keep_the_readers_place_unless_they_follow_the_end(window, qtbot):
    # (waits are generous: the watcher looks every 2 s, and under a full parallel run a pass has taken longer)
    s = _select(window, qtbot, "Fix the flaky login test")
    qtbot.waitUntil(lambda: window.branch.timeline_model.rowCount() > 5, timeout=15000)
    rows = window.branch.timeline_model.rowCount()
    window.branch.timeline.selectRow(2)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None, timeout=15000)
    reading = window.branch.detail.current_event.id
    qtbot.waitUntil(lambda: window.imports.watcher.mark is not None, timeout=15000)
    window.store.append(s.id, "message", role="user", text="another writer adds a prompt")  # as an agent would
    qtbot.waitUntil(lambda: window.branch.timeline_model.rowCount() == rows + 1, timeout=20000)
    qtbot.wait(200)
    assert window.branch.detail.current_event.id == reading  # not thrown back to the first row
    window.branch.timeline.selectRow(rows)  # the last row: the reader follows what comes
    qtbot.waitUntil(lambda: getattr(window.branch.detail.current_event, "text", None) == "another writer adds a prompt",
                    timeout=15000)
    window.store.append(s.id, "message", role="assistant", text="and a reply")
    qtbot.waitUntil(lambda: window.branch.timeline_model.rowCount() == rows + 2, timeout=20000)
    qtbot.waitUntil(lambda: getattr(window.branch.detail.current_event, "text", None) == "and a reply", timeout=15000)


def test_a_bidi_override_in_a_title_is_shown_not_obeyed(window, qtbot):
    """#29 item 2: `‮exe.txt` would read as `txt.exe`; the list, its tooltip and the timeline's header show it."""
    from PySide6.QtCore import Qt

    rows = window.sessions.model.rows
    window.store.rename(rows[0].id, "\u202eexe.txt\x1b[2J")
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: any((r.title or "").startswith("\u202e") for r in window.sessions.model.rows), timeout=10000)
    row = next(i for i, r in enumerate(window.sessions.model.rows) if (r.title or "").startswith("\u202e"))
    model = window.sessions.model
    shown = model.data(model.index(row, 0))
    tip = model.data(model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
    for text in (shown, tip):
        assert "\u202e" not in text and "\x1b" not in text and "\\u202eexe.txt\\e[2J" in text


def test_a_damaged_store_is_said_with_what_to_do(window, qtbot, monkeypatch):
    """#29 item 18: a failure that is the store's damage is said once, naming repair (not "something failed")."""
    from sessionscope.store.db import DAMAGED_ADVICE, StoreUnavailable
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text, *a: said.append((title, text)))
    from sessionscope.gui.jobs.workers import report_error  # where a worker's unhandled error goes: the window
    report_error(StoreUnavailable(DAMAGED_ADVICE.format(problem="row 7 missing from index")))
    report_error(StoreUnavailable(DAMAGED_ADVICE.format(problem="again")))
    assert len(said) == 1 and said[0][0] == "The store is damaged" and "repair" in said[0][1]
    assert "repair" in window.statusBar().currentMessage()


def test_rewind_quotes_its_event_and_another_session_opens_at_its_start(window, qtbot, monkeypatch):
    """#29 item 25: the question names the event (number, time, its words) as Fork does; switching sessions
    from the last row of one opens the next at its start, not at its end."""
    rows = window.sessions.model.rows
    first = _select(window, qtbot, rows[0].title)
    last = window.branch.timeline_model.rowCount() - 1
    window.branch.timeline.selectRow(last)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None, timeout=10000)
    event = window.branch.detail.current_event
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda _p, title, text, *a: asked.append(text)
                        or QMessageBox.StandardButton.No)
    window.actions_.rewind(first, event)
    words = " ".join(event.text.split())[:20]
    assert f"event #{event.seq}" in asked[0] and words in asked[0]
    other = next(s for s in rows if s.id != first.id and s.event_count > 3)
    _select(window, qtbot, other.title)
    assert window.branch.timeline.currentIndex().row() == 0


def test_a_source_chosen_in_the_sidebar_stays_chosen_as_its_counts_refresh(window, qtbot):
    """#29 item 24: the sidebar is refilled every few seconds; a source (a child of Sources) stayed chosen only
    until then, and the list fell back to every session."""
    from PySide6.QtCore import Qt
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: any(it.data(0, Qt.ItemDataRole.UserRole) == {"source_kind": "native"}
                                for it in sidebar._items()), timeout=10000)
    native = next(it for it in sidebar._items() if it.data(0, Qt.ItemDataRole.UserRole) == {"source_kind": "native"})
    sidebar.setCurrentItem(native)
    assert window.sessions.sidebar_filters == {"source_kind": "native"}
    emitted = []
    sidebar.sig_filter.connect(emitted.append)
    for _ in range(2):
        sidebar.refresh()
        qtbot.wait(300)
    assert window.sessions.sidebar_filters == {"source_kind": "native"} and emitted == []
    assert sidebar.currentItem().data(0, Qt.ItemDataRole.UserRole) == {"source_kind": "native"}
    assert window.sessions.view.currentIndex().row() == 0 and window.session is not None  # a row is highlighted


def test_a_watched_folder_can_be_removed_in_settings_and_its_sessions_stay(window, qtbot, tmp_path, monkeypatch):
    """Settings ▸ Sources ▸ Stop Watching: the place is rescanned no more (nor imported again as a first
    run's default), its sessions stay, the change is in the audit log; adding it again watches it again."""
    from PySide6.QtCore import Qt

    from sessionscope.gui.dialogs.settings_dialog import SettingsDialog
    from sessionscope.gui.jobs.import_controller import _first_run_roots
    from sessionscope.sources.importing import import_paths
    from tests.sources.claude_factory import Transcript
    t = Transcript()
    t.user("a session from a watched folder")
    folder = tmp_path / "watched"
    t.write(folder)
    import_paths(window.store, [folder])
    place = str(folder.absolute())
    assert place in window.store.source_locations()

    def settings():
        d = SettingsDialog(window.store, window)
        qtbot.addWidget(d)
        qtbot.waitUntil(d.ok.isEnabled, timeout=5000)
        return d
    dialog = settings()
    item = dialog.sources.findItems(place, Qt.MatchFlag.MatchExactly)[0]
    item.setSelected(True)
    assert dialog.remove.isEnabled()
    dialog.remove.click()
    assert not dialog.sources.findItems(place, Qt.MatchFlag.MatchExactly)
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.accept()
    assert place not in window.store.source_locations() and place in window.store.source_locations(unwatched=True)
    assert window.store.session(t.session_id).title == "a session from a watched folder"  # kept
    entry = window.store.audit_log()[0]
    assert entry["action"] == "unwatch" and entry["detail"]["locations"] == [place]
    from sessionscope.sources import importing
    monkeypatch.setattr(importing, "default_roots", lambda: [folder.absolute()])  # were it a tool's default place:
    assert _first_run_roots(window.store) == []  # the next start does not import it again

    dialog = settings()
    dialog.added.append(place)  # (what Add Folder… does once the folder is chosen)
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.accept()
    assert place in window.store.source_locations()
