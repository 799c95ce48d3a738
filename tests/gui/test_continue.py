"""Fork Here and Continue from the window (#33): the dialog shows what will run before anything does; a native
session's fork gets the note as its next message; a Claude Code session's fork is opened in a terminal with
the note as claude's next prompt (the terminal here is a shell that writes down the command it was given)."""

from __future__ import annotations

import shlex
import time

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialog, QMessageBox

from sessionscope import ops
from sessionscope.gui.dialogs.continue_dialog import ContinueDialog
from sessionscope.sources.claude_code import import_paths
from sessionscope.sources.claude_code.actions import project_dir_name
from tests.gui.pages import choose_first_reply
from tests.sources.claude_factory import Transcript


def _answer(monkeypatch, text: str, seen: list):
    """The dialog answered as a person would: its real widgets, the words typed, OK pressed."""
    def exec_(dialog):
        seen.append(dialog)
        dialog.text.setPlainText(text)
        return QDialog.DialogCode.Accepted
    monkeypatch.setattr(ContinueDialog, "exec", exec_)


def test_a_native_fork_continues_with_the_note_as_its_next_message(window, qtbot, monkeypatch):
    store, s = window.store, window.session
    event = choose_first_reply(window, qtbot)
    qtbot.waitUntil(lambda: window.qactions["session.fork_continue"].isEnabled(), timeout=5000)
    ops.note_add(store, s.id, "try the retry decorator", event.id)
    seen = []
    _answer(monkeypatch, "and keep the timeout at 30 s", seen)
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=10000) as blocker:
        window.qactions["session.fork_continue"].trigger()
    dialog = seen[0]
    assert dialog.picked.item(0).checkState() == Qt.CheckState.Checked  # the note on this event, checked
    assert "the note becomes the fork's next message" in dialog.runs.text()
    assert dialog.runs.text().startswith("No tool opens a fork only Sessionscope holds")
    assert dialog.buttons.button(dialog.buttons.StandardButton.Ok).text() == "Fork and Add the Note"
    fork = blocker.args[0].session
    assert store.branch(fork.id)[-1].text == "try the retry decorator\n\nand keep the timeout at 30 s"
    assert store.branch(fork.id)[-2].id == event.id
    qtbot.waitUntil(lambda: "your note is its next message" in window.statusBar().currentMessage(), timeout=5000)


@pytest.fixture
def claude_here(window, qtbot, tmp_path, monkeypatch):
    """A Claude Code session whose folder exists (a terminal is started in it)."""
    pytest.importorskip("claude_agent_sdk")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    cwd = tmp_path / "app"
    cwd.mkdir()
    t = Transcript(session_id="aaaaaaaa-bbbb-4ccc-8ddd-0000000c0ffe", cwd=str(cwd))
    t.user("the upload fails on big files")
    t.assistant("It reads the whole file into memory.")
    t.user("stream it")
    t.assistant("Streaming now.")
    t.write(tmp_path / "claude" / "projects" / project_dir_name(str(cwd)))
    import_paths(window.store, [tmp_path / "claude" / "projects"])
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(t.session_id) >= 0, timeout=10000)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(t.session_id)
    return t, cwd


def test_a_claude_fork_is_opened_in_a_terminal_with_the_note(window, qtbot, monkeypatch, tmp_path, claude_here):
    t, cwd = claude_here
    said = tmp_path / "terminal-argv"
    # the terminal: a shell that writes down, one per line, the command it was asked to run
    QSettings().setValue("resume/terminal", f"/bin/sh -c 'printf \"%s\\n\" \"$@\" > {shlex.quote(str(said))}' sh "
                                            "{command}")
    event = choose_first_reply(window, qtbot)
    seen, asked = [], []
    _answer(monkeypatch, "-- now with a progress bar", seen)

    def exec_box(box):
        asked.append(box.text())
        next(b for b in box.buttons() if b.text() == "Start Claude Code").click()
        return 0
    monkeypatch.setattr(QMessageBox, "exec", exec_box)
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
        window.qactions["session.fork_continue"].trigger()
    runs = seen[0].runs.text()
    assert "claude --resume FORK-ID -- &#x27;-- now with a progress bar&#x27;" in runs  # shown before it runs
    fork = blocker.args[0].session
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)
    assert f"claude --resume {fork.id} -- '-- now with a progress bar'" in asked[0]
    deadline = time.monotonic() + 10
    while not (said.exists() and said.read_text()) and time.monotonic() < deadline:
        qtbot.wait(100)
    assert said.read_text().splitlines() == ["claude", "--resume", fork.id, "--", "-- now with a progress bar"]
    assert fork.forked_from_event == event.id and fork.source_kind == "claude_code"
    qtbot.waitUntil(lambda: "Claude Code continues the fork" in window.statusBar().currentMessage(), timeout=5000)
