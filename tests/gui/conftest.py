"""GUI fixtures: a real window over a real SQLite store; no thread may outlive its test."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QThreadPool  # noqa: E402


@pytest.fixture(autouse=True)
def no_leftover_threads(qapp):
    yield
    pool = QThreadPool.globalInstance()
    assert pool.waitForDone(20000), "a worker thread was still running after the test"
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
def demo(tmp_path):
    from model import open_store
    from model.demo import build_demo

    store = open_store(tmp_path / "demo.db")
    ids = build_demo(store)
    yield store, ids
    store.close()


@pytest.fixture
def window(qtbot, demo):
    from gui.app import make_app
    from gui.main_window import MainWindow

    make_app()
    store, ids = demo
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignal(w.sig_timeline_ready, timeout=10000):
        w.set_store(store)
    yield w
    w.watcher.stop()
    w.close()
