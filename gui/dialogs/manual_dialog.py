"""Help ▸ Manual: the manual shipped with the app (resources/manual/*.md, the same files the README links), its
chapters in a list beside the chapter shown. Links to another chapter open it here; web links open in the browser.
Pictures stay in the source (they are not installed), so their markup is left out."""

from __future__ import annotations

import re

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QHBoxLayout, QListWidget, QTextBrowser, QWidget

from sessionscope.resources import resource_path

CHAPTERS = (  # (file, title) in reading order
    ("what-it-does.md", "What Sessionscope does"),
    ("command-line.md", "The command line"),
    ("team-store.md", "A team store on PostgreSQL"),
    ("reliability.md", "What the tests hold it to"),
)
_PICTURE = re.compile(r"\[?!\[[^\]]*\]\([^)]*\)(?:\]\([^)]*\))?")  # ![alt](src), or a picture that links to itself


def chapter_text(name: str) -> str:
    """A chapter's Markdown as the dialog shows it: without its pictures."""
    return _PICTURE.sub("", resource_path(f"manual/{name}").read_text(encoding="utf-8"))


class ManualDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Sessionscope Manual")
        self.chapters = QListWidget()
        self.chapters.addItems([title for _name, title in CHAPTERS])
        self.chapters.setMaximumWidth(240)
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)  # chapters open here, the web in the browser
        self.text.anchorClicked.connect(self._follow)
        self.text.document().setDocumentMargin(18)  # room to read, as the reader's cards have
        self.chapters.setSpacing(3)
        row = QHBoxLayout(self)
        row.addWidget(self.chapters)
        row.addWidget(self.text, 1)
        self.chapters.currentRowChanged.connect(self.show_chapter)
        self.chapters.setCurrentRow(0)
        self.resize(1000, 720)

    def show_chapter(self, index: int) -> None:
        if 0 <= index < len(CHAPTERS):
            self.text.setMarkdown(chapter_text(CHAPTERS[index][0]))
            self.text.verticalScrollBar().setValue(0)

    def _follow(self, url: QUrl) -> None:
        name = url.path().rsplit("/", 1)[-1]
        names = [n for n, _title in CHAPTERS]
        if url.scheme() in ("", "file") and name in names:
            self.chapters.setCurrentRow(names.index(name))
        elif url.scheme() in ("http", "https"):
            QDesktopServices.openUrl(url)
