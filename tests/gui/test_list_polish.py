"""The session list as people read it: relative times (the exact one in the tooltip), and projects
that share a folder name told apart by their parent folder, in the list and the sidebar."""

from __future__ import annotations

import datetime as dt


def test_relative_times():
    from sessionscope.gui.session_model import ago, when
    now = dt.datetime(2026, 11, 23, 15, 0).timestamp()
    assert [ago(now - s, now) for s in (5, 240, 3 * 3600)] == ["just now", "4 min ago", "3 h ago"]
    assert ago(now - 20 * 3600, now) == "20 h ago" and ago(now - 30 * 3600, now) == "yesterday"
    assert ago(now - 3 * 86400, now) == "3 days ago"
    assert ago(now - 30 * 86400, now) == when(now - 30 * 86400) and ago(0) == ""


def test_projects_sharing_a_name_show_their_parent():
    from sessionscope.gui.session_model import project_labels
    labels = project_labels(["/home/alice/project", "/home/bob/project", "/work/api", "", "/srv/bob/project/"])
    assert labels == {"/home/alice/project": "alice/project", "/home/bob/project": "bob/project",
                      "/work/api": "api", "/srv/bob/project/": "bob/project"}


def test_the_list_shows_them(window, qtbot):
    from PySide6.QtCore import Qt

    from sessionscope.gui.session_model import COLUMNS
    col = {key: i for i, (key, *_r) in enumerate(COLUMNS)}
    m = window.sessions_model
    import re
    cell = m.index(0, col["updated"])  # the demo's newest session: minutes or hours ago
    assert re.fullmatch(r"just now|\d+ min ago|\d+ h ago|yesterday", cell.data()), cell.data()
    assert "started" in cell.data(Qt.ItemDataRole.ToolTipRole)
