"""Compare the durable facts at two points: added, removed and changed keys, values line-diffed."""

from __future__ import annotations

import difflib
import html
import json

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QTextBrowser, QVBoxLayout

from sessionscope.gui.jobs.workers import Generation, run_task


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)


def diff_html(d) -> str:
    """The FactDiff as HTML: green added, red removed, changed values as a line diff."""
    if d.is_empty():
        return "<p>The facts are the same at both points.</p>"
    out = []
    for key, value in d.added.items():
        out.append(f"<h4 style='color:#2e7d32'>+ {html.escape(key)}</h4><pre style='color:#2e7d32'>"
                   f"{html.escape(_text(value))}</pre>")
    for key, value in d.removed.items():
        out.append(f"<h4 style='color:#c62828'>− {html.escape(key)}</h4><pre style='color:#c62828'>"
                   f"{html.escape(_text(value))}</pre>")
    for key, (old, new) in d.changed.items():
        lines = []
        for line in difflib.ndiff(_text(old).splitlines(), _text(new).splitlines()):
            tag, body = line[:2], html.escape(line[2:])
            if tag == "+ ":
                lines.append(f"<span style='color:#2e7d32'>+ {body}</span>")
            elif tag == "- ":
                lines.append(f"<span style='color:#c62828'>− {body}</span>")
            elif tag == "  ":
                lines.append(f"  {body}")
        out.append(f"<h4>~ {html.escape(key)}</h4><pre>{'<br>'.join(lines)}</pre>")
    return "".join(out)


class FactsDiffDialog(QDialog):
    """Pick A and B among labelled points (events, branch heads, sessions' heads)."""

    def __init__(self, store, points: list[tuple[str, str]], a: str | None = None, b: str | None = None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Compare facts")
        self.resize(760, 560)
        self.store = store
        self._gen = Generation()
        self.view = QTextBrowser()
        self.a, self.b = QComboBox(), QComboBox()
        for combo in (self.a, self.b):
            for label, event_id in points:
                combo.addItem(label, event_id)
            combo.currentIndexChanged.connect(self.refresh)
        if a:
            self.a.setCurrentIndex(max(0, self.a.findData(a)))
        if b:
            self.b.setCurrentIndex(max(0, self.b.findData(b)))
        form = QFormLayout()
        form.addRow("From (A)", self.a)
        form.addRow("To (B)", self.b)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.view)
        lay.addWidget(buttons)
        self.refresh()

    def refresh(self) -> None:
        a, b = self.a.currentData(), self.b.currentData()
        if not a or not b:
            return
        token = self._gen.next()
        self.view.setHtml("<p>Comparing…</p>")
        run_task(lambda: self.store.diff(a, b), lambda d: self._show(token, d),
                 lambda exc: self.view.setHtml(f"<p>Could not compare: {html.escape(str(exc))}</p>"), owner=self)

    def _show(self, token: int, d) -> None:
        if self._gen.current(token):
            self.last_diff = d
            self.view.setHtml(diff_html(d))
