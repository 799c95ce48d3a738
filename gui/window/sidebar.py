"""The sidebar: all sessions, what needs you now (the sessions working, waiting for you, cut off), starred,
tools and projects with counts, people (on a store several people import into), tags with counts, archived,
saved searches."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem

from sessionscope.gui.jobs.workers import run_task
from sessionscope.safety.untrusted import printable

TAGS_SHOWN = 40  # the most used; the others are a filter away (list --tag, the Tags cell)
SAVED = [("Working now", {"live": "working"}), ("Paused", {"status": "paused"})]
NOW = ("needs_approval", "waiting", "working", "interrupted")  # the live states the sidebar lists, with counts
NOW_TIPS = {"needs_approval": "a tool asks for your permission",
            "waiting": "the last reply ended its turn, and the tool is open (or was, recently)",
            "working": "written to within the last minute, or mid-turn while its tool runs",
            "interrupted": "a call or a turn left unfinished and its tool gone, or a file cut mid-line"}


class Sidebar(QTreeWidget):
    sig_filter = Signal(dict)  # filters for SessionTableModel.set_filters

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setColumnCount(2)
        self.setRootIsDecorated(True)
        header = self.header()  # the names take what the counts leave, as the sidebar is dragged wider or narrower
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # "payments-se…rvice": both ends of a name tell it apart
        self.itemSelectionChanged.connect(self._selected)
        self.store = None
        self.tag_counts: dict[str, int] = {}  # tag → sessions carrying it, most used first (what tags complete from)
        self.live_counts: dict[str, int] = {}  # live state → sessions in it (gui/jobs/live_tracker.py)
        self._counts = None  # the store's counts last shown
        self.first_choice: dict = {}  # the entry chosen before the user chose one (Home's, when the window opens on it)

    def set_live_counts(self, counts: dict[str, int]) -> None:
        """The live states' counts (Now ▸ Working, Waiting for you, Interrupted: LiveTracker.counts), shown at the
        next fill or now."""
        if counts != self.live_counts:
            self.live_counts = counts
            if self._counts is not None:
                self._fill(*self._counts)

    def set_store(self, store) -> None:
        self.store = store
        self.refresh()

    def refresh(self) -> None:
        if self.store is None:
            return
        store = self.store

        def counts():
            c = store.session_counts()
            return (c["total"], c["by_source"], c["by_project"], c["archived"], c["by_person"], c["starred"],
                    c["by_tag"])
        run_task(counts, lambda c: self._fill(*c), owner=self)

    def _fill(self, total, by_source, by_project, archived, by_person, starred, by_tag) -> None:
        self._counts = (total, by_source, by_project, archived, by_person, starred, by_tag)
        self.tag_counts = by_tag
        current = self.currentItem().data(0, Qt.ItemDataRole.UserRole) if self.currentItem() else None
        self.blockSignals(True)
        self.clear()

        def add(parent, label, count, filters):
            item = QTreeWidgetItem([label, str(count) if count != "" else ""])
            item.setData(0, Qt.ItemDataRole.UserRole, filters)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight)
            item.setToolTip(0, label)  # (what the column cuts; the entries below say more where they can)
            (parent.addChild(item) if parent else self.addTopLevelItem(item))
            return item
        add(None, "⌂ Home", "", {"home": True}).setToolTip(0, "What happened lately, at a glance (Alt+Home)")
        add(None, "All sessions", total, {})
        from sessionscope.live.states import LABELS, MARKS
        now = [(state, n) for state in NOW if (n := self.live_counts.get(state))]
        if now:
            group = add(None, "Now", "", None)
            for state, n in now:
                name = f"{MARKS[state]} {LABELS[state][0].upper()}{LABELS[state][1:]}"
                add(group, name, n, {"live": state}).setToolTip(0, f"{name}: {NOW_TIPS[state]}")
        add(None, "★ Starred", starred, {"starred": True})
        sources = add(None, "Tools", "", None)
        from sessionscope.gui.sessions.session_model import tool_label
        for kind, n in sorted(by_source.items(), key=lambda kv: tool_label(kv[0]).lower()):
            add(sources, tool_label(kind), n, {"source_kind": kind})
        projects = add(None, "Projects", "", None)
        from sessionscope.gui.sessions.session_model import project_labels
        shown = sorted(by_project.items(), key=lambda kv: -kv[1])[:30]
        labels = project_labels(p for p, _n in shown)
        for project, n in shown:
            add(projects, labels.get(project, project), n, {"project": project}).setToolTip(0, project)
        people = {p: n for p, n in by_person.items() if p}
        if len(people) > 1:  # a team store: who brought which sessions in (sessionscope.store.people)
            everyone = add(None, "People", "", None)
            for person, n in sorted(people.items(), key=lambda kv: (-kv[1], kv[0])):
                add(everyone, person, n, {"person": person})
        if by_tag:
            tags = add(None, "Tags", "", None)
            for tag, n in list(by_tag.items())[:TAGS_SHOWN]:
                add(tags, f"# {printable(tag)}", n, {"tag": tag}).setToolTip(0, printable(tag))
        add(None, "Archived", archived, {"status": "archived"})
        saved = add(None, "Saved searches", "", None)
        for label, filters in SAVED:
            add(saved, label, "", filters)
        self.expandAll()
        # the entry chosen stays chosen, wherever it sits (a tool under Tools, a project): found anywhere in
        # the tree and chosen again with signals still blocked, as the counts change under it every few seconds
        # (only the top level was searched: a source chosen fell back to no entry, then to All sessions)
        wanted = current if current is not None else self.first_choice
        found = next((it for it in self._items() if it.data(0, Qt.ItemDataRole.UserRole) == wanted), None)
        if found is not None:
            self.setCurrentItem(found)
        self.blockSignals(False)

    def choose(self, filters: dict) -> None:
        """Make the entry that filters by `filters` current (All sessions for {}), saying nothing."""
        found = next((it for it in self._items() if it.data(0, Qt.ItemDataRole.UserRole) == filters), None)
        self.blockSignals(True)
        self.setCurrentItem(found if found is not None else self.topLevelItem(1))
        self.blockSignals(False)

    def _items(self):
        stack = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        while stack:
            item = stack.pop(0)
            yield item
            stack[0:0] = [item.child(j) for j in range(item.childCount())]

    def _selected(self) -> None:
        item = self.currentItem()
        filters = item.data(0, Qt.ItemDataRole.UserRole) if item else None
        if filters is not None:
            self.sig_filter.emit(dict(filters))


__all__ = ["Sidebar"]
