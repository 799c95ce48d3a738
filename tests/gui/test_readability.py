"""What a hands-on review found hard to read: kind colours below WCAG AA, a light code style on a dark
pane, terminal colour codes shown as boxes, a demo store that looked like the user's own, unlabelled
toolbar icons and no list of shortcuts."""

from __future__ import annotations


def _contrast(a: str, b: str) -> float:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    def lum(h: str) -> float:
        r, g, b_ = (linear(int(h[i:i + 2], 16) / 255) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_kind_colours_meet_wcag_aa_on_light_and_dark_rows(qapp):
    from sessionscope.gui.reader.timeline_model import KIND_COLORS, KIND_COLORS_DARK
    for colours, rows in ((KIND_COLORS, ("#ffffff", "#f7f7f7")), (KIND_COLORS_DARK, ("#2b2b2b", "#353535"))):
        for kind, colour in colours.items():
            for row in rows:
                assert colour is None or _contrast(colour, row) >= 4.5, (kind, colour, row)


def test_code_follows_the_palette_and_ansi_codes_are_not_text(qapp):
    from PySide6.QtGui import QColor, QPalette

    from sessionscope.gui.reader.detail_view import code_html, event_html
    from sessionscope.gui.reader.timeline_model import first_line
    from sessionscope.history.read_models import EventView

    assert first_line("\x1b[31mFAILED\x1b[0m tests/test_app.py \x1b]0;title\x07done") == "FAILED tests/test_app.py done"
    light = code_html('{"a": 1}')
    old = qapp.palette()
    dark = QPalette(old)
    dark.setColor(QPalette.ColorRole.Base, QColor("#2b2b2b"))
    qapp.setPalette(dark)
    try:
        dark_html = code_html('{"a": 1}')
        assert dark_html != light and "#F8F8F2" in dark_html  # monokai's light text
        # on the pane's own background: the style's drew a bar behind each line
        assert "background" not in dark_html and "background" not in light
    finally:
        qapp.setPalette(old)
    e = EventView(id="e1", session_id="s", parent_id=None, seq=1, depth=0, ts=0.0, kind="tool_result", role="tool",
                  text="\x1b[1m\x1b[32m3 passed\x1b[0m", payload="", tokens_in=0, tokens_out=0, sidechain=False,
                  agent_id=None, hash="")
    assert "3 passed" in event_html(e) and "\x1b" not in event_html(e)


def test_the_demo_store_says_so_and_leads_back(window, qtbot, tmp_path):
    from sessionscope import open_store
    store = window.store
    window.set_store(store, first_run=False, demo=True)
    assert "demo store" in window.windowTitle() and window.qactions["app.own_store"].isEnabled()
    assert not window.qactions["app.demo"].isEnabled()
    own = tmp_path / "own.db"
    open_store(own).close()
    window.own_store_url = str(own)
    window.qactions["app.own_store"].trigger()
    qtbot.waitUntil(lambda: window.store is not store, timeout=10000)
    assert window.windowTitle() == "Sessionscope" and not window.qactions["app.own_store"].isEnabled()
    assert window.store.url.endswith("own.db")


def test_toolbar_buttons_are_labelled_and_shortcuts_are_listed(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QToolBar
    bar = window.findChild(QToolBar, "main-toolbar")
    assert bar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonTextUnderIcon
    labels = [a.iconText() for a in bar.actions() if not a.isSeparator()]
    assert labels[:7] == ["Home", "Rescan", "Search", "Reader", "Usage", "Resume", "Fork"]
    from PySide6.QtWidgets import QTableWidget
    window.qactions["app.shortcuts"].trigger()
    table = window.openers.shortcuts_dialog.findChild(QTableWidget)
    listed = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert listed["Fork at Event"] == "Ctrl+Shift+K" and listed["Rescan Sources"] == "F5"
    assert listed["Manual"] == "F1" and listed["Keyboard Shortcuts"] == "Ctrl+/"
    window.openers.shortcuts_dialog.close()


def test_slash_commands_read_as_typed(qapp):
    from sessionscope.gui.reader.timeline_model import first_line, readable
    assert first_line("<command-message>model</command-message>\n<command-name>/model</command-name>\n"
                      "<command-args>opus</command-args>") == "/model opus"
    assert readable("<bash-input>git status</bash-input>") == "! git status"
    assert readable("<local-command-stdout>Set model to opus</local-command-stdout>") == "Set model to opus"
    assert readable("plain <b>html</b> stays") == "plain <b>html</b> stays"


def test_the_text_column_gets_the_width_and_panes_never_vanish(window, qtbot):
    window.resize(1280, 800)
    header = window.branch.timeline.horizontalHeader()
    # Text, not Who (the columns are fitted a turn of the event loop after a resize: a loaded machine takes longer)
    qtbot.waitUntil(lambda: header.sectionSize(3) > 2 * header.sectionSize(2), timeout=5000)
    assert not window.center.childrenCollapsible() and window.sessions.view.minimumWidth() == 260
    assert window.sessions.minimumSizeHint().width() < 600


def test_source_badges_keep_white_text_readable():
    from sessionscope import sources
    for source in [*sources.tools(), sources.of("native")]:
        text, colour = source.badge
        assert text and _contrast("#ffffff", colour) >= 4.5, (source.kind, colour)


def test_the_window_says_when_others_can_read_the_store(window):
    import os
    from pathlib import Path

    from sessionscope.store.locations import sqlite_path
    path = Path(sqlite_path(window.store.url))
    os.chmod(path, 0o644)
    window.set_store(window.store, first_run=False)
    assert "readable by other users" in window.statusBar().currentMessage()
    os.chmod(path, 0o600)
    window.set_store(window.store, first_run=False)
    assert "readable by other users" not in window.statusBar().currentMessage()


def test_the_demo_store_takes_no_import_and_import_folder_starts_at_home(window, qtbot, tmp_path, monkeypatch):
    """#58 item 20: while the demo was open, File ▸ Import Folder… started in the working directory with Choose the
    default button: one Enter imported 980 files into the demo store, re-imported every few seconds after."""
    from pathlib import Path

    from PySide6.QtWidgets import QFileDialog

    from tests.sources.claude_factory import Transcript
    store = window.store
    before = store.count_sessions(include_archived=True)
    window.set_store(store, first_run=False, demo=True)
    for name in ("app.import", "app.import_files", "app.import_database", "app.scan"):
        action = window.qactions[name]
        assert not action.isEnabled() and "read-only" in action.toolTip(), name
    t = Transcript()
    t.user("a real session of mine")
    t.write(tmp_path / "mine")
    window.import_commands.open_paths([str(tmp_path / "mine")])  # a file manager's Open With, a drop: refused the same
    assert "read-only" in window.statusBar().currentMessage()
    assert not window.imports.job.running
    assert store.count_sessions(include_archived=True) == before
    asked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a: asked.append(a) or "")
    window.set_store(store, first_run=False, demo=False)
    window.qactions["app.import"].trigger()
    assert asked and asked[0][2] == str(Path.home())


def test_rename_and_note_boxes_are_sized_for_what_is_typed(qapp, qtbot):
    """QInputDialog's static boxes opened 175 px wide: a title was cut as it was typed, a note written in a slot."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QInputDialog

    from sessionscope.gui.dialogs import ask
    seen = []

    def look_and_answer(typed: str):
        box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QInputDialog) and w.isVisible())
        seen.append((box.width(), box.textValue()))
        box.setTextValue(typed)
        box.accept()
    QTimer.singleShot(200, lambda: look_and_answer("  a new title  "))
    assert ask.text(None, "Rename", "New title:", "old title") == "a new title"
    QTimer.singleShot(200, lambda: look_and_answer("   "))
    assert ask.text(None, "Note", "Markdown:", lines=True) is None  # nothing typed is no answer
    assert seen[0] == (ask.WIDTH[False], "old title") and seen[1][0] >= ask.WIDTH[True] > ask.WIDTH[False] >= 500
