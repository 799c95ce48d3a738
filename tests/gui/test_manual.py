"""Help ▸ Manual shows the manual the README links (resources/manual/), chapter by chapter, from the installed
package; a link to another chapter opens it in place."""

from __future__ import annotations

import re

from PySide6.QtCore import QUrl

from tests.conftest import REPO


def test_help_manual_shows_every_chapter(window, qtbot):
    from sessionscope.gui.dialogs.manual_dialog import CHAPTERS
    window.qactions["app.manual"].trigger()
    dialog = window.openers.manual_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    for index, (name, title) in enumerate(CHAPTERS):
        dialog.chapters.setCurrentRow(index)
        shown = dialog.text.toPlainText()
        assert len(shown.split()) > 300, name  # a chapter, not a stub
        assert "![" not in dialog.text.toMarkdown()  # pictures are not installed: left out, not shown broken
    dialog._follow(QUrl("command-line.md"))  # as a link between chapters is written
    assert dialog.chapters.currentRow() == [n for n, _t in CHAPTERS].index("command-line.md")
    assert "sessionscope scan" in dialog.text.toPlainText()
    window.qactions["app.manual"].trigger()  # raised again, not a second one
    assert window.openers.manual_dialog is dialog
    dialog.close()


def test_the_readme_links_the_manual_and_every_chapter_is_listed():
    """Every chapter file is in the dialog's list and linked from the README; every relative link resolves."""
    from sessionscope.gui.dialogs.manual_dialog import CHAPTERS
    folder = REPO / "resources" / "manual"
    assert {p.name for p in folder.glob("*.md")} == {name for name, _t in CHAPTERS}
    readme = (REPO / "README.md").read_text()
    for name, _title in CHAPTERS:
        assert f"resources/manual/{name}" in readme
    for path in [REPO / "README.md", *folder.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#:]+)\)", path.read_text()):
            assert (path.parent / target).exists(), f"{path.name} links {target}, which is not there"
