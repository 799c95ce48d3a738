"""Event detail: the rendered event, its raw JSON, its hash, the facts at that event, and the
files of its turn's checkpoint (read only while that tab shows)."""

from __future__ import annotations

import html
import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTabWidget, QTextBrowser, QTreeWidget, QTreeWidgetItem

from sessionscope.gui.jobs.workers import Generation, run_task
from sessionscope.gui.reader.highlight import code_html
from sessionscope.gui.sessions.session_model import when
from sessionscope.safety.untrusted import scrubbed


def _pretty(payload: str) -> tuple[str, bool]:
    try:
        # (a lone surrogate an SDK kept, "\\ud800", is shown as U+FFFD: Qt's text cannot hold it either)
        return json.dumps(scrubbed(json.loads(payload)), indent=2, ensure_ascii=False), True
    except (ValueError, TypeError):
        return payload, False


def fact_label(key: str, cwd: str) -> str:
    """A fact's name as the tab shows it: a file's path from the session's folder (`file:src/app.py`, not
    twenty rows that all begin `file:/home/…/projects/…`); anything else as it is."""
    kind, sep, path = key.partition(":")
    root = cwd.rstrip("/") + "/"
    if sep and kind == "file" and len(root) > 1 and path.startswith(root):
        return f"{kind}:{path[len(root):]}"
    return key


def event_html(e) -> str:
    """The event as a person reads it: header, text (code blocks highlighted), facts payloads."""
    head = (f"<p><b>{html.escape(e.kind)}</b> {html.escape(e.role or '')} · {html.escape(when(e.ts))} · "
            f"seq {e.seq}{' · agent ' + html.escape(e.agent_id) if e.agent_id else ''}"
            f"{f' · {e.tokens_in} in / {e.tokens_out} out tokens' if e.tokens_in or e.tokens_out else ''}</p>")
    body = []
    from sessionscope.gui.reader.timeline_model import ANSI, readable
    text = readable(ANSI.sub("", e.text or ""))  # a tool's colour codes would show as boxes
    parts = text.split("```")
    for i, part in enumerate(parts):
        if i % 2:
            lang, _, code = part.partition("\n")
            body.append(code_html(code, lang.strip() or "text"))
        elif part.strip():
            if len(part) > 20000:
                part = part[:20000] + f"\n… ({len(text) - 20000:,} more characters: see Raw)"
            body.append(f"<pre style='white-space: pre-wrap'>{html.escape(part)}</pre>")
    if e.kind in ("tool_call", "fact.set", "fact.delete") and e.payload:
        pretty, ok = _pretty(e.payload)
        if ok and len(pretty) < 50000:
            body.append(code_html(pretty))
    return head + "".join(body)


class EventDetail(QTabWidget):
    """Tabs for the selected event; the facts tab folds the facts at that event on a worker."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rendered = QTextBrowser()
        self.rendered.setOpenExternalLinks(False)
        self.raw = QTextBrowser()
        self.facts = QTreeWidget()
        self.facts.setHeaderLabels(["Fact", "Value"])
        self.facts.setColumnWidth(0, 220)
        self.facts.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long path keeps its file name in sight
        self.facts.setObjectName("facts-here")
        self.cwd = ""  # the session's folder: a file's fact is named from there
        self.addTab(self.rendered, "Event")
        self.addTab(self.raw, "Raw")
        self.addTab(self.facts, "Facts here")
        from sessionscope.gui.reader.files_tab import FilesTab
        self.files_tab = FilesTab()
        self.addTab(self.files_tab, "Files")
        self.session_info = QTextBrowser()
        self.session_info.setObjectName("session-info")
        self.session_info.setOpenLinks(False)  # a vital sign's link goes to its events (the pane wires it)
        self._session, self._signs = None, []
        self.addTab(self.session_info, "Session")
        self._gen = Generation()
        self.current_event = None
        self._files_for = None  # (store, event) the Files tab shows or will show when opened
        self.currentChanged.connect(lambda _i: self._refresh_files())

    def _refresh_files(self) -> None:
        if self.currentWidget() is self.files_tab and self._files_for is not None:
            store, e = self._files_for
            self._files_for = None
            self.files_tab.show_event(store, e)

    def show_session(self, session) -> None:
        """The Session tab: the session the event belongs to (status, usage, resources)."""
        from sessionscope.gui.reader.session_info import session_html
        if session is None or self._session is None or session.id != self._session.id:
            self._signs = []  # another session's signs are not this one's
        self._session = session
        self.cwd = (getattr(session, "cwd", "") or "") if session is not None else ""
        html_ = session_html(session, self._signs)
        if html_ != getattr(self, "_session_html", None):  # unchanged: keep the reader's scroll position
            self._session_html = html_
            self.session_info.setHtml(html_)

    def show_signs(self, session_id: str, signs: list) -> None:
        """The session's vital signs (sessionscope.insight.vitals.signs), worked out on a worker, in the Session tab."""
        if self._session is not None and self._session.id == session_id:
            self._signs = signs
            self.show_session(self._session)

    def show_event(self, store, e) -> None:
        self.current_event = e
        self._files_for = (store, e)
        self._refresh_files()
        if e is None:
            for w in (self.rendered, self.raw):
                w.clear()
            self.facts.clear()
            return
        self.rendered.setHtml(event_html(e))
        pretty, ok = _pretty(e.payload)
        meta = (f"<p>id {html.escape(e.id)}<br>parent {html.escape(e.parent_id or '—')}<br>"
                f"session {html.escape(e.session_id)}<br>hash <code>{e.hash}</code></p>")
        raw = pretty if len(pretty) < 200_000 else pretty[:200_000] + "\n… (truncated here; export for all of it)"
        self.raw.setHtml(meta + (code_html(raw) if ok else f"<pre>{html.escape(raw)}</pre>"))
        token = self._gen.next()
        run_task(lambda: store.facts_at(e.id), lambda facts: self._show_facts(token, facts),
                 lambda exc: self._facts_failed(token, exc), owner=self)

    def _facts_failed(self, token: int, exc: BaseException) -> None:
        """The event went away meanwhile (its session deleted or purged): nothing to show. Any other
        failure is said in the tab, not raised into the event loop."""
        from sessionscope.errors import NotFound
        if not self._gen.current(token):
            return
        self.facts.clear()
        if not isinstance(exc, NotFound):
            self.facts.addTopLevelItem(QTreeWidgetItem(["(could not fold the facts)", str(exc)[:500]]))

    def _show_facts(self, token: int, facts: dict) -> None:
        if not self._gen.current(token):
            return
        self.facts.clear()
        for key in sorted(facts):
            value = facts[key]
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            item = QTreeWidgetItem([fact_label(key, self.cwd), text[:500]])
            item.setToolTip(0, key)
            item.setToolTip(1, text[:5000])
            self.facts.addTopLevelItem(item)
