"""The event detail's Files tab: the files of a turn's checkpoint, each as it was then, or as a
diff against the next checkpoint or against the file on disk now. Read on a worker."""

from __future__ import annotations

import difflib
import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QListWidget, QListWidgetItem, QSplitter, QTextBrowser, QVBoxLayout, QWidget

from sessionscope import ops
from sessionscope.gui.jobs.workers import Generation, run_task

SHOW_AS_WAS, DIFF_NEXT, DIFF_DISK = "As it was then", "Diff to the next checkpoint", "Diff to the file on disk now"
_LIMIT = 400_000  # characters shown; more is cut with a note


def _text(data: bytes | None) -> str:
    if data is None:
        return ""
    if b"\0" in data[:8192]:
        return f"(binary file, {len(data):,} bytes)\n"
    return data.decode("utf-8", "replace")


def _disk(target: str) -> tuple[bytes | None, str]:
    try:
        return Path(target).read_bytes(), "kept"
    except FileNotFoundError:
        return None, "absent"
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"


_STATE = {"absent": "(the file did not exist)", "gone": "(its backup is gone: not in the store nor on disk)",
          "damaged": "(its backup in the store is damaged: its bytes no longer match their hash; sessionscope "
                     "verify names every damaged one)",
          "none": "(no later checkpoint: compare with the file on disk instead)"}


def code_html_diff(text: str) -> str:
    """A unified diff, highlighted."""
    from sessionscope.gui.reader.highlight import code_html
    return code_html(text[:_LIMIT], "diff") if text else "<p>(no difference)</p>"


def diff_html(a: str, b: str, a_name: str, b_name: str) -> str:
    return code_html_diff("".join(difflib.unified_diff(a.splitlines(keepends=True), b.splitlines(keepends=True),
                                                       a_name, b_name)))


class FilesTab(QWidget):
    """Lists the checkpoint's files for the selected event's turn; shows one as chosen."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.label = QLabel("Select an event of a Claude Code session with file checkpoints.")
        self.label.setWordWrap(True)
        self.mode = QComboBox()
        self.mode.addItems([SHOW_AS_WAS, DIFF_NEXT, DIFF_DISK])
        self.files = QListWidget()
        self.view = QTextBrowser()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.files)
        split.addWidget(self.view)
        split.setSizes([120, 300])
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.label)
        box.addWidget(self.mode)
        box.addWidget(split, 1)
        self.entries = []
        self.prompt = None
        self._gen = Generation()
        self.files.currentRowChanged.connect(self._show_file)
        self.mode.currentIndexChanged.connect(lambda _i: self._show_file(self.files.currentRow()))

    def show_event(self, store, e) -> None:
        token = self._gen.next()
        self.files.clear()
        self.view.clear()
        self.entries = []
        if e is None or store is None:
            self.label.setText("No event selected.")
            return
        self.label.setText("Reading the checkpoint…")
        run_task(lambda: ops.files_at(store, e.session_id, e.id), lambda r: self._loaded(token, *r),
                 lambda exc: self._failed(token, exc), owner=self)

    def _failed(self, token, exc) -> None:
        if self._gen.current(token):
            self.label.setText(f"Could not read the checkpoint: {exc}")

    def _loaded(self, token, prompt, entries) -> None:
        if not self._gen.current(token):
            return
        self.prompt, self.entries = prompt, entries
        if not entries:
            self.label.setText("This turn has no file checkpoint (Claude Code keeps one for each prompt "
                               "whose turn edits files).")
            return
        self.label.setText(f"{len(entries)} file(s) as prompt {prompt[:8]} found them")
        self.label.setToolTip("The files Claude Code tracked, as they were when this turn's prompt was sent. "
                              "Session ▸ Restore Code to Here puts them back.")
        for f in entries:
            mark = {"absent": "  (not there yet)", "gone": "  (backup gone)", "damaged": "  (backup damaged)"}.get(f.state, "")
            item = QListWidgetItem(f.path + mark)
            item.setToolTip(f.target)
            self.files.addItem(item)
        self.files.setCurrentRow(0)

    def _show_file(self, row: int) -> None:
        if not (0 <= row < len(self.entries)):
            self.view.clear()
            return
        from sessionscope.gui.reader.highlight import code_html
        f = self.entries[row]
        mode = self.mode.currentText()
        if mode == SHOW_AS_WAS:
            if f.state != "kept":
                self.view.setHtml(f"<p>{html.escape(_STATE[f.state])}</p>")
                return
            self.view.setHtml(code_html(_text(f.content)[:_LIMIT], _language(f.path)))
            return
        if mode == DIFF_NEXT:
            bad = next((s for s in (f.state, f.next_state) if s in ("gone", "damaged")), None)
            if f.next_state == "none" or bad:
                self.view.setHtml(f"<p>{html.escape(_STATE[bad or 'none'])}</p>")
                return
            self.view.setHtml(diff_html(_text(f.content), _text(f.next_content), f"then/{f.path}", f"next/{f.path}"))
            return
        data, state = _disk(f.target)
        if f.state in ("gone", "damaged"):
            self.view.setHtml(f"<p>{html.escape(_STATE[f.state])}</p>")
            return
        self.view.setHtml(diff_html(_text(f.content), _text(data), f"then/{f.path}",
                                    f"now/{f.path}" + ("" if state == "kept" else f" {state}")))


def _language(path: str) -> str:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound
    try:
        return get_lexer_for_filename(path).aliases[0]
    except (ClassNotFound, IndexError):
        return "text"
