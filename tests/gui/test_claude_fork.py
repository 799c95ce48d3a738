"""Fork here / Fork at end of turn on a Claude Code session, from the timeline and the tree."""

from __future__ import annotations

import pytest

from sessionscope.gui.dialogs import ask
from sessionscope.sources.claude_code import import_paths
from tests.gui.pages import answer_tags
from tests.sources.test_claude_fidelity import original_up_to, read_back, tool_loop

pytest.importorskip("claude_agent_sdk")


@pytest.fixture
def claude_window(window, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    t, ids = tool_loop(tmp_path / "claude" / "projects" / "-work-app")
    import_paths(window.store, [tmp_path / "claude" / "projects"])
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(t.session_id) >= 0, timeout=10000)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(t.session_id)
    return window, t, ids


def _select_event(window, qtbot, event_id):
    """Select an event and let the window settle: the watcher reading the tool's own writes may re-show
    the branch meanwhile (it keeps the selection; while it reloads, nothing is selected)."""
    model = window.branch.timeline_model
    window.qactions["timeline.fold"].setChecked(False)

    def chosen() -> bool:
        e = window.branch.detail.current_event
        if e is not None and e.id == event_id:
            return True
        if model.row_of(event_id) >= 0:
            window.branch.timeline.selectRow(model.row_of(event_id))
        return False
    qtbot.waitUntil(chosen, timeout=5000)
    qtbot.wait(2500)  # one look of the watcher (every 2 s)
    qtbot.waitUntil(chosen, timeout=5000)


def test_fork_here_ends_at_the_event_and_says_so(claude_window, qtbot, monkeypatch):
    window, t, ids = claude_window
    _select_event(window, qtbot, ids["read"])
    asked = []
    monkeypatch.setattr(ask, "text", lambda *a, **k: asked.append(a[2]) or "cut at the read")
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
        window.qactions["session.fork"].trigger()
    ch = blocker.args[0]
    assert "nothing after it" in asked[0] and "closed as interrupted" in asked[0]
    copied = [u for u, _ in read_back(ch.session.id) if u]
    assert copied == [u for u, _ in original_up_to(t.session_id, ids["read"])]
    assert "interrupted" in window.statusBar().currentMessage()


def test_fork_at_end_of_turn_from_the_tree(claude_window, qtbot, monkeypatch):
    window, t, ids = claude_window
    monkeypatch.setattr(ask, "text", lambda *a, **k: "whole turn")
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
        from sessionscope.gui.window.action_table import BY_ID  # what the tree menu's entry does, with its node's event id
        window.run_action(BY_ID["session.fork_turn"], window.context(event=ids["mid_text"]))
    ch = blocker.args[0]
    assert [u for u, _ in read_back(ch.session.id)] == [u for u, _ in original_up_to(t.session_id, ids["reply"])]
    assert ch.session.title == "whole turn"


def test_resume_says_when_the_sessions_folder_is_gone(claude_window, dialogs, tmp_path):
    """Not "could not open a terminal": Claude Code resumes from the session's folder, and it is not there."""
    from PySide6.QtGui import QGuiApplication
    window, t, _ids = claude_window
    assert not __import__("os").path.isdir(window.session.cwd)  # /work/app: never made here
    window.qactions["session.resume"].trigger()
    dialogs.expected = 1
    assert dialogs[0][0] == "information" and "no longer exists" in dialogs[0][1]
    assert "Could not open a terminal" not in dialogs[0][1]
    assert QGuiApplication.clipboard().text() == f"claude --resume {t.session_id}"


def test_claude_actions_through_the_window(claude_window, qtbot, monkeypatch, tmp_path):
    """Rewind, rename, tag and write-back of a Claude Code session, each from its menu entry; the file
    Claude Code reads is what changes (through claude-agent-sdk), and the store follows."""
    import claude_agent_sdk as sdk
    from PySide6.QtWidgets import QMessageBox
    window, t, ids = claude_window
    path = tmp_path / "claude" / "projects" / "-work-app" / f"{t.session_id}.jsonl"
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)

    def run(action_id, text=None):
        if text is not None:
            monkeypatch.setattr(ask, "text", lambda *a, **k: text)
        with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
            window.qactions[action_id].trigger()
        return blocker.args[0]

    run("session.rename", "renamed in the app")
    assert any(s.summary == "renamed in the app" or getattr(s, "custom_title", None) == "renamed in the app"
               for s in sdk.list_sessions() if s.session_id == t.session_id)
    answer_tags(monkeypatch, "triage")
    run("session.tag")
    assert list(window.store.session(t.session_id).tags) == ["triage"]
    assert '"tag": "triage"' in path.read_text() or '"tag":"triage"' in path.read_text()
    _select_event(window, qtbot, ids["read"])
    rewound = run("session.rewind")
    assert rewound.session.id != t.session_id and rewound.session.forked_from_session == t.session_id
    # Claude Code deleted the original: written back from the store, under its own id
    # the window moves on to the rewound copy once the list has it; then back to the original
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == rewound.session.id
                    and window.sessions.model.row_of(rewound.session.id) >= 0, timeout=10000)
    window.open_session(t.session_id)
    qtbot.waitUntil(lambda: window.session.id == t.session_id, timeout=5000)
    original = path.read_bytes()
    path.unlink()
    assert window.qactions["session.write_back"].isEnabled()
    run("session.write_back")
    assert path.is_file() and len(path.read_bytes()) > 0.5 * len(original)
    assert t.session_id in {s.session_id for s in sdk.list_sessions()}


def test_a_fork_of_an_old_session_did_not_run_until_today_and_compare_finds_it(claude_window, qtbot, monkeypatch):
    """#29 item 26: the lines a fork adds (the interruption of open calls, its title) carry the cut's time, so
    the fork's events span the original's; Compare on the origin, whose fork is a session of its own, compares
    with that fork instead of saying there is none."""
    window, t, ids = claude_window
    _select_event(window, qtbot, ids["read"])  # a call left open at the cut: an interruption is added
    monkeypatch.setattr(ask, "text", lambda *a, **k: "the old fork")
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
        window.qactions["session.fork"].trigger()
    fork = blocker.args[0].session
    times = [e.ts for e in window.store.events(fork.id)]
    origin_times = [e.ts for e in window.store.events(t.session_id)]
    assert max(times) <= max(origin_times) + 1  # (the originals are from 2026-03-01; none is stamped today)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(t.session_id)
    window.openers.compare()
    qtbot.waitUntil(lambda: window.openers.compare_view is not None, timeout=10000)
    assert {window.openers.compare_view.a[0], window.openers.compare_view.b[0]} == {t.session_id, fork.id}


def test_deleting_a_fork_offers_to_remove_the_transcript_sessionscope_wrote(claude_window, qtbot, monkeypatch):
    """#29 item 28: a fork's file stays listed by claude --resume after the session is deleted, unless removed."""
    from pathlib import Path

    from PySide6.QtWidgets import QMessageBox
    window, t, ids = claude_window
    _select_event(window, qtbot, ids["read"])
    monkeypatch.setattr(ask, "text", lambda *a, **k: "to delete")
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
        window.qactions["session.fork"].trigger()
    fork = blocker.args[0].session
    path = Path(blocker.args[0].detail["file"])
    assert path.is_file()

    def answer(box):
        assert box.checkBox() is not None and path.name in box.checkBox().text()
        box.checkBox().setChecked(True)
        return QMessageBox.StandardButton.Yes
    monkeypatch.setattr(QMessageBox, "exec", answer)
    qtbot.waitUntil(lambda: window.sessions.model.row_of(fork.id) >= 0, timeout=10000)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(fork.id)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == fork.id, timeout=10000)
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000):
        window.qactions["session.delete"].trigger()
    assert not path.exists() and Path(window.store.session(t.session_id).id)  # the origin stays
    assert window.store.audit_log(fork.id)[0]["action"] == "delete.files"


def test_after_a_fork_the_window_shows_the_fork_with_one_count(claude_window, qtbot, monkeypatch):
    """#60: after a fork the window stayed on the original, the list said "0 events" where the header said 7, and
    the new fork was "● working". The fork is shown at once, the list counts what the store holds (a fork's own
    lines: those it references stay its origin's), the header the branch it shows, and a fork of old lines is not
    working."""
    window, t, ids = claude_window
    _select_event(window, qtbot, ids["read"])
    monkeypatch.setattr(ask, "text", lambda *a, **k: "cut at the read")
    with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000) as blocker:
        window.qactions["session.fork"].trigger()
    new = blocker.args[0].session.id
    m = window.sessions.model
    qtbot.waitUntil(lambda: window.session.id == new and m.row_of(new) >= 0
                    and "cut at the read" in window.branch.timeline_label.text(), timeout=5000)
    assert window.sessions.view.currentIndex().row() == m.row_of(new)
    stored, branch = window.store.session(new).event_count, len(window.store.branch_ids(new))
    assert m.rows[m.row_of(new)].event_count == stored > 0
    assert f"{branch} events" in window.branch.timeline_label.text() or f"{branch} of " in window.branch.timeline_label.text()
    window.live.refresh()
    qtbot.waitUntil(lambda: new in m.live, timeout=10000)
    assert m.live[new].state != "working"


def test_a_read_whose_session_went_away_while_it_ran_is_not_an_error(window, qtbot, dialogs):
    """A session deleted while its branch, its branch points or its tree were read on a worker (the read finds no
    session): nothing to show and nothing to say; any other failure is still said. CI met the branch's and the
    tree's, deleting a fork whose reads were still running."""
    from sessionscope.errors import NotFound
    for what in ("show the branch", "mark the branch points", "draw the branch tree"):
        window.branch._read_failed(what)(NotFound("no session with id 'gone' in this store"))
    assert list(dialogs) == []
    rows = window.store.sessions(limit=100)
    leaf = next(r for r in rows if not any(o.forked_from_session == r.id for o in rows))  # (none forks from it)
    window.open_session(leaf.id)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == leaf.id, timeout=10000)
    shown = window.session
    window.store.delete(shown.id)  # behind the window's back, as a deletion racing the reads
    window.branch.show_branch(shown.head_event_id, None)
    window.branch._load_tree()
    qtbot.wait(500)
    from sessionscope.gui.jobs.workers import wait_for_workers
    assert wait_for_workers(5000)
    qtbot.wait(100)
    assert list(dialogs) == []
    window.branch._read_failed("draw the branch tree")(RuntimeError("disk on fire"))
    assert dialogs == [("warning", "Could not draw the branch tree: disk on fire")]
    dialogs.expected = 1
