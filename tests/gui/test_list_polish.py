"""The session list as people read it: relative times (the exact one in the tooltip), and projects
that share a folder name told apart by their parent folder, in the list and the sidebar."""

from __future__ import annotations

import datetime as dt


def test_relative_times():
    from sessionscope.gui.sessions.session_model import ago, when
    now = dt.datetime(2026, 11, 23, 15, 0).timestamp()
    assert [ago(now - s, now) for s in (5, 240, 3 * 3600)] == ["just now", "4 min ago", "3 h ago"]
    assert ago(now - 20 * 3600, now) == "20 h ago" and ago(now - 30 * 3600, now) == "yesterday"
    assert ago(now - 3 * 86400, now) == "3 days ago"
    assert ago(now - 30 * 86400, now) == when(now - 30 * 86400) and ago(0) == ""


def test_projects_sharing_a_name_show_their_parent():
    from sessionscope.gui.sessions.session_model import project_labels
    labels = project_labels(["/home/alice/project", "/home/bob/project", "/work/api", "", "/srv/bob/project/"])
    assert labels == {"/home/alice/project": "alice/project", "/home/bob/project": "bob/project",
                      "/work/api": "api", "/srv/bob/project/": "bob/project"}


def test_the_list_shows_them(window, qtbot):
    from PySide6.QtCore import Qt

    from sessionscope.gui.sessions.session_model import COLUMNS
    col = {key: i for i, (key, *_r) in enumerate(COLUMNS)}
    m = window.sessions.model
    import re
    cell = m.index(0, col["updated"])  # the demo's newest session: minutes or hours ago
    assert re.fullmatch(r"just now|\d+ min ago|\d+ h ago|yesterday", cell.data()), cell.data()
    assert "started" in cell.data(Qt.ItemDataRole.ToolTipRole)


def test_the_sidebar_lists_people_on_a_store_several_import_into(window, qtbot):
    """The demo was imported by one person: no People section. Once sessions of another person are
    in (a team store), People lists both and picking one filters the list."""
    import sqlalchemy as sa

    from sessionscope.store.schema import SESSION

    def labels():
        return [window.sidebar.topLevelItem(i).text(0) for i in range(window.sidebar.topLevelItemCount())]
    assert "People" not in labels()
    store = window.store
    ids = [s.id for s in store.sessions()]
    store.write(lambda conn: conn.execute(SESSION.update().where(SESSION.c.id.in_(ids[:2])).values(imported_by="bob@laptop")))
    window.sidebar.refresh()
    qtbot.waitUntil(lambda: "People" in labels(), timeout=5000)
    people = window.sidebar.topLevelItem(labels().index("People"))
    bob = next(people.child(i) for i in range(people.childCount()) if people.child(i).text(0) == "bob@laptop")
    assert bob.text(1) == "2"
    window.sidebar.setCurrentItem(bob)
    qtbot.waitUntil(lambda: window.sessions.model.rowCount() == 2, timeout=5000)
    with store.reader() as conn:
        assert set(conn.execute(sa.select(SESSION.c.id).where(SESSION.c.imported_by == "bob@laptop")).scalars()) == set(ids[:2])


def test_a_paged_table_fits_its_columns_to_the_first_page_read_and_to_marks(qtbot):
    """A timeline reads its rows a page at a time: the first page read after the rows were replaced fits the
    columns, the pages scrolled to later do not (each fit measures rows on the UI thread), a mark set on
    every row does."""
    from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

    from sessionscope.gui.window.tables import fit_columns, table

    class Paged(QAbstractTableModel):
        def __init__(self):
            super().__init__()
            self.text, self.reading_page = ["…"] * 50, False

        def rowCount(self, parent=QModelIndex()):
            return len(self.text)

        def columnCount(self, parent=QModelIndex()):
            return 2

        def data(self, index, role=Qt.ItemDataRole.DisplayRole):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.text[index.row()] if index.column() == 0 else "rest"

        def read(self, text):
            self.text = [text] * 50
            self.reading_page = True
            self.dataChanged.emit(self.index(0, 0), self.index(49, 1))
            self.reading_page = False

    model = Paged()
    view = table(model)
    qtbot.addWidget(view)
    fit_columns(view, stretch=1, paged=True)
    view.resize(600, 400)
    view.show()
    model.beginResetModel()
    model.endResetModel()
    qtbot.wait(50)
    narrow = view.columnWidth(0)
    model.read("a page of wider text")
    qtbot.waitUntil(lambda: view.columnWidth(0) > narrow, timeout=2000)
    first = view.columnWidth(0)
    model.read("a later page, scrolled to, with much wider text than the first")
    qtbot.wait(100)
    assert view.columnWidth(0) == first
    model.text = ["a mark on every row, wider than any page before it was"] * 50
    model.dataChanged.emit(model.index(0, 0), model.index(49, 0))
    qtbot.waitUntil(lambda: view.columnWidth(0) > first, timeout=2000)


def test_every_column_sorts_both_ways(window, qtbot):
    """#60: Sort by Cost did nothing while its arrow moved there. Every column sorts, each way: the store's own
    columns in SQL, the others (cost, the vital signs, the tool, the first tag, the forks) over the rows listed,
    worked out here again from the store's answers; a row with nothing to sort by goes last."""
    from PySide6.QtCore import Qt

    from sessionscope.gui.sessions.session_model import COLUMNS, STORE_SORTS, tool_label
    from sessionscope.history.reading import SORT_COLUMNS
    assert STORE_SORTS == set(SORT_COLUMNS)
    view, model, store = window.sessions.view, window.sessions.model, window.store
    header = view.horizontalHeader()
    qtbot.waitUntil(lambda: model.rowCount() > 1, timeout=5000)
    ids = [s.id for s in model.rows]
    costs, signs, forks = store.session_costs(ids), store.vitals(ids), store.fork_counts()
    expected = {
        "title": lambda s: (s.title or "").lower(), "updated": lambda s: s.updated_at, "events": lambda s: s.event_count,
        "tokens": lambda s: s.tokens_in + s.tokens_out, "status": lambda s: s.status, "project": lambda s: s.project,
        "cost": lambda s: costs.get(s.id), "source": lambda s: tool_label(s.source_kind).lower(),
        "active": lambda s: signs[s.id].active_s, "turns": lambda s: signs[s.id].turns,
        "failed": lambda s: signs[s.id].failures, "tests": lambda s: signs[s.id].test_runs,
        "tags": lambda s: min(s.tags).lower() if s.tags else None, "branches": lambda s: forks.get(s.id) or None}
    assert set(expected) == {c[0] for c in COLUMNS}
    for i, (key, _label, sort) in enumerate(COLUMNS):
        assert sort is not None, key
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            with qtbot.waitSignal(model.sig_loaded, timeout=10000):
                view.sortByColumn(i, order)
            values = [expected[key](s) for s in model.rows]
            known = [v for v in values if v is not None]
            assert values[:len(known)] == known, key  # nothing to sort by: last
            assert known == sorted(known, reverse=order == Qt.SortOrder.DescendingOrder), (key, order)
            assert header.sortIndicatorSection() == i and header.sortIndicatorOrder() == order
            assert sorted(s.id for s in model.rows) == sorted(ids)


def test_a_tool_that_keeps_one_tag_is_offered_one(window, qtbot):
    """#60: the tags box suggested a second tag on a Claude Code session (its tool keeps one), then refused it.
    For such a session a completion replaces the tag; elsewhere it is added after the others."""
    from sessionscope.gui.sessions.tag_edit import TagsDialog, tag_line
    several, one = tag_line(["release", "wip"], "ui, "), tag_line(["release", "wip"], "wip", single=True)
    for edit in (several, one):
        edit.completer().setCompletionPrefix(edit.completer().splitPath(edit.text())[0])
    assert several.completer().pathFromIndex(several.completer().model().index(0, 0)) == "ui, release"
    assert one.completer().pathFromIndex(one.completer().model().index(0, 0)) == "release"
    assert one.completer().splitPath("wip") == ["wip"] and one.placeholderText() == "one tag"
    session = window.store.sessions()[0]
    dialog = TagsDialog([session], ["release"], single_tag=True)
    assert dialog.add.completer().single


def test_the_state_filter_speaks_the_status_columns_words(window, qtbot):
    """The filter offered active/running/terminated (the stored lifecycle) while every view shows the live states:
    each choice now lists exactly the sessions whose Status cell says it."""
    from PySide6.QtCore import Qt

    from sessionscope.gui.sessions.session_list import STATUSES
    from sessionscope.gui.sessions.session_model import COLUMNS
    from sessionscope.live.words import LABELS
    col = [key for key, *_r in COLUMNS].index("status")
    lst, m = window.sessions, window.sessions.model
    qtbot.waitUntil(lambda: bool(m.live), timeout=10000)
    words = [lst.status_filter.itemText(i) for i in range(lst.status_filter.count())]
    assert words[0] == "any state" and all(any(LABELS[s] in w for w in words) for s in LABELS)
    assert not {"active", "running", "terminated"} & set(words)
    everyone = m.rowCount()
    seen = 0
    for i, (said, filters) in enumerate(STATUSES[1:-1], start=1):
        lst.status_filter.setCurrentIndex(i)
        want = sorted(sid for sid, st in m.live.items() if st.state == filters["live"])
        qtbot.waitUntil(lambda want=want: sorted(m.rows[r].id for r in range(m.rowCount())) == want, timeout=10000)
        for r in range(m.rowCount()):
            cell = (m.index(r, col).data(Qt.ItemDataRole.ToolTipRole) or "") + (m.index(r, col).data() or "")
            assert LABELS[filters["live"]] in cell.lower(), said
        seen += m.rowCount()
    assert seen == everyone  # every session is in one state
    lst.status_filter.setCurrentIndex(0)
    qtbot.waitUntil(lambda: m.rowCount() == everyone, timeout=10000)


def test_the_sort_arrow_points_down_on_newest_first(window, qtbot):
    """#60: the list sorted newest first showed ▲ (Fusion's convention). Drawn through the list header's own style:
    a descending order's arrow is widest at its top (▼), an ascending one's at its bottom (▲)."""
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QStyle, QStyleOptionHeader

    header = window.sessions.view.horizontalHeader()
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder  # the list's first order: newest first

    def widths(indicator) -> list[int]:
        image = QImage(24, 24, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.white)
        option = QStyleOptionHeader()
        option.initFrom(header)
        option.rect = QRect(0, 0, 24, 24)
        option.sortIndicator = indicator
        painter = QPainter(image)
        header.style().drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorHeaderArrow, option, painter, header)
        painter.end()
        rows = [sum(image.pixelColor(x, y).lightness() < 200 for x in range(24)) for y in range(24)]
        return [n for n in rows if n]

    # QHeaderView asks for SortUp on a descending order and SortDown on an ascending one (qheaderview.cpp)
    descending, ascending = (widths(QStyleOptionHeader.SortIndicator.SortUp),
                             widths(QStyleOptionHeader.SortIndicator.SortDown))
    assert descending and ascending
    assert descending[0] > descending[-1] and ascending[0] < ascending[-1], (descending, ascending)
