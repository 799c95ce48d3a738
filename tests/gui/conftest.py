"""GUI fixtures: a real window over a real SQLite store; no thread may outlive its test."""

from __future__ import annotations

import gc

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QSettings  # noqa: E402


@pytest.fixture(autouse=True)
def no_leftover_threads(qapp):
    # The tests before left their windows' Python wrappers as cyclic garbage: collected here, on the UI thread with
    # no worker running, rather than by whichever worker thread allocates next (once a worker counting the sidebar
    # of the next test's window died in such a collection: "Fatal Python error: Segmentation fault", "Garbage-
    # collecting"; a process has one window for its life, a test run hundreds)
    gc.collect()
    yield
    from sessionscope.gui.jobs.workers import wait_for_workers
    assert wait_for_workers(20000), "a worker thread was still running after the test"
    qapp.processEvents()


class _Shown(list):
    expected = 0  # how many boxes the test expected to see


@pytest.fixture(autouse=True)
def dialogs(monkeypatch):
    """Message boxes would block an offscreen test: they are recorded instead.

    A test that expects one reads this list (or patches the box itself); any
    other box shown fails the test with its text.
    """
    from PySide6.QtWidgets import QMessageBox

    shown: list[tuple[str, str]] = _Shown()

    def record(kind, answer):
        def box(parent, title, text, *args, **kwargs):
            shown.append((kind, f"{title}: {text}"))
            return answer
        return box
    for kind, answer in (("warning", QMessageBox.StandardButton.Cancel), ("critical", QMessageBox.StandardButton.Ok),
                         ("information", QMessageBox.StandardButton.Ok), ("question", QMessageBox.StandardButton.No)):
        monkeypatch.setattr(QMessageBox, kind, staticmethod(record(kind, answer)))
    yield shown
    unexpected = shown[shown.expected:] if isinstance(shown.expected, int) else []
    assert not unexpected, f"unexpected message boxes: {unexpected}"


@pytest.fixture
def demo(request, tmp_path):
    from sessionscope import open_store
    from sessionscope.store.demo import build_demo

    if getattr(request, "param", "sqlite") == "postgresql":  # the window's own tests, on a team store
        store = open_store(request.getfixturevalue("postgres_server").fresh_database(migrated=True))
    else:
        store = open_store(tmp_path / "demo.db")
    ids = build_demo(store)
    yield store, ids
    store.close()


@pytest.fixture
def window(qtbot, demo):
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    make_app()
    QSettings().clear()  # each test starts from the defaults, whatever the tests before it chose
    QSettings().setValue("view/home_at_start", False)  # (the browser's tests; Home's own start on it)
    store, ids = demo
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.branch.sig_ready, timeout=10000):
        w.set_store(store)
    yield w
    w.close()  # as the user would: its closeEvent stops the watcher and any import
    _nothing_left_running(w, qtbot)


def _nothing_left_running(w, qtbot) -> None:
    """A closed window leaves no timer, no child process and no worker behind (each would outlive the
    test and fire into the next one)."""
    from PySide6.QtCore import QProcess, QTimer

    from sessionscope.gui.jobs.workers import wait_for_workers
    assert wait_for_workers(20000), "a worker was still running after the window closed"
    qtbot.waitUntil(lambda: all(p.state() == QProcess.ProcessState.NotRunning for p in w.findChildren(QProcess)),
                    timeout=10000)
    ours = [t for t in w.findChildren(QTimer) if type(t.parent()).__module__.startswith("sessionscope.gui.")]  # not Qt's own
    active = [f"{type(t.parent()).__name__}: every {t.interval()} ms" for t in ours if t.isActive()]
    assert not active, f"timers still running after the window closed: {active}"
