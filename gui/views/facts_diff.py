"""Compare the durable facts at two points: added, removed and changed keys, values line-diffed."""

from __future__ import annotations

import difflib
import html
import json

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QTextBrowser, QVBoxLayout

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.window import design

NAMES = {"cwd": "Working folder", "git_branch": "Git branch", "model": "Model", "todos": "Todos", "plan": "Plan",
         "title": "Title", "decision": "Decision"}
KINDS = {"file": "File", "pr": "Pull request"}


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)


def fact_name(key: str) -> str:
    """A fact's key as words: "file:/src/app.py" → "File /src/app.py", "git_branch" → "Git branch"."""
    kind, _, rest = key.partition(":")
    if rest and kind in KINDS:
        return f"{KINDS[kind]} {rest}"
    return NAMES.get(key, key.replace("_", " ").capitalize())


def fact_value(value) -> str:
    """A value in a line: a file's operation ("write"), a list of todos by how many are done, a plan's first line."""
    if isinstance(value, list) and all(isinstance(t, dict) for t in value):
        done = sum(1 for t in value if t.get("status") == "completed")
        return f"{len(value)} todos, {done} done"
    text = " ".join(_text(value).split())
    return text if len(text) <= 90 else text[:89] + "…"


def diff_html(d, a: str = "A", b: str = "B") -> str:
    """The FactDiff as a table of what differs, A's value beside B's (— where one has none), each change said in
    words; a changed value of several lines (a plan, todos) as a line diff under its row."""
    if d.is_empty():
        return "<p>The facts are the same at both points.</p>"
    good, bad, muted = (design.colour(n).name() for n in ("good", "bad", "muted"))
    rows = []

    def row(key: str, old: str, new: str, said: str, colour: str, more: str = "") -> None:
        rows.append(f"<tr><td><b>{html.escape(fact_name(key))}</b></td><td>{old}</td><td>{new}</td>"
                    f"<td style='color:{colour}'>{said}</td></tr>" + (f"<tr><td></td><td colspan=3>{more}</td></tr>"
                                                                       if more else ""))
    none = f"<span style='color:{muted}'>—</span>"
    for key, value in sorted(d.added.items()):
        row(key, none, html.escape(fact_value(value)), f"only in {html.escape(b)}", good)
    for key, value in sorted(d.removed.items()):
        row(key, html.escape(fact_value(value)), none, f"only in {html.escape(a)}", bad)
    for key, (old, new) in sorted(d.changed.items()):
        lines = []
        if "\n" in _text(old) or "\n" in _text(new):
            for line in difflib.ndiff(_text(old).splitlines(), _text(new).splitlines()):
                tag, body = line[:2], html.escape(line[2:])
                if tag == "+ ":
                    lines.append(f"<span style='color:{good}'>+ {body}</span>")
                elif tag == "- ":
                    lines.append(f"<span style='color:{bad}'>− {body}</span>")
                elif tag == "  ":
                    lines.append(f"  {body}")
        row(key, html.escape(fact_value(old)), html.escape(fact_value(new)), "changed", muted,
            f"<pre>{'<br>'.join(lines)}</pre>" if lines else "")
    head = "".join(f"<th align=left>{html.escape(h)}</th>" for h in ("Fact", a, b, ""))
    return f"<table cellspacing=0 cellpadding=4 width='100%'><tr>{head}</tr>{''.join(rows)}</table>"


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
