"""Actions: stable ids first, QActions second. One table of texts, shortcuts and icons.

Menus, the toolbar and context menus are built from these ids (Picard's
MainAction registry; shortcuts in one table like git-cola's hotkeys.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QStyle, QWidget

Std = QKeySequence.StandardKey
Px = QStyle.StandardPixmap


@dataclass(frozen=True)
class ActionSpec:
    text: str
    shortcut: object = None  # a StandardKey or a string
    icon: object = None  # a QStyle.StandardPixmap
    tip: str = ""
    short: str = ""  # the toolbar's label, where the menu's text is too long for it


ACTIONS: dict[str, ActionSpec] = {
    "app.import": ActionSpec("&Import Folder…", Std.Open, Px.SP_DialogOpenButton,
                             "Import the sessions a folder holds, each file by the tool whose format it is"),
    "app.import_files": ActionSpec("Import &Files…", "Ctrl+Alt+O", None,
                                   "Import session files or databases (a LangGraph or Agents SDK .db, a trajectory…)"),
    "app.problems": ActionSpec("Import &Problems…", None, Px.SP_MessageBoxWarning,
                               "What the imports could not read, file by file and line by line"),
    "app.scan": ActionSpec("&Rescan Sources", "F5", Px.SP_BrowserReload, "Import what the known sources appended",
                           "Rescan"),
    "app.settings": ActionSpec("&Settings…", Std.Preferences, Px.SP_FileDialogDetailedView),
    "app.quit": ActionSpec("&Quit", Std.Quit),
    "app.about": ActionSpec("&About Sessionscope", None, None, "Version, store and licence"),
    "app.shortcuts": ActionSpec("&Keyboard Shortcuts", Std.HelpContents, None, "Every shortcut of the window"),
    "app.demo": ActionSpec("Open &Demo Store", None, Px.SP_DesktopIcon),
    "app.own_store": ActionSpec("Back to &Your Store", None, Px.SP_DirHomeIcon,
                                "Leave the demo store for your own sessions"),
    "view.search": ActionSpec("&Search Everything", Std.Find, Px.SP_FileDialogContentsView, "", "Search"),
    "view.filter": ActionSpec("&Filter Sessions", "Ctrl+L"),
    "view.show_archived": ActionSpec("Show &Archived"),
    "view.usage": ActionSpec("&Usage and Cost…", "Ctrl+Shift+U", Px.SP_FileDialogContentsView,
                             "Tokens and cost per day or week, by project, model or source; the costliest sessions",
                             "Usage"),
    "view.reader": ActionSpec("Conversation &Reader", "Ctrl+Shift+R", Px.SP_FileDialogInfoView,
                              "Read the branch as a conversation, card by card (or as the table of events)", "Reader"),
    "timeline.next_prompt": ActionSpec("&Next Prompt", "Ctrl+Down", Px.SP_ArrowDown),
    "timeline.prev_prompt": ActionSpec("&Previous Prompt", "Ctrl+Up", Px.SP_ArrowUp),
    "timeline.find": ActionSpec("Find in &Session", "Ctrl+Shift+F"),
    "timeline.fold": ActionSpec("F&old Tool Output", "Ctrl+Shift+O", None,
                                "Show each tool call with the first line of its output; its results fold under it"),
    "timeline.toggle_pair": ActionSpec("Show/Hide &This Call's Output", "Space", None,
                                       "Expand or collapse the selected tool call's results (or double-click it)"),
    "session.resume": ActionSpec("&Resume", "Ctrl+Return", Px.SP_MediaPlay, "Resume in the tool itself"),
    "session.copy_resume": ActionSpec("&Copy Resume Command", "Ctrl+Shift+C"),
    "session.fork": ActionSpec("&Fork at Event…", "Ctrl+Shift+K", Px.SP_FileDialogNewFolder,
                               "A new session holding the conversation up to and including the selected event", "Fork"),
    "session.fork_turn": ActionSpec("Fork at End of &Turn…", "Ctrl+Alt+K", None,
                                    "A new session holding the selected event's whole turn (up to the next prompt)"),
    "session.rewind": ActionSpec("Re&wind to Event…", "Ctrl+Shift+Z", Px.SP_MediaSeekBackward, "", "Rewind"),
    "session.restore_files": ActionSpec("Restore &Code to Here…", "Ctrl+Alt+R", None,
                                        "Put the files back as they were when this turn's prompt was sent (a preview first)"),
    "session.restore_all": ActionSpec("Restore Code and Con&versation…", "Ctrl+Alt+Shift+R", None,
                                      "Restore the files and rewind the conversation to this turn's prompt"),
    "session.undo_restore": ActionSpec("&Undo Last Restore…", None, None,
                                       "Put back what the last restore of this session changed"),
    "session.redo_restore": ActionSpec("Redo Last Undo…", None, None,
                                       "Take back the last undo: put back what it overwrote"),
    "session.compact": ActionSpec("Co&mpact…", None),
    "session.rename": ActionSpec("Re&name…", "F2"),
    "session.archive": ActionSpec("&Archive", "Ctrl+E", Px.SP_DirClosedIcon),
    "session.unarchive": ActionSpec("&Unarchive", "Ctrl+Shift+E"),
    "session.delete": ActionSpec("&Delete…", Std.Delete, Px.SP_TrashIcon),
    "session.export": ActionSpec("E&xport…", Std.Save, Px.SP_DialogSaveButton,
                                 "Export the selected sessions (Markdown, HTML, JSONL, Claude Code)"),
    "session.export_branch": ActionSpec("Export This &Branch…", "Ctrl+Shift+S", None,
                                        "Export the branch from the root to the selected event"),
    "session.tag": ActionSpec("&Tags…", None, None, "Set the session's tags (in the tool's own file where it keeps one)"),
    "session.restore": ActionSpec("Write &Back to Its Tool…", None, None,
                                  "Write a session kept here back where its tool finds it (after the tool deleted it)"),
    "facts.compare": ActionSpec("&Compare…", "Ctrl+D", Px.SP_FileDialogListView,
                                "Two sessions selected, a fork and its origin, or the branch shown and the head: "
                                "side by side from where they part, with what each changed, cost and ended with",
                                "Compare"),
    "facts.compare_points": ActionSpec("Compare &Facts at Two Points…", None, None,
                                       "The durable facts at any two events, branch heads or sessions' heads"),
}


def build(window: QWidget, handlers: dict[str, object]) -> dict[str, QAction]:
    """QActions for every id, connected to handlers[id]."""
    actions = {}
    for action_id, spec in ACTIONS.items():
        a = QAction(spec.text, window)
        a.setObjectName(action_id)
        if spec.shortcut is not None:
            a.setShortcut(QKeySequence(spec.shortcut))
        if spec.icon is not None:
            a.setIcon(window.style().standardIcon(spec.icon))
        if spec.short:
            a.setIconText(spec.short)
        if spec.tip:
            a.setStatusTip(spec.tip)
            a.setToolTip(spec.tip)
        if action_id in handlers:
            a.triggered.connect(handlers[action_id])
        actions[action_id] = a
    return actions
