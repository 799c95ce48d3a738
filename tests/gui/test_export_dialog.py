"""The export dialog driven from the window: review of secrets first, then the file."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QRadioButton

from tests.gui.pages import loaded
from tests.gui.test_window import _select


@pytest.fixture
def opened(monkeypatch):
    """Dialogs the window opens with exec() are shown instead (exec would block) and collected."""
    from sessionscope.gui.dialogs.export_dialog import ExportDialog

    dialogs = []

    def show(self):
        dialogs.append(self)
        self.show()
        return 0
    monkeypatch.setattr(ExportDialog, "exec", show)
    return dialogs


def _redacting(window, qtbot, opened, fmt: str, path, text: str):
    """The login session with `text` appended to it; its export dialog, redacting into `path`, its review made."""
    s = _select(window, qtbot, "Fix the flaky login test")
    window.store.append(s.id, "message", role="user", text=text)
    window.qactions["session.export"].trigger()
    dialog = opened[-1]
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData(fmt))
    dialog.redact.setChecked(True)
    dialog.path.setText(str(path))
    assert dialog.go.text() == "Scan for Secrets"
    _run(dialog, qtbot, lambda: dialog.findings is not None)
    return s, dialog


def _run(dialog, qtbot, until):
    qtbot.mouseClick(dialog.go, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.go.isEnabled() and until(), timeout=15000)


def test_export_reviews_secrets_then_writes(window, qtbot, opened, tmp_path, monkeypatch):
    secret = "AKIA" + "IOSFODNN7EXAMPLQ"
    s, dialog = _redacting(window, qtbot, opened, "html", tmp_path / "login.html", f"use {secret} for the bucket")
    assert dialog.review.topLevelItemCount() == 1
    row = dialog.review.topLevelItem(0)
    assert row.text(0).startswith("aws-key") and row.text(4).startswith("[REDACTED:aws-key:")
    assert row.text(1) == "use AKIA•••••••••••• for the bucket"  # in context, masked
    assert not (tmp_path / "login.html").exists()  # nothing written before the review
    assert dialog.go.text() == "Export (1 replaced)"
    _run(dialog, qtbot, lambda: dialog.report is not None)
    page = (tmp_path / "login.html").read_text()
    assert secret not in page and row.text(4) in page and "Fix the flaky login test" in page
    assert "Exported" in dialog.status.text() and dialog.show_button.isVisible() and dialog.open_button.isVisible()
    urls = []
    from PySide6.QtGui import QDesktopServices
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: urls.append(url.toLocalFile()) or True))
    dialog.open_button.click()  # the file itself, as well as the folder it is in
    dialog.show_button.click()
    assert urls == [str(tmp_path / "login.html"), str(tmp_path)]
    assert secret in window.store.events(s.id)[-1].text  # the store keeps what it had


def test_a_finding_dismissed_in_the_review_is_left_as_it_is(window, qtbot, opened, tmp_path):
    """#29 item 21: Not a Secret remembers the value (by its placeholder) and the review is made again."""
    value = "9fQ2xLp7Zk3Vb8Nw1Rt6" + "Yh4Jm0Gc5Sd2Ae7Uo"
    _s, dialog = _redacting(window, qtbot, opened, "md", tmp_path / "ids.md", f"build id {value}")
    assert dialog.review.topLevelItemCount() == 1
    dialog.review.topLevelItem(0).setSelected(True)
    assert dialog.dismiss.isEnabled()
    dialog.dismiss.click()
    qtbot.waitUntil(lambda: dialog.findings == [], timeout=10000)
    assert dialog.go.text() == "Export"


def test_export_several_selected_sessions(window, qtbot, opened, tmp_path):
    _select(window, qtbot, "Fix the flaky login test")
    other = next(i for i, s in enumerate(window.sessions.model.rows) if s.title == "Try retry-on-failure instead")
    window.sessions.view.selectionModel().select(
        window.sessions.model.index(other, 0),
        QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
    window.qactions["session.export"].trigger()
    dialog = opened[-1]
    qtbot.addWidget(dialog)
    what = dialog.findChild(QRadioButton, "what-sessions").text()  # it names what it will write
    assert "2 selected sessions" in what and "“Fix the flaky login test”" in what \
        and "“Try retry-on-failure instead”" in what
    dialog.format.setCurrentIndex(dialog.format.findData("md"))
    dialog.redact.setChecked(False)
    assert dialog.review.isHidden() and dialog.go.text() == "Export"  # no review without redaction
    dialog.path.setText(str(tmp_path / "two.md"))
    _run(dialog, qtbot, lambda: dialog.report is not None)
    assert dialog.report.sessions == 2
    text = (tmp_path / "two.md").read_text()
    assert "# Fix the flaky login test" in text and "# Try retry-on-failure instead" in text


def test_export_the_branch_to_the_selected_event(window, qtbot, opened, tmp_path):
    _select(window, qtbot, "Fix the flaky login test")
    loaded(window.branch.timeline_model, qtbot, 0)
    first_prompt = next(r for r in range(window.branch.timeline_model.rowCount())
                        if (e := window.branch.timeline_model.event_at(r)) is not None and e.kind == "message")
    window.branch.timeline.selectRow(first_prompt)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None, timeout=5000)
    head = window.branch.detail.current_event
    window.qactions["session.export_branch"].trigger()
    dialog = opened[-1]
    qtbot.addWidget(dialog)
    assert dialog.findChild(QRadioButton, "what-branch").isChecked()  # what it was opened for
    dialog.format.setCurrentIndex(dialog.format.findData("jsonl"))
    dialog.redact.setChecked(False)
    dialog.path.setText(str(tmp_path / "branch.jsonl"))
    assert dialog.request().head == head.id
    dialog.format.setCurrentIndex(dialog.format.findData("md"))
    _run(dialog, qtbot, lambda: dialog.report is not None)
    text = open(dialog.report.files[0]).read()
    assert head.text.splitlines()[0] in text and "Show me the fixture" not in text


def test_search_dialog_exports_its_sessions(window, qtbot, opened):
    from sessionscope.gui.dialogs.search_dialog import SearchDialog

    dialog = SearchDialog(window.store, window)
    qtbot.addWidget(dialog)
    dialog.sig_export.connect(lambda q: window.openers.export_sessions(search=q))
    dialog.run("cookie")
    qtbot.waitUntil(lambda: dialog.export_button.isEnabled(), timeout=5000)
    qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    export = opened[-1]
    qtbot.addWidget(export)
    assert export.request().search == "cookie" and export.request().session_ids == ()
