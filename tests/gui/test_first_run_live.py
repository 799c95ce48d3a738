"""A first import on a big home is browsable while it runs: sessions are listed as they are committed,
and "No sessions yet" never shows while sessions are on their way."""

from __future__ import annotations

import datetime as dt
import random
import uuid

from tests.benchmarks.generate import generate, write_session


def _big_home(home):
    """A few big sessions and 500 small ones: an import of many files, each its own commit, lasts several of the
    list's live ticks even on a fast machine (44 files of 30 MB were all in before the first tick on CI's)."""
    generate(home, 12_000_000, sessions=4)
    rng, start = random.Random(3), dt.datetime(2026, 2, 1, tzinfo=dt.timezone.utc)
    many = home / "-home-dev-src-many"
    many.mkdir()
    for i in range(500):
        write_session(many / f"{uuid.UUID(int=rng.getrandbits(128), version=4)}.jsonl", rng, 3000,
                      "/home/dev/src/many", start + dt.timedelta(minutes=i))


def test_sessions_appear_while_the_import_runs(qtbot, tmp_path):
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    home = tmp_path / "projects"
    _big_home(home)
    make_app()
    store = open_store(tmp_path / "fresh.db")
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    try:
        w.set_store(store, first_run=False)
        qtbot.waitUntil(lambda: w.sessions.currentWidget() is w.sessions.empty, timeout=5000)  # nothing yet, no import
        w.imports.import_first(store, [home])  # as a first run does with the default places
        assert w.imports.job.running and w.sessions.currentWidget() is not w.sessions.empty
        seen_empty = []
        w.sessions.model.sig_loaded.connect(lambda _rows: seen_empty.append(w.sessions.currentWidget() is w.sessions.empty))
        qtbot.waitUntil(lambda: w.sessions.model.rowCount() > 0, timeout=20000)
        assert w.imports.job.running, "the import had finished before any session was listed: the home is too small to tell"
        first = w.sessions.model.rowCount()
        row = 0
        w.sessions.view.selectRow(row)  # an imported session can be read during the import
        qtbot.waitUntil(lambda: w.session is not None and w.branch.timeline_model.rowCount() > 0, timeout=10000)
        qtbot.waitUntil(lambda: not w.imports.job.running, timeout=120000)
        qtbot.waitUntil(lambda: w.sessions.model.rowCount() == store.count_sessions(), timeout=10000)
        assert w.sessions.model.rowCount() > first and not any(seen_empty)
    finally:
        w.close()
        store.close()


def test_a_tick_lists_again_only_when_the_import_committed(qtbot, tmp_path):
    """A rescan that finds nothing new commits nothing: its ticks do not read a list of thousands again (each
    read ~0.5 s of a worker, which a session clicked meanwhile waited behind)."""
    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    make_app()
    store = open_store(tmp_path / "s.db")
    store.open_session(title="one")
    w = MainWindow()
    qtbot.addWidget(w)
    try:
        w.set_store(store, first_run=False)
        qtbot.waitUntil(lambda: w.sessions.model.rowCount() == 1, timeout=5000)
        reads = []
        w.sessions.model.sig_loaded.connect(reads.append)
        job = w.imports.job
        job.start_mark = job.mark = store.change_mark()  # the import's process said where it starts
        w.import_commands.import_tick()
        qtbot.wait(300)
        assert reads == []
        store.open_session(title="two")  # what the import committed
        job.mark = store.change_mark()
        w.import_commands.import_tick()
        qtbot.waitUntil(lambda: w.sessions.model.rowCount() == 2, timeout=5000)
        assert len(reads) == 1
        w.import_commands._live_reload_at = 0.0  # (past the pause between two reads)
        w.import_commands.import_tick()  # the same mark again: read already
        qtbot.wait(300)
        assert len(reads) == 1
    finally:
        w.close()
        store.close()
