"""The list's Status column shows each session's live state (#35), why in its tooltip, refreshed by the window."""

from __future__ import annotations

from PySide6.QtCore import Qt

from sessionscope.gui.sessions.session_model import COLUMNS


def test_the_list_says_which_session_works_and_why(window, qtbot):
    store, s = window.store, window.session
    store.append(s.id, "message", role="user", text="go on with the migration")
    window.live.refresh()
    model = window.sessions.model
    col = next(i for i, c in enumerate(COLUMNS) if c[0] == "status")

    def cell(role):
        return model.data(model.index(model.row_of(s.id), col), role)
    qtbot.waitUntil(lambda: cell(Qt.ItemDataRole.DisplayRole) == "● working", timeout=15000)
    assert cell(Qt.ItemDataRole.ToolTipRole).startswith("Working: written")
    store.append(s.id, "message", role="assistant", text="Done: the migration runs.")
    window.live.refresh()
    qtbot.waitUntil(lambda: cell(Qt.ItemDataRole.DisplayRole) == "◆ waiting for you", timeout=15000)
    assert "ended its turn" in cell(Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(model.row_of(s.id), 0)).startswith("◆ ")  # marked before its title too
    assert window.waiting_label.isVisible() and window.waiting_label.text().endswith("waiting for you")
    assert s.title in window.waiting_label.toolTip()
    header = window.branch.live_label  # beside the shown session's title
    assert header.text() == "◆ waiting for you" and "ended its turn" in header.toolTip()


def test_the_sidebar_lists_what_needs_you_now(window, qtbot):
    store, s = window.store, window.session
    store.append(s.id, "message", role="assistant", text="Done. Anything else?")
    window.live.refresh()
    sidebar = window.sidebar

    def entry():
        return next((it for it in sidebar._items() if it.data(0, Qt.ItemDataRole.UserRole) == {"live": "waiting"}),
                    None)
    qtbot.waitUntil(lambda: entry() is not None, timeout=15000)
    item = entry()
    assert item.text(0) == "◆ Waiting for you" and item.parent().text(0) == "Now" and int(item.text(1)) >= 1
    assert "ended its turn" in item.toolTip(0)
    sidebar.setCurrentItem(item)
    model = window.sessions.model
    waiting = {sid for sid, st in window.live.states.items() if st.state == "waiting"}
    qtbot.waitUntil(lambda: {r.id for r in model.rows} == waiting, timeout=10000)
    assert s.id in waiting
    # it leaves the list when it stops waiting (a new prompt: working)
    store.append(s.id, "message", role="user", text="one more thing")
    window.live.refresh()
    qtbot.waitUntil(lambda: s.id not in {r.id for r in model.rows}, timeout=15000)


def test_a_hooks_signal_shows_within_a_second_or_two(window, qtbot, tmp_path):
    """A Claude Code session whose hook says a permission prompt is open: `sessionscope hook` run as Claude Code
    runs it writes the store, and the window, which only looks at the signals' high-water mark (its five-second
    refresh stopped here), marks the session as needing approval."""
    import json
    import subprocess
    import sys

    from sessionscope.sources.importing import import_paths
    from tests.sources.claude_factory import Transcript
    t = Transcript(cwd=str(tmp_path / "app"))
    t.user("clean the build folder")
    t.assistant(tool=("Bash", {"command": "rm -rf build"}))
    t.write(tmp_path / "projects" / "-app")
    import_paths(window.store, [tmp_path / "projects"])
    window.live.timer.stop()
    event = {"session_id": t.session_id, "hook_event_name": "PermissionRequest", "tool_name": "Bash",
             "tool_input": {"command": "rm -rf build"}}
    subprocess.run([sys.executable, "-m", "sessionscope.cli", "hook", "--tool", "claude", "--store",
                    window.store.url.removeprefix("sqlite:///")], input=json.dumps(event).encode(), check=True,
                   timeout=60)
    model = window.sessions.model
    col = next(i for i, c in enumerate(COLUMNS) if c[0] == "status")
    qtbot.waitUntil(lambda: model.row_of(t.session_id) is not None, timeout=15000)

    def cell(role):
        return model.data(model.index(model.row_of(t.session_id), col), role)
    qtbot.waitUntil(lambda: cell(Qt.ItemDataRole.DisplayRole) == "⚠ needs approval", timeout=4000)
    assert "permission prompt is open: Bash: rm -rf build" in cell(Qt.ItemDataRole.ToolTipRole)
    assert "to approve)" in window.waiting_label.text()  # the status bar counts approvals apart


def test_a_line_appended_to_a_transcript_in_use_is_shown_at_once(window, qtbot, tmp_path):
    """A transcript written within the hour is watched by the system: a line appended to it is imported and its
    session's state decided at once, not at the next rescan (here: a minute away)."""
    import datetime as dt

    from sessionscope.sources.importing import import_paths
    from tests.sources.claude_factory import Transcript
    t = Transcript(cwd=str(tmp_path / "app"))
    t.clock = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)
    t.user("write the changelog")
    t.assistant("Done: CHANGELOG.md has the 2.4 entries.")
    path = t.write(tmp_path / "projects" / "-app")
    import_paths(window.store, [tmp_path / "projects"])
    watcher = window.imports.watcher
    watcher.timer.setInterval(60_000)
    watcher.tick()
    qtbot.waitUntil(lambda: str(path) in watcher.hot.files(), timeout=10000)
    qtbot.waitUntil(lambda: getattr(window.live.states.get(t.session_id), "state", None) == "ended", timeout=10000)
    t.clock = dt.datetime.now(dt.timezone.utc)
    t.user("and the README too")
    t.write(tmp_path / "projects" / "-app")
    qtbot.waitUntil(lambda: window.live.states[t.session_id].state == "working", timeout=5000)


def test_a_place_is_rescanned_when_the_system_says_a_file_under_it_was_written(window, qtbot, tmp_path):
    """#61, quiet at rest: the places are not rescanned every two seconds while nothing is written; a line appended
    to a transcript no one touched for a month (not one the window watches itself) is still brought in at once,
    because watchdog says a file under the place was written."""
    import datetime as dt
    import os
    import time

    from sessionscope.sources.importing import import_paths
    from tests.sources.claude_factory import Transcript
    t = Transcript(cwd=str(tmp_path / "app"))
    t.clock = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=30)
    t.user("an old question")
    t.assistant("an old answer")
    path = t.write(tmp_path / "projects" / "-app")
    month_ago = time.time() - 30 * 86400
    os.utime(path, (month_ago, month_ago))
    import_paths(window.store, [tmp_path / "projects"])
    watcher = window.imports.watcher
    watcher.timer.setInterval(60_000)  # (no tick comes on its own in this test)
    started = []
    real_start = watcher.job.start
    watcher.job.start = lambda *a, **k: (started.append(a), real_start(*a, **k))
    watcher.tick()  # the first look rescans, and asks the system to watch the places
    qtbot.waitUntil(lambda: str(tmp_path / "projects") in watcher.watched and not watcher.job.running, timeout=10000)
    assert str(path) not in watcher.hot.files()  # a month old: not one the window watches itself
    qtbot.wait(300)  # (what the import itself touched is said and looked at)
    qtbot.waitUntil(lambda: not watcher.job.running and not watcher.asking and not watcher.soon.isActive(), timeout=5000)
    started.clear()
    for _ in range(3):  # nothing written: the ticks look at the store alone
        watcher.written = False
        watcher.tick()
        qtbot.waitUntil(lambda: not watcher.asking, timeout=5000)
    assert started == []
    count = window.store.session(t.session_id).event_count
    t.clock = dt.datetime.now(dt.timezone.utc)
    t.user("a new question, a month later")
    t.write(tmp_path / "projects" / "-app")
    qtbot.waitUntil(lambda: window.store.session(t.session_id).event_count > count, timeout=5000)
    assert started  # brought in by a rescan the system's word started


def test_at_rest_the_ticks_decide_only_what_time_can_change(window, qtbot):
    """#61: every five seconds a pass decided all 1,500 sessions again (16 % of a core at rest). A tick decides the
    sessions in a state time ends (working, waiting, needs approval): none at rest; all of them once a minute."""
    import dataclasses

    from sessionscope.gui.jobs.live_tracker import WHOLE_TICKS
    live = window.live
    qtbot.waitUntil(lambda: bool(live.states) and not live._busy, timeout=10000)
    live.timer.stop()
    asked = []
    live.refresh = lambda session_ids=None: asked.append(session_ids)
    rest = {sid: dataclasses.replace(st, state="idle") for sid, st in live.states.items()}
    live.states = rest
    live.ticks = 0
    for _ in range(WHOLE_TICKS - 1):
        live.tick()
    assert asked == []  # nothing working or waiting: nothing done
    one = next(iter(rest))
    live.states = {**rest, one: dataclasses.replace(rest[one], state="working")}
    live.tick()  # (the 12th: all of them)
    live.tick()
    assert asked == [None, [one]]


def test_a_write_told_while_a_look_runs_is_looked_at_when_it_ends(window, qtbot, tmp_path):
    """#61: the system's word that a file was written, arriving while the watcher's look is on its worker, is looked at
    as soon as that look ends, not at the next tick two seconds on (it was dropped: a line took 2 s to be searchable)."""
    watcher = window.imports.watcher
    watcher.timer.setInterval(60_000)  # (no tick comes on its own in this test)
    qtbot.waitUntil(lambda: not watcher.job.running and not watcher.asking and not watcher.soon.isActive(), timeout=10000)
    looks = []
    real_tick = watcher.tick
    watcher.tick = lambda: (looks.append(watcher.asking), real_tick())
    watcher.soon.timeout.disconnect()
    watcher.soon.timeout.connect(watcher._look_now)
    watcher.tick()
    assert watcher.asking  # the look is on its worker
    watcher.sig_written.emit()  # the system's word, meanwhile
    qtbot.waitUntil(lambda: len(looks) >= 2 and not watcher.asking, timeout=1500)  # (well before a tick)
