"""The one action table: every action of the window, each a row with its id, text, shortcut, icon, the
menus and context menus it appears in, when it is enabled and what it runs.

Menus, the toolbar, the context menus (the branch tree's too, with the clicked node as the context), the
shortcuts and Help ▸ Keyboard Shortcuts are all built from TABLE (Picard's MainAction registry; git-cola's
hotkeys.py). A session action is enabled by the rule table of the operations layer (sessionscope.ops.RULES):
the same rule the command line obeys, and a disabled item's tooltip says why not.

`where` names the places a row appears in, in table order: the main menus (file, view, theme, session,
help), the toolbar, and the context menus of the session list (sessions), the timeline, the reader, the
branch tree (tree: a branch node; fork_node: a fork) and the composer. A place written `|place` has a
separator before the row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QStyle

from sessionscope.gui.window import theme

Std = QKeySequence.StandardKey
Px = QStyle.StandardPixmap

MENUS = {"file": "&File", "view": "&View", "session": "&Session", "help": "&Help"}  # the menu bar, in order
SUBMENUS = {"width": ("view", "Reading &Width"), "theme": ("view", "&Theme")}  # a submenu, at the end of its menu
CONTEXTS = ("toolbar", "sessions", "timeline", "reader", "tree", "fork_node", "composer")


@dataclass(frozen=True)
class Context:
    """What an action acts on: the session shown, the event chosen (an EventView; in the tree's menu the
    clicked node's event id until it is read), the tree node clicked, and the window's state."""

    session: Any = None
    event: Any = None
    node: Any = None
    fork_session: str | None = None  # a fork node's session
    rows: bool = False  # the timeline shows events
    demo: bool = False
    shown_head: str | None = None  # the head of the branch the timeline shows
    checked: bool = False  # a checkable action's new state
    selected: tuple = ()  # the sessions selected in the list (SessionViews): a row with `many` acts on them all


@dataclass(frozen=True)
class Row:
    id: str
    text: str
    run: Callable[[Any, Context], None]  # (the window, the context)
    shortcut: object = None  # a StandardKey or a string
    icon: object = None  # a QStyle.StandardPixmap, or the name of an icon shipped in resources/icons
    tip: str = ""
    short: str = ""  # the toolbar's label, where the menu's text is too long for it
    where: str = ""
    rule: str | None = None  # a key of sessionscope.ops.RULES
    needs: str = ""  # "session", "event", "rows", "node", "other_branch", "demo", "not_demo"
    checkable: bool = False
    scope: str = "window"  # where the shortcut works: the window, or only the widget it is in ("widget", "children")
    gesture: str = ""  # a mouse gesture listed with the shortcuts
    # with several sessions selected in the list: the SessionActions method (or its part's: "batch.star_many") run on
    # them all instead
    # (`method(sessions, checked)`), or "selection" for a row whose own run already takes the selection
    many: str = ""
    places: tuple[str, ...] = field(init=False, default=())
    separated: frozenset[str] = field(init=False, default=frozenset())

    def __post_init__(self):
        words = self.where.split()
        object.__setattr__(self, "places", tuple(w.lstrip("|") for w in words))
        object.__setattr__(self, "separated", frozenset(w[1:] for w in words if w.startswith("|")))

    @property
    def name(self) -> str:
        """The text as a sentence names it: no mnemonic, no ellipsis ("Fork at Event")."""
        return self.text.replace("&", "").rstrip("…")

    def tooltip(self, why: str | None) -> str:
        """What hovering says: the tip, or why it does not apply now."""
        return (self.tip or self.name) if why is None else f"{self.name}: not now ({why})"

    def acts_on_many(self, ctx: Context) -> bool:
        return bool(self.many) and len(ctx.selected) > 1

    def refusal(self, ctx: Context) -> str | None:
        """Why the row does not apply in `ctx` (None: it does). On several sessions selected, a row that acts on
        them all applies when it applies to one of them (each is asked again when it runs)."""
        from sessionscope import ops
        if self.acts_on_many(ctx) and self.rule is not None:
            whys = (ops.refusal(s, self.rule) for s in ctx.selected)
            first = next(whys)
            return None if first is None or None in whys else first  # (stops at the first that applies)
        if self.needs in ("session", "event") and ctx.session is None:
            return "no session is chosen"
        if self.needs == "event" and ctx.event is None:
            return "no event is chosen"
        if self.needs == "edit" and not edited_path(ctx.session, ctx.event):
            return "this event changes no file"
        if self.needs == "rows" and not ctx.rows:
            return "the timeline is empty"
        if self.needs in ("node", "other_branch") and ctx.node is None:
            return "not a branch of this session"
        if self.needs == "other_branch" and ctx.node.tip == ctx.shown_head:
            return "this is the branch shown"
        if self.needs == "demo" and not ctx.demo:
            return "not in this store"
        if self.needs == "not_demo" and ctx.demo:
            return DEMO_READ_ONLY
        if self.rule is not None:
            return ops.refusal(ctx.session, self.rule)
        return None


def edited_path(session, event) -> str:
    """The file an event's edit changed ('' for any other event): sessionscope.insight.edits.file_changed_by."""
    if session is None or event is None:
        return ""
    from sessionscope.insight import edits
    return edits.file_changed_by(event, session.source_kind, session.cwd or "")


DEMO_READ_ONLY = "the demo store is read-only: File ▸ Back to My Store first"


def _a(name: str, *args) -> Callable[[Any, Context], None]:
    """Run the window's session action `name` (a method of SessionActions or of one of its parts: "batch.summarize")
    on the context's session (and event)."""
    return lambda w, c: attrgetter(name)(w.actions_)(c.session, *(c.event if a == "event" else a for a in args))


_THEMES = tuple(Row(f"view.theme.{name}", name.title(), lambda w, c, name=name: theme.apply(name, remember=True),
                    where="theme", checkable=True) for name in theme.THEMES)

def _width(name: str) -> Callable[[Any, Context], None]:
    return lambda w, c: w.layout_.set_measure(name)


def _home(w: Any, _c: Context) -> None:
    w.pages.show_home()
    w.sidebar.choose({"home": True})


_WIDTHS = tuple(Row(f"view.width.{name}", text, _width(name), where="width", checkable=True, tip=tip)
                for name, text, tip in (
    ("narrow", "&Narrow", "The conversation in a column of about 80 characters, centred"),
    ("comfortable", "&Comfortable", "About 110 characters a line"),
    ("wide", "&Wide", "About 150 characters a line (the default)"),
    ("full", "&Full Window", "Every line as wide as the window")))

TABLE: tuple[Row, ...] = (
    Row("view.home", "&Home", _home, "Alt+Home",
        Px.SP_DirHomeIcon, "What happened lately: key figures, activity by day, who needs you, recent and costliest sessions",
        where="view toolbar"),
    # File
    # the demo store is read-only: nothing is imported into made-up sessions (one Enter once put 980 files there)
    Row("app.import", "&Import Folder…", lambda w, c: w.import_commands.import_folder(), Std.Open, Px.SP_DialogOpenButton,
        "Import the sessions a folder holds, each file by the tool whose format it is", where="file", needs="not_demo"),
    Row("app.import_files", "Import &Files…", lambda w, c: w.import_commands.import_files(), "Ctrl+Alt+O",
        tip="Import session files or databases (a LangGraph or Agents SDK .db, a trajectory…)", where="file",
        needs="not_demo"),
    Row("app.import_database", "Import from a Database &Server…", lambda w, c: w.import_commands.import_database(),
        tip="LangGraph's PostgresSaver or the Agents SDK's SQLAlchemySession on PostgreSQL, by the database's address",
        where="file", needs="not_demo"),
    Row("app.scan", "&Rescan Sources", lambda w, c: w.import_commands.scan(), "F5", Px.SP_BrowserReload,
        "Import what the known sources appended", "Rescan", where="file toolbar", needs="not_demo"),
    Row("app.problems", "Import &Problems…", lambda w, c: w.openers.show_problems(), None, Px.SP_MessageBoxWarning,
        "What the imports could not read, file by file and line by line", where="file"),
    Row("app.blame", "&Who Wrote This…", lambda w, c: w.openers.show_blame(), "Ctrl+Shift+W", where="file",
        tip="Pick a file: each line with the session and edit that wrote it, and every agent's change of it"),
    Row("app.sync", "S&ync with Team Store…", lambda w, c: w.openers.open_sync(), "Ctrl+Alt+Y", where="|file",
        tip="Where your shared sessions go (secrets redacted first), which go, and what the last sync did",
        needs="not_demo"),
    Row("app.sync_now", "Sync &Now", lambda w, c: w.openers.sync_now(), "Ctrl+Alt+Shift+Y", where="file", needs="not_demo",
        tip="Push what you share to the team store now (the dialog opens when none is set)"),
    Row("app.demo", "Open &Demo Store", lambda w, c: w.open_demo(), None, Px.SP_DesktopIcon, where="|file",
        needs="not_demo"),
    Row("app.own_store", "Back to &Your Store", lambda w, c: w.open_own_store(), None, Px.SP_DirHomeIcon,
        "Leave the demo store for your own sessions", where="file", needs="demo"),
    Row("app.settings", "&Settings…", lambda w, c: w.openers.open_settings(), Std.Preferences, Px.SP_FileDialogDetailedView,
        where="file"),
    Row("app.quit", "&Quit", lambda w, c: w.close(), Std.Quit, where="|file"),
    # View
    Row("view.search", "&Search Everything", lambda w, c: w.openers.open_search(), Std.Find, Px.SP_FileDialogContentsView,
        short="Search", where="view toolbar"),
    Row("view.filter", "&Filter Sessions", lambda w, c: w.layout_.focus_filter(), "Ctrl+L", where="view"),
    Row("view.show_archived", "Show &Archived", lambda w, c: w.sessions.refilter(), where="view", checkable=True),
    Row("timeline.next_prompt", "&Next Prompt", lambda w, c: w.branch.jump_prompt(1), "Ctrl+Down", Px.SP_ArrowDown,
        where="|view", needs="rows"),
    Row("timeline.prev_prompt", "&Previous Prompt", lambda w, c: w.branch.jump_prompt(-1), "Ctrl+Up", Px.SP_ArrowUp,
        where="view", needs="rows"),
    Row("timeline.find", "Find in &Session", lambda w, c: w.branch.find_edit.setFocus(), "Ctrl+Shift+F", where="view",
        needs="rows"),
    Row("view.reader", "Conversation &Reader", lambda w, c: w.branch.set_reader(c.checked), "Ctrl+Shift+R",
        Px.SP_FileDialogInfoView, "Read the branch as a conversation, card by card (or as the table of events)",
        "Reader", where="|view toolbar reader |timeline", checkable=True),
    Row("view.home_at_start", "Open on Home", lambda w, c: w.pages.set_home_at_start(c.checked),
        tip="Start on Home (or on the session list)", where="view", checkable=True),
    Row("view.reading", "Reading &Mode", lambda w, c: w.layout_.set_reading(c.checked), "F8",
        tip="Only the conversation, across the window, as cards (F8 or Esc: the panes come back)", where="|view",
        checkable=True),
    Row("view.pane.sidebar", "Si&debar", lambda w, c: w.layout_.set_pane("sidebar", c.checked), "Ctrl+Alt+1",
        tip="Show or hide the sources, projects and saved searches", where="view", checkable=True),
    Row("view.pane.list", "Session L&ist", lambda w, c: w.layout_.set_pane("list", c.checked), "Ctrl+Alt+2",
        tip="Show or hide the list of sessions", where="view", checkable=True),
    Row("view.pane.narrow", "Narro&w Session List", lambda w, c: w.layout_.set_narrow(c.checked), "Ctrl+Alt+N",
        tip="The session list as a narrow column of titles, or with all its columns", where="view", checkable=True),
    Row("view.two_lines", "Two-&Line Rows", lambda w, c: w.layout_.set_two_lines(c.checked),
        tip="Each session's project, last activity, events and cost under its title, in the wide list too",
        where="view", checkable=True),
    Row("view.pane.tree", "Tr&ee and Detail", lambda w, c: w.layout_.set_pane("tree", c.checked), "Ctrl+Alt+3",
        tip="Show or hide the branch tree and the chosen event's detail", where="view", checkable=True),
    Row("view.zoom_in", "Lar&ger Text", lambda w, c: w.layout_.set_zoom(w.layout_.zoom + 1), Std.ZoomIn,
        tip="The conversation's type one point larger", where="|view"),
    Row("view.zoom_out", "Smaller Te&xt", lambda w, c: w.layout_.set_zoom(w.layout_.zoom - 1), Std.ZoomOut,
        tip="The conversation's type one point smaller", where="view"),
    Row("view.zoom_reset", "Default Text Si&ze", lambda w, c: w.layout_.set_zoom(0), "Ctrl+0", where="view"),
    Row("view.needs_you", "Needs &You…", lambda w, c: w.openers.show_needs_you(), "Ctrl+Shift+Y",
        tip="Every session that needs approval or waits for you, the longest waiting first: answer each from here",
        where="view"),
    Row("view.pins", "&Pins…", lambda w, c: w.openers.show_pins(), "Ctrl+Shift+P",
        tip="The events you pinned, in every session: open one where it is", where="view"),
    Row("view.notes", "N&otes…", lambda w, c: w.openers.show_notes(), "Ctrl+Shift+N",
        tip="Your notes, in every session: open one where it is, change or remove it", where="view"),
    Row("view.usage", "&Usage and Cost…", lambda w, c: w.openers.show_usage(), "Ctrl+Shift+U", Px.SP_FileDialogContentsView,
        "Tokens and cost per day or week, by project, model or source; the costliest sessions", "Usage",
        where="view toolbar sessions"),
    Row("view.outcomes", "&Tool Outcomes…", lambda w, c: w.openers.show_outcomes(), "Ctrl+Shift+T",
        tip="Per tool, model, project or source: calls, failures (errors, refusals, interruptions), time per call, "
            "retries and the calls before a correction; each failure opens where it happened", where="view"),
    Row("view.replay", "&Replay", lambda w, c: w.branch.set_replay(c.checked), "Ctrl+Alt+P", where="view",
        tip="A slider over the branch shown: the timeline, the facts and files at that point, and the tokens and cost "
            "so far move with it; ▶ plays it forward", checkable=True),
    Row("timeline.fold", "F&old Tool Output", lambda w, c: w.branch.set_folded(c.checked), "Ctrl+Shift+O",
        tip="Show each tool call with the first line of its output; its results fold under it", where="view",
        checkable=True),
    Row("timeline.toggle_pair", "Show/Hide &This Call's Output", lambda w, c: w.branch.toggle_pair(), "Space",
        tip="Expand or collapse the selected tool call's results (or double-click it)", where="view timeline",
        scope="children", gesture="Double-click a tool call"),
    *_WIDTHS,
    *_THEMES,
    # the reader's own
    Row("reader.copy", "&Copy", lambda w, c: w.branch.reader.copy(), Std.Copy, tip="Copy the selected text, or the whole card",
        where="reader", scope="widget"),
    # the branch tree's own (the clicked node is the context)
    Row("tree.show_branch", "Show This Branch", lambda w, c: w.branch.show_branch(c.node.tip, c.node.id), where="tree",
        needs="node", gesture="Click a tree node"),
    Row("tree.export_branch", "Export This Branch…", lambda w, c: w.openers.tree_export(c.event), where="tree",
        needs="event"),
    Row("tree.compare_branch", "Compare This Branch With the One Shown",
        lambda w, c: w.openers.open_compare((c.session.id, c.node.tip), (c.session.id, c.shown_head)), where="|tree",
        needs="other_branch"),
    Row("tree.open_fork", "Open the Fork", lambda w, c: w.open_session(c.fork_session), where="fork_node",
        gesture="Click a fork node"),
    Row("tree.compare_fork", "Compare With This Fork",
        lambda w, c: w.openers.open_compare((c.session.id, None), (c.fork_session, None)), where="fork_node", needs="session"),
    # Session
    Row("session.resume", "&Resume", _a("resume"), "Ctrl+Return", Px.SP_MediaPlay, "Resume in the tool itself",
        where="session |toolbar sessions", rule="resume", needs="session"),
    Row("session.copy_resume", "&Copy Resume Command", _a("copy_resume"), "Ctrl+Shift+C", where="session sessions",
        rule="copy_resume", needs="session"),
    Row("session.fork", "&Fork at Event…", _a("fork", "event"), "Ctrl+Shift+K", Px.SP_FileDialogNewFolder,
        "A new session holding the conversation up to and including the selected event", "Fork",
        where="|session toolbar timeline reader |tree", rule="fork", needs="event"),
    Row("session.fork_turn", "Fork at End of &Turn…", lambda w, c: w.actions_.fork(c.session, c.event, end_of_turn=True),
        "Ctrl+Alt+K", tip="A new session holding the selected event's whole turn (up to the next prompt)",
        where="session timeline reader tree", rule="fork", needs="event"),
    Row("session.fork_continue", "Fork Here and C&ontinue…", _a("fork_continue", "event"), "Ctrl+Shift+Return",
        tip="Fork at the event and continue with your notes as the next prompt: the tool starts on the fork with "
        "them (Claude Code), or they become the fork's next message", where="session timeline reader tree",
        rule="fork", needs="event"),
    Row("session.explore", "Fork and E&xplore…", lambda w, c: w.openers.explore(c.session, c.event), "Ctrl+Alt+X",
        tip="Two or more forks at the event, each run on with its own prompt and model side by side, then compared; "
        "keep one", where="session timeline reader tree", rule="run", needs="event"),
    Row("session.run", "Run the Agent O&n…", lambda w, c: w.branch.run_panel.prompt.setFocus(), "Ctrl+Alt+Return",
        tip="Write what the session's agent does next and run it from here (the reply streams in; it asks before "
        "acting as you choose)", where="session sessions", rule="run", needs="session"),
    Row("session.rewind", "Re&wind to Event…", _a("rewind", "event"), "Ctrl+Shift+Z", Px.SP_MediaSeekBackward,
        short="Rewind", where="session toolbar timeline reader tree", rule="rewind", needs="event"),
    Row("session.file_history", "Who Wrote This &File…", lambda w, c: w.openers.show_blame(edited_path(c.session, c.event),
                                                                          c.event.id),
        tip="The file this event changed: each line with the session that wrote it, its history, and the file as "
            "this event left it", where="session timeline reader", needs="edit"),
    Row("session.restore_files", "Restore &Code to Here…", _a("restores.restore_files", "event"), "Ctrl+Alt+R",
        tip="Put the files back as they were when this turn's prompt was sent (a preview first)",
        where="|session timeline reader tree", rule="restore_files", needs="event"),
    Row("session.restore_all", "Restore Code and Con&versation…", _a("restores.restore_files", "event", True), "Ctrl+Alt+Shift+R",
        tip="Restore the files and rewind the conversation to this turn's prompt", where="session timeline",
        rule="restore_files", needs="event"),
    Row("session.undo_restore", "&Undo Last Restore…", _a("restores.undo_restore"),
        tip="Put back what the last restore of this session changed", where="session", rule="undo_restore",
        needs="session"),
    Row("session.redo_restore", "Redo Last Undo…", lambda w, c: w.actions_.restores.undo_restore(c.session, redo=True),
        tip="Take back the last undo: put back what it overwrote", where="session", rule="redo_restore",
        needs="session"),
    Row("session.compact", "Co&mpact…", _a("compact"), where="|session", rule="compact", needs="session"),
    Row("session.star", "S&tar", lambda w, c: w.actions_.star(c.session, c.checked), "S", "star",
        tip="Star the session, or take its star away (the sidebar's Starred lists them)",
        where="|session toolbar sessions", rule="star", needs="session", checkable=True, many="batch.star_many"),
    Row("session.share", "S&hare with the Team", lambda w, c: w.actions_.share(c.session, c.checked),
        tip="Share it with your team: in a team store its members read it (they cannot change it); in your own "
            "store it goes to the team store at each sync, secrets redacted (File ▸ Sync with Team Store)",
        where="|session sessions", rule="share", needs="session", checkable=True),
    Row("event.pin", "&Pin Event", lambda w, c: w.actions_.pin(c.session, c.event, c.checked), "P",
        tip="Pin the event, or take its pin away (View ▸ Pins lists them, across sessions)",
        where="session timeline reader tree", rule="pin", needs="event", checkable=True),
    Row("event.note", "Add &Note…", lambda w, c: w.actions_.note_add(c.session, c.event), "N",
        tip="Write a note (Markdown) on the event chosen, or on the session: it stays yours, searchable and exported",
        where="session timeline reader sessions", rule="note", needs="session"),
    Row("session.summarize", "Summari&ze…", _a("batch.summarize"),
        tip="Ask a model at Anthropic for a title and a short summary, kept as a generated note (what is sent is "
        "shown first; needs the managed extra and a key)", where="session sessions", rule="summarize",
        needs="session", many="batch.summarize_many"),
    Row("session.similar", "Find Sessions &Like This…", lambda w, c: w.openers.show_similar(c.session), "Ctrl+Shift+L",
        tip="The sessions nearest in meaning to this one (search by meaning, a local model: turn it on in Settings)",
        where="session sessions", needs="session"),
    Row("session.rename", "Re&name…", _a("rename"), "F2", where="|session sessions", rule="rename", needs="session"),
    Row("session.tag", "&Tags…", _a("tag"), "Ctrl+T",
        tip="Set the session's tags (in the tool's own file where it keeps one); with several sessions selected, "
        "add and take away tags on all of them", where="session sessions", rule="tag", needs="session",
        many="batch.tag_many", gesture="Double-click a session's Tags cell"),
    Row("session.write_back", "Write &Back to Its Tool…", _a("write_back"),
        tip="Write a session kept here back where its tool finds it (after the tool deleted it)", where="session",
        rule="write_back", needs="session"),
    Row("facts.compare", "&Compare…", lambda w, c: w.openers.compare(), "Ctrl+D", Px.SP_FileDialogListView,
        "Two sessions selected, a fork and its origin, or the branch shown and the head: side by side from where "
        "they part, with what each changed, cost and ended with", "Compare",
        where="|session toolbar sessions timeline reader", needs="session"),
    Row("facts.compare_points", "Compare &Facts at Two Points…",
        lambda w, c: w.openers.compare_facts(c.event if isinstance(c.event, str) else None),
        tip="The durable facts at any two events, branch heads or sessions' heads", where="session tree",
        needs="session"),
    Row("session.export", "E&xport…", lambda w, c: w.openers.export_sessions(), Std.Save, Px.SP_DialogSaveButton,
        "Export the selected sessions (Markdown, HTML, JSONL, Claude Code)", where="session toolbar sessions",
        rule="export", needs="session", many="selection"),
    Row("session.export_branch", "Export This &Branch…", lambda w, c: w.openers.export_branch(), "Ctrl+Shift+S",
        tip="Export the branch from the root to the selected event", where="session timeline reader", rule="export",
        needs="event"),
    Row("session.archive", "&Archive", _a("archive"), "Ctrl+E", Px.SP_DirClosedIcon,
        where="|session |toolbar sessions", rule="archive", needs="session", many="batch.archive_many"),
    Row("session.unarchive", "&Unarchive", _a("unarchive"), "Ctrl+Shift+E", where="session sessions",
        rule="unarchive", needs="session", many="batch.unarchive_many"),
    Row("session.delete", "&Delete…", _a("delete"), Std.Delete, Px.SP_TrashIcon, where="session toolbar sessions",
        rule="delete", needs="session"),
    # the composer's (a managed-agent session)
    Row("composer.send", "Send to the Agent", lambda w, c: w.branch.composer.send(), "Ctrl+Return",
        tip="Send this message to the agent at Anthropic", where="composer", scope="widget"),
    # Help
    Row("app.manual", "&Manual", lambda w, c: w.openers.show_manual(), Std.HelpContents,
        tip="What Sessionscope does, the command line, a team store: the manual, chapter by chapter", where="help"),
    Row("app.shortcuts", "&Keyboard Shortcuts", lambda w, c: w.openers.show_shortcuts(), "Ctrl+/",
        tip="Every shortcut of the window", where="help"),
    Row("app.about", "&About Sessionscope", lambda w, c: w.openers.show_about(), tip="Version, store and licence",
        where="|help"),
)

BY_ID = {row.id: row for row in TABLE}
assert len(BY_ID) == len(TABLE), "an action id is in the table twice"


def in_place(place: str) -> list[Row]:
    return [row for row in TABLE if place in row.places]
