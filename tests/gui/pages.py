"""Waiting for the timeline's pages as the window gets them (asked for by a painted row, read on a worker), and
the dialogs a test answers as a person would."""

from __future__ import annotations


def loaded(model, qtbot, *rows: int) -> None:
    """Ask for the pages of `rows` (as painting them does) and wait until their events are here."""
    for row in rows:
        model.data(model.index(row, 3))
    qtbot.waitUntil(lambda: all(model.event_at(r) is not None for r in rows), timeout=10000)


def choose_first_reply(window, qtbot):
    """Make the first assistant reply among the timeline's first rows the event chosen; that event."""
    tm, timeline = window.branch.timeline_model, window.branch.timeline
    loaded(tm, qtbot, *range(min(10, tm.rowCount())))
    row = next(r for r in range(tm.rowCount()) if (e := tm.event_at(r)) is not None and e.kind == "message"
               and e.role == "assistant")
    timeline.setCurrentIndex(tm.index(row, 0))
    return tm.event_at(row)


def answer_tags(monkeypatch, add: str = "", remove: str = "") -> list:
    """The Tags dialog filled in and accepted as a person would (its real widgets, without its modal loop): `add`
    is the one session's tags, or with several sessions the tags to add; `remove` the tags to take away. The
    dialogs shown, for a test to look at."""
    from PySide6.QtWidgets import QDialog

    from sessionscope.gui.sessions.tag_edit import TagsDialog
    seen = []

    def exec_(dialog):
        seen.append(dialog)
        dialog.add.setText(add)
        if dialog.remove is not None:
            dialog.remove.setText(remove)
        return QDialog.DialogCode.Accepted
    monkeypatch.setattr(TagsDialog, "exec", exec_)
    return seen
