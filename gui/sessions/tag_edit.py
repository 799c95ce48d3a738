"""Tags as a person types them: a comma-separated line that completes each tag from the tags in use (the
sidebar's counts), most used first; the dialog that adds and takes away tags on a selection of sessions; and
the session list's Tags column editor (double-click the cell)."""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QStyledItemDelegate,
    QVBoxLayout,
)


def split(text: str) -> list[str]:
    """The tags of a typed line: comma-separated, trimmed, each once, in the order typed."""
    return list(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))


class TagCompleter(QCompleter):
    """Completes the tag being typed after the last comma, keeping the ones before it; for a tool that keeps one
    tag a session (`single`), the whole line is the tag and a completion replaces it (it suggested a second
    tag, which the tool then refused)."""

    def __init__(self, tags: list[str], parent=None, single: bool = False):
        super().__init__(parent)
        self.single = single
        self.setModel(QStringListModel(tags, self))  # owned by the completer (a model without one was collected)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterMode(Qt.MatchFlag.MatchContains)
        self.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)

    def splitPath(self, path: str) -> list[str]:
        return [path.strip() if self.single else path.rsplit(",", 1)[-1].strip()]

    def pathFromIndex(self, index) -> str:
        if not index.isValid():
            return ""
        if self.single:
            return str(index.data())
        typed = self.widget().text() if self.widget() is not None else ""
        before = typed.rsplit(",", 1)[0] + ", " if "," in typed else ""
        return before + str(index.data())


def tag_line(tags: list[str], text: str = "", placeholder: str = "", single: bool = False) -> QLineEdit:
    edit = QLineEdit(text, placeholderText="one tag" if single else placeholder)
    edit.setClearButtonEnabled(True)
    edit.setCompleter(TagCompleter(tags, edit, single))
    return edit


class TagsDialog(QDialog):
    """The tags of one session (all of them, editable), or of several: tags to add to every one and tags to
    take away, each keeping its others."""

    def __init__(self, sessions: list, known: list[str], single_tag: bool = False, parent=None):
        super().__init__(parent)
        self.several = len(sessions) > 1
        self.setWindowTitle(f"Tags of {len(sessions)} sessions" if self.several else "Tags")
        form = QFormLayout()
        if self.several:
            held: dict[str, int] = {}
            for s in sessions:
                for t in s.tags:
                    held[t] = held.get(t, 0) + 1
            said = ", ".join(f"{t} ({n})" for t, n in sorted(held.items(), key=lambda kv: -kv[1])[:12])
            intro = QLabel(f"Each of the {len(sessions)} sessions keeps its other tags." +
                           (f"\nTagged now: {said}" if said else "\nNone of them has a tag yet."))
            intro.setWordWrap(True)
            self.add = tag_line(known, placeholder="review, ui")
            self.remove = tag_line(sorted(held) or known, placeholder="tags to take away")
            form.addRow(intro)
            form.addRow("&Add:", self.add)
            form.addRow("&Remove:", self.remove)
        else:
            self.add = tag_line(known, ", ".join(sessions[0].tags), "review, ui", single=single_tag)
            self.remove = None
            form.addRow("Ta&gs:", self.add)
            form.addRow(QLabel("The tool keeps one tag a session (in its own file)." if single_tag else
                               "Comma-separated; each completes from the tags in use."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)
        self.resize(440, self.sizeHint().height())

    def added(self) -> list[str]:
        return split(self.add.text())

    def removed(self) -> list[str]:
        return split(self.remove.text()) if self.remove is not None else []


class TagsDelegate(QStyledItemDelegate):
    """The Tags column's editor: the cell's tags in a completing line; what is typed goes back through the
    model (`setData`), which hands it to the tag action (the operations layer) instead of the row."""

    def __init__(self, known, parent=None):
        super().__init__(parent)
        self.known = known  # () → the tags in use, most used first

    def createEditor(self, parent, option, index):
        from sessionscope import sources
        session = index.model().session_at(index.row())
        single = session is not None and sources.of(session.source_kind).single_tag
        edit = tag_line(self.known(), placeholder="tags, comma-separated", single=single)
        edit.setParent(parent)
        return edit

    def setEditorData(self, editor, index) -> None:
        editor.setText(", ".join(index.data(Qt.ItemDataRole.EditRole) or ()))

    def setModelData(self, editor, model, index) -> None:
        model.setData(index, split(editor.text()), Qt.ItemDataRole.EditRole)
