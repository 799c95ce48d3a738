"""Session ▸ Summarize… (#33): before anything leaves the machine, the exact text that would be sent for each
session chosen (redacted with the export's rules), the model it goes to, and a button that sends it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
)

from sessionscope.ops.summarizing import DEFAULT_MODEL
from sessionscope.safety.untrusted import printable

MODELS = (DEFAULT_MODEL, "claude-sonnet-4-5", "claude-opus-4-5")


class SummarizeDialog(QDialog):
    def __init__(self, requests: list[tuple], parent=None):
        """`requests`: (session, the text that would be sent) for each session chosen."""
        super().__init__(parent)
        self.requests = requests
        n = len(requests)
        self.setWindowTitle("Summarize" if n == 1 else f"Summarize {n} sessions")
        total = sum(len(text) for _s, text in requests)
        intro = QLabel(f"Sessionscope asks a model at Anthropic for a title and a short summary of "
                       f"{'this session' if n == 1 else f'each of these {n} sessions'}, kept as a note marked "
                       f"generated; the title replaces one you did not give yourself. This is what is sent "
                       f"({total:,} characters; secrets replaced as in an export), and nothing else:")
        intro.setWordWrap(True)
        self.which = QComboBox()
        for s, text in requests:
            self.which.addItem(f"{printable(s.title or s.id[:8])[:80]}  ({len(text):,} characters)")
        self.which.setVisible(n > 1)
        self.which.currentIndexChanged.connect(self._show)
        self.text = QPlainTextEdit(readOnly=True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.model = QComboBox(editable=True)
        self.model.addItems(MODELS)
        form = QFormLayout()
        form.addRow("&Model:", self.model)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.send = buttons.addButton("Send to Anthropic", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(self.which)
        lay.addWidget(self.text, 1)
        lay.addLayout(form)
        lay.addWidget(buttons)
        self.resize(760, 560)
        self._show(0)
        self.send.setFocus(Qt.FocusReason.OtherFocusReason)

    def _show(self, index: int) -> None:
        if 0 <= index < len(self.requests):
            self.text.setPlainText(self.requests[index][1])

    def chosen_model(self) -> str:
        return self.model.currentText().strip() or DEFAULT_MODEL
