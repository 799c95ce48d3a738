"""The session list: a table model over frozen SessionViews, sorted and filtered in SQL.

Threading: the model lives on the UI thread; `reload()` queries on a worker and
swaps the rows in when the newest answer arrives (older answers are dropped).
"""

from __future__ import annotations

import datetime as dt
import functools

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal

from sessionscope import sources
from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.sessions.row_values import RowValues
from sessionscope.gui.window.lazy import lazy
from sessionscope.safety.untrusted import printable
from sessionscope.sources.describe import moment

vitals = lazy("sessionscope.insight.vitals")  # SQLAlchemy: after the first paint

# what a reader looks for first comes first: at 1440 px the title, last activity, events and cost show
COLUMNS = [
    ("title", "Title", "title"), ("updated", "Last activity", "updated"), ("events", "Events", "events"),
    ("cost", "Cost", "cost"), ("tokens", "Tokens", "tokens"), ("status", "Status", "status"),
    ("source", "Source", "source"), ("active", "Active", "active"), ("turns", "Turns", "turns"),
    ("failed", "Failed", "failed"), ("tests", "Tests", "tests"), ("project", "Project", "project"),
    ("tags", "Tags", "tags"), ("branches", "Forks", "branches"),
]
_COLUMN = {key: i for i, (key, _, _) in enumerate(COLUMNS)}
VITAL = {"active": "active", "turns": "turns", "failed": "failures", "tests": "tests"}  # column → its vital sign
_NUMBERS = frozenset({"events", "tokens", "branches", "cost", "active", "turns", "failed"})  # right-aligned
_R = Qt.ItemDataRole
_DISPLAY, _DECORATION, _EDIT, _TOOLTIP, _ALIGNMENT, _BACKGROUND, _FOREGROUND, _USER = (
    int(r.value) for r in (_R.DisplayRole, _R.DecorationRole, _R.EditRole, _R.ToolTipRole, _R.TextAlignmentRole,
                           _R.BackgroundRole, _R.ForegroundRole, _R.UserRole))
_ANSWERED = frozenset({_DISPLAY, _DECORATION, _EDIT, _TOOLTIP, _ALIGNMENT, _BACKGROUND, _FOREGROUND, _USER})


@functools.lru_cache(maxsize=None)
def _colour(name: str):
    """A cell's colour, made once (an import inside data() went through PySide's import hook every call)."""
    from PySide6.QtGui import QColor
    return QColor(name)


_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)


when = moment  # a time as short as it can be said (the Session tab's and the list's)


def lineage(s) -> str:
    """"fork", "rewind" (a Claude Code rewind is a new transcript titled "… (rewind)") or "" for a session
    that is neither: an icon before the title says which (a glyph such as ⑂ draws as a box where the
    fonts lack it)."""
    if not s.forked_from_session:
        return ""
    return "rewind" if (s.title or "").endswith("(rewind)") else "fork"


@functools.cache
def lineage_icon(kind: str):
    """The icon shipped for a lineage (resources/icons/fork.svg, rewind.svg)."""
    from PySide6.QtGui import QIcon

    from sessionscope.resources import resource_path
    return QIcon(str(resource_path(f"icons/{kind}.svg")))


def project_labels(projects) -> dict[str, str]:
    """{project path: its name}, the parent folder added where two projects share a name (four folders
    called "project" read as "alice/project", "bob/project", …); Windows paths too."""
    import re
    paths = {p for p in projects if p}
    by_name: dict[str, list[str]] = {}
    parts_of = {p: [x for x in re.split(r"[\\/]", p) if x] or [p] for p in paths}
    for p in paths:
        by_name.setdefault(parts_of[p][-1], []).append(p)
    labels = {}
    for name, same in by_name.items():
        for p in same:
            parts = parts_of[p]
            labels[p] = "/".join(parts[-2:]) if len(same) > 1 and len(parts) > 1 else name
    return labels


def ago(ts: float, now: float | None = None) -> str:
    """How long ago, as a person says it ("4 min ago", "yesterday"); the date once it is over a week."""
    if not ts:
        return ""
    now = dt.datetime.now().timestamp() if now is None else now
    s = max(0.0, now - ts)
    if s < 60:
        return "just now"
    if s < 3600:
        return f"{int(s // 60)} min ago"
    if s < 86400:
        return f"{int(s // 3600)} h ago"
    days = (dt.date.fromtimestamp(now) - dt.date.fromtimestamp(ts)).days
    if days <= 1:
        return "yesterday"
    return f"{days} days ago" if days < 7 else when(ts)


def exact(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%A %Y-%m-%d %H:%M:%S") if ts else ""


_badges: dict[str, tuple[str, str]] = {}


def badge(kind: str) -> tuple[str, str]:
    """A source's short name and colour, as its tool's package gives them (looked up once a kind)."""
    if kind not in _badges:
        from sessionscope import sources
        if not sources.loaded(kind):  # the first page, before the store opens: the kind's name until then
            return kind.replace("_", " "), "#666666"
        _badges[kind] = sources.of(kind).badge if kind in sources.kinds() else (kind.replace("_", " "), "#666666")
    return _badges[kind]


def tool_label(kind: str) -> str:
    """A source's full name ("Claude Code", "Agents SDK"), as its tool's package gives it."""
    from sessionscope import sources
    return sources.of(kind).label if kind in sources.kinds() else kind.replace("_", " ")


def money(v: float | None) -> str:
    if v is None:
        return "—"
    return f"${v:,.2f}" if v >= 1 or v == 0 else f"${v:.3f}" if v >= 0.01 else f"${v:.4f}"


def tokens_text(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else str(n)


URGENT = ("needs_approval", "waiting", "working", "interrupted")  # marked before the title too
FIRST_PAGE = 500  # rows listed before the store is open (first_page): more than a screen holds


# the orders the store sorts by (sessionscope.history.reading.SORT_COLUMNS, named here: importing it is SQLAlchemy's
# second, which the first page is read without)
STORE_SORTS = frozenset({"updated", "created", "title", "events", "tokens", "status", "project"})
# the orders the store has no column for, worked out on the worker over the rows listed: what the cells show
# (a cost, a vital sign, the tool's name, the first tag, the forks); a row with none sorts last either way
_WORKED_OUT = {
    "cost": lambda store, ids: store.session_costs(ids),
    "active": lambda store, ids: {sid: v.active_s for sid, v in store.vitals(ids).items()},
    "turns": lambda store, ids: {sid: v.turns for sid, v in store.vitals(ids).items()},
    "failed": lambda store, ids: {sid: v.failures for sid, v in store.vitals(ids).items()},
    "tests": lambda store, ids: {sid: v.test_runs for sid, v in store.vitals(ids).items()},
}


def _sorted(store, rows: list, forks: dict, key: str, descending: bool) -> list:
    """`rows` (newest first) in the order of a column the store cannot sort by."""
    if key in _WORKED_OUT:
        values = _WORKED_OUT[key](store, [r.id for r in rows])
        of = lambda r: values.get(r.id)  # noqa: E731
    elif key == "source":
        of = lambda r: tool_label(r.source_kind).lower()  # noqa: E731
    elif key == "tags":
        of = lambda r: min(r.tags).lower() if r.tags else None  # noqa: E731
    else:  # branches
        of = lambda r: forks.get(r.id) or None  # noqa: E731
    known = [r for r in rows if of(r) is not None]
    known.sort(key=of, reverse=descending)  # (stable: ties keep the newest first)
    return known + [r for r in rows if of(r) is None]


def _listed(rows, forks) -> tuple:
    """What the list keeps of a reading of it, worked out on the worker that read it (20,000 rows: ~30 ms the
    UI thread would spend with every reload): rows, fork counts, {id: row}, {id: event count}, project labels."""
    return (rows, forks, {r.id: i for i, r in enumerate(rows)}, {r.id: r.event_count for r in rows},
            project_labels(s.project for s in rows))


class SessionTableModel(QAbstractTableModel):
    sig_loaded = Signal(int)  # rows
    sig_tags_edited = Signal(object, list)  # a session's Tags cell typed in: (the SessionView, its tags, all of them)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.store = None
        self.rows: list = []
        self._rows_by_id: dict[str, int] = {}
        self.fork_counts: dict[str, int] = {}
        self.project_label: dict[str, str] = {}
        self.filters: dict = {}
        self.sort_key, self.descending = "updated", True
        self._gen = Generation()
        self._reload_pending = False
        col = {c[0]: i for i, c in enumerate(COLUMNS)}
        self.costs = RowValues(self, lambda store, ids: store.session_costs(ids), [col["cost"]])
        self.vitals = RowValues(self, lambda store, ids: store.vitals(ids), [col[k] for k in VITAL])
        self._signs: dict[str, tuple] = {}  # session id → (its Vitals, cost, its signs by key), as last said
        self.live: dict = {}  # session id → sessionscope.live.states.Live (gui/jobs/live_tracker.py)

    def set_live(self, states: dict, changed: set[str] | None = None) -> None:
        """The sessions' live states (working, waiting for you, …): shown in the Status column, why in its tooltip.
        `changed`: the sessions whose state differs from the last states given (found here when not told)."""
        if changed is None:
            changed = {sid for sid, st in states.items() if self.live.get(sid) != st} | (self.live.keys() - states.keys())
        before, self.live = self.live, states
        if "live" in self.filters and any(getattr(before.get(sid), "state", None) !=
                                          getattr(states.get(sid), "state", None) for sid in changed):
            self.reload()  # a session came into the state listed, or left it
            return
        if len(changed) * 4 > len(self._rows_by_id):  # the first states, or most of them: every row (no lookups)
            rows = [0, self.rowCount() - 1] if self.rowCount() else []
        else:
            rows = [self._rows_by_id[sid] for sid in changed if sid in self._rows_by_id]
        if rows:  # the title (its mark) and the status, no other column (each column changed is fitted again:
            for col in (_COLUMN["title"], _COLUMN["status"]):  # 10–30 ms each, every live pass, on the UI thread)
                self.dataChanged.emit(self.index(min(rows), col), self.index(max(rows), col))

    def set_store(self, store) -> None:
        self.store = store
        self.reload()

    def first_page(self, location: str | None) -> None:
        """While the store opens (SQLAlchemy takes a second to import): the list's first rows, in its sort and
        filters, read by the SQLAlchemy-free reader (sessionscope.store.quick) on a worker. The store's own list
        replaces them; a click on one waits for it (SessionList)."""
        from sessionscope.store.quick import FILTERS
        filters, sort, desc = dict(self.filters), self.sort_key, self.descending
        if not set(filters) <= FILTERS or sort not in STORE_SORTS:
            return

        def query():
            from sessionscope.store.quick import open_reader
            reader = open_reader(location)
            if reader is None:  # not a SQLite store at today's schema: the store's list comes as it does
                return None
            with reader:
                return _listed(reader.sessions(sort=sort, descending=desc, limit=FIRST_PAGE, **filters),
                               reader.fork_counts())
        token = self._gen.next()
        run_task(query, lambda got: got is not None and self.store is None and self._swap(token, *got),
                 lambda _exc: None, owner=self, urgent=True)  # (an unreadable store is said when it opens)

    def set_filters(self, **filters) -> None:
        filters = {k: v for k, v in filters.items() if v not in (None, "", False)}
        if filters == self.filters and self._gen.value:
            return  # the same list (the sidebar re-selects its item whenever its counts refresh)
        self.filters = filters
        self.reload()

    def reload(self) -> None:
        """Query again, once: calls made in the same turn of the event loop (the store set, the
        saved sort and filters restored) share one query instead of racing each other."""
        if self.store is None or self._reload_pending:
            return
        self._reload_pending = True
        QTimer.singleShot(0, self._reload_now)

    def _reload_now(self) -> None:
        self._reload_pending = False
        if self.store is None:
            return
        token = self._gen.next()
        store, filters, sort, desc = self.store, dict(self.filters), self.sort_key, self.descending
        live = filters.pop("live", None)
        if live is not None:  # the sidebar's Now, the list's state: the sessions in that live state at the last look
            ids = [sid for sid, st in self.live.items() if st.state == live]
            if filters.get("session_ids") is not None:  # (and among those listed already: a day of Home, a bar)
                keep = set(filters["session_ids"])
                ids = [sid for sid in ids if sid in keep]
            filters["session_ids"] = ids

        def query():
            if sort in STORE_SORTS:
                return _listed(store.sessions(sort=sort, descending=desc, **filters), store.fork_counts())
            forks = store.fork_counts()
            return _listed(_sorted(store, store.sessions(sort="updated", descending=True, **filters), forks, sort, desc),
                           forks)
        run_task(query, lambda result: self._swap(token, *result), owner=self, urgent=True)

    def _swap(self, token: int, rows, forks, rows_by_id, counts, project_label) -> None:
        if not self._gen.current(token):
            return
        self.beginResetModel()
        self.rows, self.fork_counts, self._rows_by_id, self.project_label = rows, forks, rows_by_id, project_label
        self.costs.keep(counts)  # a session that grew is priced again
        self.vitals.keep(counts)
        self._signs = {sid: x for sid, x in self._signs.items() if sid in counts}
        self.endResetModel()
        self.sig_loaded.emit(len(rows))

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section][1]
        return None

    def _display(self, s, key: str) -> str:
        """The text of one cell (a repaint asks each visible cell's: only the asked column's is made)."""
        if key == "title":
            return self._urgent_mark(s) + ("★ " if s.starred else "") + printable(s.title or "(untitled)")
        if key == "updated":
            return ago(s.updated_at)
        if key == "events":
            return str(s.event_count)
        if key == "cost":
            return self._cost_text(s)
        if key == "tokens":
            return tokens_text(s.tokens_in + s.tokens_out)
        if key == "status":
            return self._status_text(s)
        if key == "source":
            return badge(s.source_kind)[0]
        if key == "project":
            return self.project_label.get(s.project, s.project)
        if key == "branches":
            return str(self.fork_counts.get(s.id, "")) if self.fork_counts.get(s.id) else ""
        if key == "tags":
            return ", ".join(printable(t) for t in s.tags)
        return self._vital_text(s, key)

    def data(self, index, role=_DISPLAY):
        # painting asks every visible cell for eight roles: the ones no cell answers go first, roles are
        # compared as ints (comparing Qt's enum members costs ten times as much) and only the asked column's
        # text is made
        if role not in _ANSWERED or not index.isValid():
            return None
        row = index.row()
        if not 0 <= row < len(self.rows):
            return None
        s = self.rows[row]
        key = COLUMNS[index.column()][0]
        if role == _DISPLAY:
            return self._display(s, key)
        if role == _TOOLTIP:
            return self._tooltip(s, key)
        if role == _ALIGNMENT:
            return _RIGHT if key in _NUMBERS else None
        if role in (_BACKGROUND, _FOREGROUND):
            if key == "source":
                return _colour(badge(s.source_kind)[1] if role == _BACKGROUND else "#ffffff")
            if key in VITAL and role == _FOREGROUND:
                sign = self._vital_sign(s, key)
                return _colour("#c62828") if sign is not None and sign.alarm else None
            return None
        if role == _DECORATION:
            return lineage_icon(kind) if key == "title" and (kind := lineage(s)) else None
        if role == _EDIT:
            return list(s.tags) if key == "tags" else None
        return s  # _USER

    def _tooltip(self, s, key: str):
        if key == "tags":
            return "Double-click to change the tags (the sidebar's Tags lists every session carrying one)"
        if key == "updated":
            return f"{exact(s.updated_at)}\nstarted {exact(s.created_at)}"
        if key in ("title", "project"):
            made = ""
            if s.forked_from_session:
                made = f"\na {lineage(s)} of {s.forked_from_session}"
            st = self._live_of(s)
            now = f"\n{st.label[0].upper()}{st.label[1:]}: {st.why}" if st is not None and st.state != "ended" else ""
            return f"{printable(s.title)}\n{s.id}{made}{now}" if key == "title" else s.project
        if key == "status" and (st := self._live_of(s)) is not None:
            said = sources.of(s.source_kind).summary(s)
            return f"{st.label[0].upper()}{st.label[1:]}: {st.why}" + (f"\n{said}" if said else "")
        if key in ("status", "tokens", "source") and (said := sources.of(s.source_kind).summary(s)):
            return said
        if key == "source":
            return s.source_kind.replace("_", " ")
        if key == "cost":
            return "What the session's tokens cost at list prices (genai-prices), cache reads and writes " \
                   "priced as such; — when no model it used has a price (View ▸ Usage and Cost for more)"
        if key in VITAL:
            sign = self._vital_sign(s, key)
            return sign.about if sign is not None else None  # (the list's cell goes nowhere: no "Click")
        return None

    def _live_of(self, s):
        """The live state the list shows for `s`: not for a session behind an API, whose service's own status
        (and its summary) the column shows as it always did."""
        st = self.live.get(s.id)  # (first: the first page, listed before any state is known, asks no source)
        return None if st is None or sources.of(s.source_kind).remote_home else st

    def _urgent_mark(self, s) -> str:
        """Before the title: the mark of a session that works, waits for you or was cut off (the rest: none)."""
        st = self._live_of(s)
        return f"{st.mark} " if st is not None and st.state in URGENT else ""

    def _status_text(self, s) -> str:
        st = self._live_of(s)
        if st is None or s.status in ("archived",) or (st.state == "ended" and s.status != "active"):
            return s.status
        return f"{st.mark} {st.label}"

    def flags(self, index):
        """The Tags cell is typed in, where the session's tool lets it be tagged (the rule of ops.tag)."""
        flags = super().flags(index)
        if index.isValid() and COLUMNS[index.column()][0] == "tags" and self.store is not None:  # (not the first page)
            from sessionscope import ops
            s = self.session_at(index.row())
            if s is not None and ops.refusal(s, "tag") is None:
                flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        """The row is not changed here: the tags go to the tag action (the operations layer), and the list is
        read again when it is done."""
        s = self.session_at(index.row()) if index.isValid() else None
        if s is None or role != Qt.ItemDataRole.EditRole or COLUMNS[index.column()][0] != "tags":
            return False
        self.sig_tags_edited.emit(s, list(value))
        return True

    # -- cost and vital signs, worked out for the rows painted -------------------------------

    def _cost_text(self, s) -> str:
        if not (s.tokens_in or s.tokens_out):
            return ""
        known, cost = self.costs.get(s)
        return money(cost) if known else "…"

    def _vital_text(self, s, key: str) -> str:
        known, v = self.vitals.get(s)
        if not known:
            return "…"
        if key == "active":
            return vitals.span_text(v.active_s) if v.duration_s else ""
        if key == "turns":
            return f"{v.turns:,}" if v.turns else ""
        if key == "failed":
            if not v.calls:
                return ""
            loops = " ⟳" if v.loops else ""
            return (f"{v.failures:,} ({v.failure_rate:.0%})" if v.failures else "0") + loops
        last = v.last_test
        return "" if last is None else "✓" if last.ok else "✗ failed"

    def _vital_sign(self, s, key: str):
        """The vital sign a column shows (sessionscope.insight.vitals.Sign), once known; loops go with the failures."""
        known, v = self.vitals.get(s)
        if not known:
            return None
        cost = self.cost_of(s.id)
        cached = self._signs.get(s.id)
        if cached is None or cached[0] is not v or cached[1] != cost:  # (painted often: said once a session)
            cached = self._signs[s.id] = (v, cost, {g.key: g for g in vitals.signs(v, cost)})
        signs = cached[2]
        sign = signs.get(VITAL[key])
        if key == "failed" and "loops" in signs:
            return signs["loops"] if sign is None else vitals.Sign(sign.key, sign.label, sign.value,
                                                                   f"{sign.about}\n\n{signs['loops'].about}", True)
        return sign

    def hold_values(self, held: bool) -> None:
        """Costs and vital signs wait while a user's import runs (sessionscope.gui.sessions.row_values.RowValues.hold)."""
        self.costs.hold(held)
        self.vitals.hold(held)

    def stop(self) -> None:
        """No pricing after the window closes."""
        self.costs.stop()
        self.vitals.stop()

    def cost_of(self, session_id: str) -> float | None:
        return self.costs.value_of(session_id)

    def vitals_of(self, session_id: str):
        return self.vitals.value_of(session_id)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column][2]
        if key is None:
            return
        self.sort_key, self.descending = key, order == Qt.SortOrder.DescendingOrder
        self.reload()

    def session_at(self, row: int):
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def row_of(self, session_id: str) -> int:
        return self._rows_by_id.get(session_id, -1)
