"""Fork Here and Continue (#33): what the next step is (notes picked from the session's own, and words written
here), the fork's title, and what will run: the tool started on the fork with that as its next prompt, or,
where the tool cannot open the fork, the note appended as the fork's next message."""

from __future__ import annotations

import html
import shlex

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
)

from sessionscope import ops, sources
from sessionscope.safety.untrusted import printable

FORK_ID = "FORK-ID"  # the fork's id in the preview: it is known once the fork is written


class ContinueDialog(QDialog):
    def __init__(self, session, event, notes, chosen_note: str | None = None, parent=None):
        """`notes`: the session's notes (NoteView), `chosen_note`: the id of one to start checked (else the notes
        on `event` are)."""
        super().__init__(parent)
        self.setWindowTitle("Fork Here and Continue")
        self.session, self.event, self.notes = session, event, list(notes)
        self.src = sources.of(session.source_kind)
        preview = printable(" ".join((event.text or event.kind).split())[:90])
        intro = QLabel(f"The fork holds the conversation up to and including event #{event.seq}:\n“{preview}”\n\n"
                       "Then it continues with the notes checked here and what you write below.")
        intro.setWordWrap(True)
        self.picked = QListWidget()
        for n in self.notes:
            where = "this event" if n.event_id == event.id else (f"event {n.event_id[:8]}" if n.event_id else
                                                                  "the session")
            item = QListWidgetItem(f"{printable(' '.join(n.text.split()))[:110]}  ({where})")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            on = n.id == chosen_note if chosen_note else n.event_id == event.id
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            item.setToolTip(n.text[:1000])
            self.picked.addItem(item)
        self.picked.setVisible(bool(self.notes))
        self.picked.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.picked.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        rows = self.picked.sizeHintForRow(0) * min(max(len(self.notes), 1), 5) if self.notes else 0
        self.picked.setFixedHeight(rows + 2 * self.picked.frameWidth() + 4)
        self.picked.itemChanged.connect(self._update)
        self.text = QPlainTextEdit(placeholderText="The next step, as you would type it to the agent")
        self.text.setTabChangesFocus(True)
        self.text.textChanged.connect(self._update)
        self.title = QLineEdit(f"{session.title or session.id[:8]} (continued)")
        self.runs = QLabel()
        self.runs.setWordWrap(True)
        self.runs.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.runs.setTextFormat(Qt.TextFormat.RichText)
        self.mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        if self.notes:
            form.addRow("&Notes:", self.picked)
        form.addRow("&Next prompt:", self.text)
        form.addRow("Fork &title:", self.title)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(form)
        lay.addWidget(QLabel("What runs:"))
        lay.addWidget(self.runs)
        lay.addWidget(self.buttons)
        self.resize(640, self.sizeHint().height())
        self._update()

    def prompt(self) -> str:
        checked = [n.text for i, n in enumerate(self.notes)
                   if self.picked.item(i).checkState() == Qt.CheckState.Checked]
        return ops.continue_prompt(checked, self.text.toPlainText())

    def fork_title(self) -> str | None:
        return self.title.text().strip() or None

    def _update(self, *_) -> None:
        """The command shown as it will run (the fork's id stands in until the fork is written)."""
        prompt = self.prompt()
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(prompt))
        # the fork is the origin's tool's when the tool writes its forks (Claude Code), else the store's
        probe = self.src.continue_command(self.session, prompt or "…")
        if probe is not None:
            command = [FORK_ID if w == self.session.tool_id or w == self.session.id else w for w in probe]
            shown = shlex.join(command)
            if len(shown) > 600:
                shown = shown[:600] + "…"
            self.runs.setText(f"<p style='font-family: \"{self.mono}\"'>{html.escape(shown)}</p><p>In "
                              f"{html.escape(printable(self.session.cwd or 'your home folder'))}, in a terminal; "
                              "asked again, with the fork's id, before it starts.</p>")
            ok.setText(f"Fork and Start {self.src.label}")
        else:
            who = "No tool opens a fork" if self.src.kind == "native" else \
                f"{self.src.label} cannot open a fork"
            self.runs.setText(f"{html.escape(who)} only Sessionscope holds: the note becomes the fork's next message "
                              "here, where an agent or <code>sessionscope resume</code> picks it up.")
            ok.setText("Fork and Add the Note")
