"""The restore preview: every file a restore would write, create or delete, grouped by where it
lies, each with a tick box and its diff. Outside the session's folder is unticked; a path that
escapes the folder through '..' or a symlink is unticked and marked. Nothing is written here: the
dialog returns the ticked paths."""

from __future__ import annotations

import html

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

_ACTION = {"overwrite": "overwrite", "create": "create", "delete": "delete", "unchanged": "already so",
           "unavailable": "content gone"}


class RestoreDialog(QDialog):
    """Preview of a sessionscope.history.file_restore.RestorePlan; `selected()` after exec() gives the ticked paths."""

    def __init__(self, plan, with_conversation: bool = False, parent=None):
        super().__init__(parent)
        self.plan = plan
        self.setWindowTitle("Restore Code and Conversation" if with_conversation else "Restore Code to Here")
        text = (f"The files as they were when {html.escape(plan.prompt_named())} was sent, in <b>{html.escape(plan.cwd)}</b>. "
                "What is there now is kept in the store first: Session ▸ Undo Last Restore puts it back.")
        if with_conversation:
            text += " The conversation is rewound to that prompt too (a new transcript; the original stays)."
        self.into: str | None = None  # a folder the user chose to restore into instead (then the plan is made again)
        if plan.no_folder:
            text = (f"<b>No file is ticked: {html.escape(plan.no_folder)}.</b> Tick the files you mean, or restore "
                    "them into another folder. " + text)
        intro = QLabel(text)
        intro.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["File", "Change", "Note"])
        self.tree.setColumnWidth(0, 380)
        self.diff = QTextBrowser()
        self.items: dict[str, QTreeWidgetItem] = {}
        groups = (("In the session's folder", [c for c in plan.changes if c.inside and not c.escapes]),
                  ("Outside the session's folder (not restored unless ticked)", [c for c in plan.changes if not c.inside]),
                  ("Resolving outside the folder (through '..' or a link: tick only if you mean it)",
                   [c for c in plan.changes if c.inside and c.escapes]))
        for title, changes in groups:
            if not changes:
                continue
            top = QTreeWidgetItem([f"{title} — {len(changes)}"])
            self.tree.addTopLevelItem(top)
            for c in changes:
                change = _ACTION[c.action]
                if c.action == "unavailable" and c.source.startswith(("relative", "damaged")):
                    change = "no folder" if c.source.startswith("relative") else "damaged"  # (not "gone")
                item = QTreeWidgetItem([c.path, change, c.escapes or c.source])
                item.setData(0, Qt.ItemDataRole.UserRole, c.path)
                item.setToolTip(0, c.target)
                if c.action in ("overwrite", "create", "delete"):
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    item.setCheckState(0, Qt.CheckState.Checked if c.default else Qt.CheckState.Unchecked)
                else:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
                top.addChild(item)
                self.items[c.path] = item
            top.setFirstColumnSpanned(True)
            top.setExpanded(True)
        self.tree.currentItemChanged.connect(self._show_diff)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.diff)
        split.setSizes([220, 320])
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok = self.buttons.addButton("Restore", QDialogButtonBox.ButtonRole.AcceptRole)
        elsewhere = self.buttons.addButton("Restore into Another Folder…", QDialogButtonBox.ButtonRole.ActionRole)
        elsewhere.clicked.connect(self._choose_folder)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.tree.itemChanged.connect(lambda *_: self._update_ok())
        box = QVBoxLayout(self)
        box.addWidget(intro)
        box.addWidget(split, 1)
        box.addWidget(self.buttons)
        self._update_ok()
        first = next((i for i in self.items.values()), None)
        if first is not None:
            self.tree.setCurrentItem(first)
        geometry = QSettings().value("restore_dialog/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(860, 620)

    def done(self, result: int) -> None:
        QSettings().setValue("restore_dialog/geometry", self.saveGeometry())
        super().done(result)

    def _choose_folder(self) -> None:
        from PySide6.QtWidgets import QFileDialog
        folder = QFileDialog.getExistingDirectory(self, "Restore the files into")
        if folder:
            self.into = folder
            self.reject()  # the caller plans again for that folder and shows the preview again

    def selected(self) -> set[str]:
        return {p for p, item in self.items.items() if item.checkState(0) == Qt.CheckState.Checked}

    def _update_ok(self) -> None:
        n = len(self.selected())
        self.ok.setEnabled(n > 0)
        self.ok.setText(f"Restore {n} File{'s' if n != 1 else ''}")

    def _show_diff(self, item, _previous=None) -> None:
        from sessionscope.gui.reader.files_tab import code_html_diff
        path = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        change = self.plan.by_path().get(path)
        if change is None:
            self.diff.clear()
            return
        if change.action == "unavailable":
            self.diff.setHtml("<p>Its content at that point is gone: neither in the store nor in Claude Code's "
                              "file history.</p>")
            return
        self.diff.setHtml(code_html_diff(change.diff()) if change.action != "unchanged" else "<p>(no difference)</p>")
