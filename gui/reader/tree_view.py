"""The branch tree: a list model over sessionscope.history.tree.TreeLayout rows, painted in lanes by a delegate."""

from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QListView, QStyle, QStyledItemDelegate

from sessionscope.gui.jobs.workers import hold_background
from sessionscope.gui.reader.timeline_model import first_line

LANE_W = 16
BATCH = 4000  # nodes laid out between two turns of the event loop
ROW_H = 24
LANE_COLORS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037"]


class BranchTreeModel(QAbstractListModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.layout_ = None
        self.changed_files: dict[str, list[str]] = {}  # prompt id → files its turn changed
        self.pinned: frozenset[str] = frozenset()  # the session's pinned events (#33): their nodes marked ⚑
        self.noted: frozenset[str] = frozenset()  # events with a note on them: marked ✍

    def set_marks(self, pinned, noted) -> None:
        self.pinned, self.noted = frozenset(pinned), frozenset(noted)
        if self.rowCount():
            self.dataChanged.emit(self.index(0), self.index(self.rowCount() - 1))

    def set_layout(self, layout) -> None:
        self.beginResetModel()
        self.layout_ = layout
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() or self.layout_ is None else len(self.layout_.nodes)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.layout_ is None or not (0 <= index.row() < len(self.layout_.nodes)):
            return None
        node = self.layout_.nodes[index.row()]
        files = self.changed_files.get(node.id, [])
        if role == Qt.ItemDataRole.DisplayRole:  # a slash command as the user typed it, not its markup
            marks = ("⚑ " if node.id in self.pinned else "") + ("✍ " if node.id in self.noted else "")
            return marks + first_line(node.label) + (f"  ✎{len(files)}" if files else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            listed = f"\nthis turn changed {len(files)} file(s):\n" + "\n".join(files[:30]) if files else ""
            return f"{node.kind} · {node.id}\n{node.label}{listed}"
        if role == Qt.ItemDataRole.UserRole:
            return node
        return None


class LaneDelegate(QStyledItemDelegate):
    """Paints lanes, edges and node marks left of each label (git-cola style)."""

    def __init__(self, model: BranchTreeModel, parent=None):
        super().__init__(parent)
        self.tree_model = model

    def sizeHint(self, option, index) -> QSize:
        return QSize(200, ROW_H)

    def paint(self, painter: QPainter, option, index) -> None:
        layout = self.tree_model.layout_
        node = index.data(Qt.ItemDataRole.UserRole)
        if layout is None or node is None:
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        r = option.rect
        mid_y = r.top() + r.height() / 2

        def x_of(lane: int) -> float:
            return r.left() + 10 + lane * LANE_W

        def pen(lane: int) -> QPen:
            p = QPen(QColor(LANE_COLORS[lane % len(LANE_COLORS)]))
            p.setWidthF(2.0)
            return p
        for lane in layout.passing[node.row]:
            painter.setPen(pen(lane))
            painter.drawLine(QPointF(x_of(lane), r.top()), QPointF(x_of(lane), r.bottom()))
        if node.parent_row is not None:
            painter.setPen(pen(node.lane))
            painter.drawLine(QPointF(x_of(node.lane), r.top()), QPointF(x_of(node.lane), mid_y))
        # the edge down to this node's children continues below
        for child in layout.nodes[node.row + 1:]:
            if child.parent_row == node.row:
                painter.setPen(pen(child.lane))
                painter.drawLine(QPointF(x_of(node.lane), mid_y), QPointF(x_of(child.lane), r.bottom()))
        color = QColor(LANE_COLORS[node.lane % len(LANE_COLORS)])
        painter.setPen(QPen(color, 2))
        painter.setBrush(color if node.kind in ("root", "tip", "head", "branch") else option.palette.base())
        c = QPointF(x_of(node.lane), mid_y)
        if node.kind == "branch":
            painter.drawPolygon([c + QPointF(0, -6), c + QPointF(6, 0), c + QPointF(0, 6), c + QPointF(-6, 0)])
        elif node.kind in ("compaction", "fork"):
            painter.drawRect(QRect(int(c.x()) - 5, int(c.y()) - 5, 10, 10))
        else:
            painter.drawEllipse(c, 5, 5)
        text_rect = r.adjusted(int(x_of(layout.lanes) - r.left()) + 4, 0, -4, 0)
        painter.setPen(option.palette.color(option.palette.ColorRole.HighlightedText)
                       if option.state & QStyle.StateFlag.State_Selected else option.palette.color(option.palette.ColorRole.Text))
        font = painter.font()
        font.setBold(node.kind in ("branch", "tip", "head"))
        font.setItalic(node.kind in ("fork", "compaction"))
        painter.setFont(font)
        label = painter.fontMetrics().elidedText(index.data(), Qt.TextElideMode.ElideRight, text_rect.width())
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), label)
        painter.restore()


class BranchTreeView(QListView):
    """Clicking a node shows its branch; the context menu acts on the node's event."""

    sig_show_branch = Signal(str, str)  # event to show the branch through, event to select
    sig_open_session = Signal(str)
    sig_menu = Signal(str, object)  # event id, global position: the window shows its actions for it
    sig_fork_menu = Signal(str, object)  # a fork node's session, global position

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tree_model = BranchTreeModel(self)
        self.setModel(self.tree_model)
        self.setItemDelegate(LaneDelegate(self.tree_model, self))
        self.setUniformItemSizes(True)
        # laid out a batch at a time between events: a 200,000-node tree laid out at once held the UI thread ~0.1 s
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(BATCH)
        self.verticalScrollBar().valueChanged.connect(lambda _v: hold_background())  # (background passes wait meanwhile)
        self.clicked.connect(self._clicked)
        self.activated.connect(self._clicked)  # Enter on the current node does what a click does
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)

    def set_changed_files(self, files: dict[str, list[str]]) -> None:
        """Mark prompt nodes with the files their turn changed (loaded after the timeline's rows)."""
        self.tree_model.changed_files = files
        if self.tree_model.rowCount():
            self.tree_model.dataChanged.emit(self.tree_model.index(0), self.tree_model.index(self.tree_model.rowCount() - 1))

    def _clicked(self, index) -> None:
        node = index.data(Qt.ItemDataRole.UserRole)
        if node is None:
            return
        if node.fork_session:
            self.sig_open_session.emit(node.fork_session)
        else:
            self.sig_show_branch.emit(node.tip, node.id)

    def _menu(self, pos) -> None:
        index = self.indexAt(pos)
        if not index.isValid():  # the Menu key (or Shift+F10): the current node's menu, beside it
            index = self.currentIndex()
            pos = self.visualRect(index).center()
        node = index.data(Qt.ItemDataRole.UserRole)
        if node is None:
            return
        where = self.viewport().mapToGlobal(pos)
        if node.fork_session:
            self.sig_fork_menu.emit(node.fork_session, where)
        else:
            self.sig_menu.emit(node.id, where)  # the window builds it from its registry
