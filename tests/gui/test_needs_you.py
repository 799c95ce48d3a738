"""Needs You (#35): the view of every session that needs approval or waits for you, the longest waiting first, each
answered from there; the notifications when one starts to need you, under the rules in Settings."""

from __future__ import annotations

import datetime as dt
import os
import shlex
import subprocess
import sys
import time

import pytest
from PySide6.QtCore import QSettings, QTime
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton

from sessionscope.gui.jobs.notifier import Rules
from sessionscope.sources.importing import import_paths
from tests.sources.claude_factory import Transcript


@pytest.fixture
def claude_waiting(window, qtbot, tmp_path):
    """A Claude Code session whose last reply asks a question, with its `claude` still running (a child process
    under that name holding the session's id, as `claude --resume ID` does)."""
    pytest.importorskip("psutil")
    cwd = tmp_path / "app"
    cwd.mkdir()
    t = Transcript(cwd=str(cwd))
    t.user("make the importer faster")
    t.assistant("Two ways: batch the inserts, or a parser process. Which one should I try first?")
    t.write(tmp_path / "projects" / "-app")
    import_paths(window.store, [tmp_path / "projects"])
    (tmp_path / "bin").mkdir()
    os.symlink(sys.executable, tmp_path / "bin" / "claude")
    child = subprocess.Popen([str(tmp_path / "bin" / "claude"), "-c", "import time; time.sleep(120)", "--resume",
                              t.session_id])
    yield t, child
    child.kill()
    child.wait()


def _cards(view):
    return [view.cards_layout.itemAt(i).widget() for i in range(view.cards_layout.count() - 1)]


def test_needs_you_lists_the_sessions_waiting_and_opens_one_in_its_tool(window, qtbot, tmp_path, monkeypatch,
                                                                       claude_waiting):
    t, child = claude_waiting
    native = window.session
    window.store.append(native.id, "message", role="assistant", text="Done: the cache is in.\nAnything else?")
    window.live.refresh()
    qtbot.waitUntil(lambda: {st.state for sid, st in window.live.states.items()
                             if sid in (t.session_id, native.id)} == {"waiting"}, timeout=20000)
    assert window.live.states[t.session_id].pid == child.pid
    qtbot.waitUntil(lambda: window.waiting_label.isVisible(), timeout=5000)
    window.waiting_label.click()  # the status bar's count opens the view
    view = window.openers.needs_you_view
    qtbot.waitUntil(lambda: len(_cards(view)) >= 2, timeout=10000)
    cards = _cards(view)
    ids = [c.session_id for c in cards]
    assert ids.index(t.session_id) < ids.index(native.id)  # the longest waiting first (its line is from long ago)
    claude_card = cards[ids.index(t.session_id)]
    texts = " ".join(w.text() for w in claude_card.findChildren(QLabel))
    assert "Which one should I try first?" in texts and "waiting for you" in texts and "Claude Code" in texts
    assert view.summary.text().startswith(f"{len(cards)} sessions need you")

    said = tmp_path / "terminal-argv"
    QSettings().setValue("resume/terminal", f"/bin/sh -c 'printf \"%s\\n\" \"$@\" > {shlex.quote(str(said))}' sh "
                                            "{command}")
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Open)
    button = next(b for b in claude_card.findChildren(QPushButton) if b.text() == "Open in Its Tool")
    button.click()
    assert f"still runs this session (process {child.pid})" in asked[0]  # asked first: a second claude
    deadline = time.monotonic() + 10
    while not (said.exists() and said.read_text()) and time.monotonic() < deadline:
        qtbot.wait(100)
    assert said.read_text().splitlines() == ["claude", "--resume", t.session_id]

    # it leaves the view when it no longer waits
    window.store.append(native.id, "message", role="user", text="yes: the docs")
    window.live.refresh()
    qtbot.waitUntil(lambda: native.id not in [c.session_id for c in _cards(view)], timeout=20000)


def test_a_session_that_starts_waiting_is_notified_under_the_rules(window, qtbot):
    s = window.session
    window.live.refresh()
    qtbot.waitUntil(lambda: window.notifier.seen is not None, timeout=15000)  # what waits at start: counted only
    notified = []
    window.notifier.sig_notified.connect(lambda *a: notified.append(a))

    def reply(text):
        window.store.append(s.id, "message", role="user", text="and then?")
        window.live.refresh()
        qtbot.waitUntil(lambda: window.live.states[s.id].state == "working", timeout=15000)
        window.store.append(s.id, "message", role="assistant", text=text)
        window.live.refresh()
        qtbot.waitUntil(lambda: window.live.states[s.id].state == "waiting", timeout=15000)
        qtbot.wait(300)  # (the notification is decided on a worker)

    reply("Shall I also migrate the old rows?\nThere are 40,000 of them.")
    qtbot.waitUntil(lambda: bool(notified), timeout=10000)
    sid, title, text = notified[0]
    assert sid == s.id and title == f"◆ Waiting for you: {s.title}" and text == "Shall I also migrate the old rows?"
    assert window.statusBar().currentMessage().startswith(title)

    now = dt.datetime.now()
    quiet = Rules(quiet=(QTime(now.hour, 0), QTime((now.hour + 2) % 24, 0)))
    quiet.save()
    reply("Quiet now?")
    Rules(tools={s.source_kind}).save()
    reply("Muted now?")
    Rules(states={"needs_approval"}).save()
    reply("Not a state asked for?")
    assert len(notified) == 1
    Rules().save()
    reply("And now?")
    qtbot.waitUntil(lambda: len(notified) == 2, timeout=10000)


def test_the_rules_are_set_in_settings(window, qtbot):
    from sessionscope.gui.dialogs.settings_dialog import SettingsDialog
    dialog = SettingsDialog(window.store, window)
    box = dialog.notifications
    assert box.enabled.isChecked() and all(b.isChecked() for b in box.states.values())
    assert "claude_code" in box.tools and "managed_agents" in box.tools
    box.states["waiting"].setChecked(False)
    box.tools["codex"].setChecked(False)
    box.quiet.setChecked(True)
    box.quiet_from.setTime(QTime(23, 30))
    qtbot.waitUntil(dialog.ok.isEnabled, timeout=10000)
    dialog.accept()
    rules = Rules.load()
    assert rules.states == {"needs_approval"} and rules.tools == {"codex"}
    assert rules.quiet[0] == QTime(23, 30) and rules.is_quiet(dt.time(1, 0)) and not rules.is_quiet(dt.time(12, 0))


def test_the_hooks_are_installed_and_removed_from_settings(window, qtbot, tmp_path, monkeypatch):
    import json

    from sessionscope.gui.dialogs.settings_dialog import SettingsDialog
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"model": "opus"}))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.Ok)
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: asked.append(a[2]))
    row = SettingsDialog(window.store, window).notifications.hooks
    qtbot.waitUntil(lambda: row.label.text() == "Hooks: Claude Code: not installed", timeout=10000)
    assert row.install.isEnabled() and not row.remove.isEnabled()
    row.install.click()
    qtbot.waitUntil(lambda: row.label.text() == "Hooks: Claude Code: installed", timeout=10000)
    assert "Claude Code: 10 hooks in" in asked[0] and "hook --tool …" in asked[0]
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus" and window.store.url.removeprefix("sqlite:///") in \
        settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    row.remove.click()
    qtbot.waitUntil(lambda: row.label.text() == "Hooks: Claude Code: not installed", timeout=10000)
    assert json.loads((home / ".claude" / "settings.json").read_text()) == {"model": "opus"}


def test_a_card_fits_the_view_however_long_its_words(window, qtbot):
    """The view was narrower than its cards: a horizontal scroll, and a button cut at the right edge."""
    from sessionscope.gui.views.needs_you import NeedsYouView
    from sessionscope.live.needs_you import Waiting
    from sessionscope.live.states import Live
    s = window.store.sessions(limit=1)[0]
    long_word = "/very/long/path/" + "x" * 300
    view = NeedsYouView(window.store)
    qtbot.addWidget(view)
    view.show()
    view._show([Waiting(s, Live("needs_approval", "a tool asks", time.time() - 60), "Run it? " + long_word,
                        f"Bash: cat {long_word}")])
    qtbot.waitUntil(lambda: len(_cards(view)) == 1)
    qtbot.wait(50)
    card = _cards(view)[0]
    assert not view.cards_scroll.horizontalScrollBar().isVisible() and view.width() >= 720
    for button in card.findChildren(QPushButton):
        right = button.mapTo(view.cards_scroll.viewport(), button.rect().topRight()).x()
        assert button.isVisible() and right <= view.cards_scroll.viewport().width(), button.text()
    view.close()
