"""Opening the window: its first paint before SQLAlchemy is imported, the list's first page before the store is
open, the order the list starts in, and `sessionscope --startup-times` (#39)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from PySide6.QtCore import Qt

from tests.conftest import REPO


def test_startup_times_says_when_the_window_painted_and_listed_the_store(tmp_path):
    """The real process, on a store with sessions: the window paints before SQLAlchemy is imported (the store
    opens after the first paint), and the list's time comes after it, with its rows counted."""
    from sessionscope import open_store
    with open_store(tmp_path / "s.db") as store:
        for i in range(3):
            store.append(store.open_session(title=f"session {i}").id, "message", role="user", text="hi")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path / "home")}
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "s.db"),
                          "--startup-times"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    said = re.search(r"from the command: first paint (\d+) ms, 3 sessions listed (\d+) ms, \d+ MB", run.stderr)
    assert said, run.stderr
    assert 0 < int(said.group(1)) <= int(said.group(2))


def test_the_first_page_is_listed_before_the_store_opens_and_a_click_waits_for_it(qtbot, tmp_path):
    from sessionscope import open_store, ops
    from sessionscope.gui.sessions.session_model import COLUMNS
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    path = tmp_path / "s.db"
    with open_store(path) as store:
        ids = [store.open_session(title=f"session {i}").id for i in range(3)]
        ops.star(store, ids[0], actor="test")
    make_app()
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    model = w.sessions.model
    model.set_filters(starred=True)  # the list's own filter holds for the first page too
    model.first_page(str(path))
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=10000)
    assert w.store is None and model.session_at(0).id == ids[0]
    w.sessions.view.setCurrentIndex(model.index(0, 0))  # a click before the store is open: nothing opens
    assert w.session is None and not (model.flags(model.index(0, [c[0] for c in COLUMNS].index("tags")))
                                     & Qt.ItemFlag.ItemIsEditable)
    w.set_store(open_store(path), first_run=False)
    qtbot.waitUntil(lambda: w.session is not None and w.session.id == ids[0], timeout=10000)
    model.set_filters()
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=10000)
    w.imports.watcher.stop()


def test_a_new_window_lists_the_newest_activity_first(qtbot, tmp_path):
    """Whatever the columns' order, the list starts sorted by last activity, newest first (it started by Tokens
    once the columns moved: the fourth column was sorted)."""
    import time as _time

    from sessionscope import open_store
    from sessionscope.gui.sessions.session_model import COLUMNS
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    store = open_store(tmp_path / "s.db")
    old = store.open_session(title="older, more tokens").id
    store.append(old, "message", role="assistant", text="a long answer", tokens_in=90_000, tokens_out=9_000)
    _time.sleep(1.1)
    new = store.open_session(title="newer, few tokens").id
    store.append(new, "message", role="user", text="hi")
    make_app()
    w = MainWindow()
    qtbot.addWidget(w)
    w.set_store(store, first_run=False)
    qtbot.waitUntil(lambda: w.sessions.model.rowCount() == 2, timeout=10000)
    assert [w.sessions.model.session_at(i).id for i in range(2)] == [new, old]
    header = w.sessions.view.horizontalHeader()
    assert COLUMNS[header.sortIndicatorSection()][0] == "updated"
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    w.imports.watcher.stop()


def test_the_window_paints_before_sqlalchemy_is_imported():
    script = ("import sys\nfrom sessionscope.gui.window.app import make_app, MainWindow\nmake_app()\nw = MainWindow()\n"
              "w.show()\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'sqlmodel')))")
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]"  # (the window's first paint waits for none of it)


def test_the_process_ends_soon_after_the_window_closes(tmp_path):
    """#60: the process stayed 6–8 s after its window closed. Timed from the window's last word (the screenshot
    written, the app told to quit) to the process's end, with the first run's look and the live states running."""
    import time
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()
    child = subprocess.Popen([sys.executable, "-m", "sessionscope.cli", "--demo", "--screenshot",
                              str(tmp_path / "shot.png")], cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    said = ""
    for line in child.stderr:
        said += line
        if line.startswith("sessionscope: wrote"):
            break
    told = time.monotonic()
    assert child.wait(timeout=60) == 0, said + child.stderr.read()
    assert time.monotonic() - told < 2.5
