"""One action table, one rule table: every QAction of the window comes from gui/window/action_table.py, and the
window and the command line refuse the same actions of the same sessions with the same words
(sessionscope.ops.RULES, read through each session's source)."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from sessionscope import ops
from sessionscope.cli.main import main
from sessionscope.gui.window.action_table import BY_ID, CONTEXTS, MENUS, SUBMENUS, TABLE
from sessionscope.sources.claude_code import import_paths
from tests.sources.test_claude_fidelity import tool_loop


def _menu_actions(menu: QMenu) -> list[QAction]:
    found = []
    for a in menu.actions():
        found += _menu_actions(a.menu()) if a.menu() else [a]
    return found


def _acting(actions) -> list[QAction]:
    """Actions that act (not separators, submenus, or Qt's own: a line edit's clear button)."""
    return [a for a in actions if not a.isSeparator() and not a.menu() and not a.objectName().startswith("_q_")]


def test_every_action_of_every_menu_comes_from_the_table(window, qtbot):
    seen: dict[str, str] = {}
    for top in window.menuBar().actions():
        for a in _acting(_menu_actions(top.menu())):
            seen[a.objectName()] = f"menu {top.text()}"
    for widget in [window, *window.findChildren(QWidget)]:  # the toolbar and every widget's context menu
        if isinstance(widget, QMenu):
            continue
        for a in _acting(widget.actions()):
            seen.setdefault(a.objectName(), type(widget).__name__)
    qtbot.waitUntil(lambda: window.branch.tree.tree_model.rowCount() > 0, timeout=5000)
    nodes = window.branch.tree.tree_model.layout_.nodes
    window.branch.tree.sig_menu.emit(next(n for n in nodes if not n.fork_session).id, QPoint(0, 0))
    seen.update({a.objectName(): "the tree's menu" for a in _acting(window.tree_menu.actions())})
    window.tree_menu.close()
    fork = next((n for n in nodes if n.fork_session), None)
    assert fork is not None  # the demo's first session has a fork
    window.branch.tree.sig_fork_menu.emit(fork.fork_session, QPoint(0, 0))
    seen.update({a.objectName(): "a fork node's menu" for a in _acting(window.tree_menu.actions())})
    window.tree_menu.close()
    strays = {name: where for name, where in seen.items() if name not in BY_ID}
    assert not strays, f"actions built outside the table: {strays}"
    assert set(seen) == set(BY_ID), f"rows that appear nowhere: {set(BY_ID) - set(seen)}"
    # every place a row names exists, and the shortcuts dialog lists each row that has keys or a gesture
    places = set(MENUS) | set(SUBMENUS) | set(CONTEXTS)
    assert {p for row in TABLE for p in row.places} <= places
    window.qactions["app.shortcuts"].trigger()
    from PySide6.QtWidgets import QTableWidget
    table = window.openers.shortcuts_dialog.findChild(QTableWidget)
    listed = {table.item(r, 0).text() for r in range(table.rowCount())}
    assert {"Send to the Agent", "Show This Branch", "Copy"} <= listed
    window.openers.shortcuts_dialog.close()


# each rule the command line can be asked to break, as its command (S: the session, E: its first event)
CLI = {
    "compact": ["compact", "S", "--summary", "so far"], "archive": ["archive", "S"], "unarchive": ["unarchive", "S"],
    "close": ["close", "S"], "pause": ["pause", "S"], "delete": ["delete", "S", "--yes"], "write_back": ["write-back", "S"],
    "resume": ["resume", "S"], "send": ["send", "S", "hello"], "interrupt": ["interrupt", "S"],
    "rewind": ["rewind", "S", "--to", "E"], "fork": ["fork", "S", "--at", "E"],
    "restore_files": ["restore-files", "S", "--to", "E", "--dry-run"],
    "undo_restore": ["restore-files", "S", "--undo", "--yes"], "redo_restore": ["restore-files", "S", "--redo", "--yes"],
    "copy_resume": ["resume", "S"], "share": ["team", "share", "S"],
}
PREVIEWS = ("resume", "copy_resume", "restore_files", "undo_restore", "redo_restore")  # refused while reading
WINDOW = {row.rule: row.id for row in TABLE if row.rule}  # each rule, as one of the window's actions


def test_the_window_and_the_command_line_refuse_alike(window, qtbot, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    t, _ids = tool_loop(tmp_path / "claude" / "projects" / "-work-app")
    store = window.store
    import_paths(store, [tmp_path / "claude" / "projects"])
    archived = next(s for s in store.sessions(include_archived=True) if s.status == "archived")
    native = next(s for s in store.sessions() if s.source_kind == "native" and s.status in ("idle", "active"))
    url = store.url.removeprefix("sqlite:///")
    refusals = 0
    for session in (store.session(t.session_id), archived, native):
        window.qactions["view.show_archived"].setChecked(True)
        window.sessions.refilter()
        qtbot.waitUntil(lambda s=session: window.sessions.model.row_of(s.id) >= 0, timeout=10000)
        with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
            window.open_session(session.id)
        window.branch.timeline.selectRow(0)
        qtbot.waitUntil(lambda: window.branch.detail.current_event is not None, timeout=5000)
        first = window.branch.detail.current_event.id
        for rule in ops.RULES:
            why = ops.refusal(session, rule)
            action = window.qactions.get(WINDOW.get(rule, ""))
            if action is not None:  # the window: enabled exactly where the rule allows, and says why not
                assert action.isEnabled() == (why is None), (session.source_kind, session.status, rule, why)
                assert why is None or why in action.toolTip()
            if why is None or rule not in CLI:
                continue
            refusals += 1
            argv = [session.id if a == "S" else first if a == "E" else a for a in CLI[rule]]
            rc = main(["--store", url, *argv])
            err = capsys.readouterr().err
            assert rc == 1 and why in err, (rule, session.source_kind, err)
            last = store.audit_log(session.id, limit=1)
            if rule not in PREVIEWS:  # (reading what would be done is not an action: refused before it)
                assert last[0]["outcome"] == "refused" and last[0]["action"] == ops.RULES[rule].action, (rule, last)
    assert refusals >= 20  # 24 today, over the three sessions
    # the bug that started it: a Claude Code session is not compacted, from either front end
    assert "not compacted by Sessionscope" in ops.refusal(store.session(t.session_id), "compact")
