"""`sessionscope open ID`, `sessionscope ID` and `sessionscope://` links (#64 item 4): the open window is brought to
the session by a real `sessionscope` process; with no window open, one starts on it; a link clicked in the window
opens its session there; what reaches the window from outside is checked, and a session its store lacks is said."""

from __future__ import annotations

import concurrent.futures
import json
import os
import socket
import subprocess
import sys

import pytest

from sessionscope.cli import handoff as opening
from sessionscope.history.addresses import Target, link, target
from tests.conftest import REPO


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    """A runtime folder of this test's own: the window listens there, and only there."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


def _cli(store, *args, env=None):
    """`sessionscope ARGS` as its own process (what a terminal or the desktop's handler of the scheme runs)."""
    return subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", store.url.removeprefix("sqlite:///"),
                           *args], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def _shown(window, session_id) -> bool:
    return window.session is not None and window.session.id == session_id


def test_open_brings_the_open_window_to_the_session(window, demo, qtbot, runtime):
    from sessionscope.gui.window import open_requests
    store, ids = demo
    requests = open_requests.serve(window)
    assert requests.where == opening.address() and requests.where.startswith(str(runtime))
    other = next(i for i in ids if not _shown(window, i))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # (the window answers while the process waits)
        ran = pool.submit(_cli, store, "--json", "open", other[:8])
        qtbot.waitUntil(ran.done, timeout=60000)
    done = ran.result()
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    from tests.test_cli_json import _check
    _check("open", said)
    assert said == {"session": other, "event": None, "window": "brought to it"}
    qtbot.waitUntil(lambda: _shown(window, other), timeout=10000)

    # `sessionscope ID` and a link at an event, as the desktop hands it over
    first, event = ids[0], store.branch(ids[0])[1].id
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        ran = pool.submit(_cli, store, link(first, event))
        qtbot.waitUntil(ran.done, timeout=60000)
    assert ran.result().returncode == 0, ran.result().stderr
    qtbot.waitUntil(lambda: _shown(window, first) and window.branch.timeline_model.event_at(
        window.branch.timeline.currentIndex().row()) is not None and window.branch.timeline_model.event_at(
        window.branch.timeline.currentIndex().row()).id == event, timeout=10000)

    # a session this window's store lacks (another store's): said, nothing else changes
    requests.sig_open.emit(Target("f" * 36))
    qtbot.waitUntil(lambda: "No session ffffffff" in window.statusBar().currentMessage(), timeout=10000)
    assert _shown(window, first)


def test_what_reaches_the_window_from_outside_is_checked(window, qtbot, runtime):
    """The socket is the user's own (its folder 0700); what comes through it is one bounded line of ids."""
    from sessionscope.gui.window import open_requests
    requests = open_requests.serve(window)
    assert os.stat(runtime / "sessionscope").st_mode & 0o777 == 0o700
    before = window.session.id
    for junk in (b"not json\n", b'{"open": "../../etc/passwd"}\n', b'{"open": "a\\u0000b"}\n', b"x" * 10_000,
                 b'{"open": "ok-id", "event": {"$gt": ""}}\n'):
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            answer = pool.submit(_ask, requests.where, junk)
            qtbot.waitUntil(answer.done, timeout=10000)
        assert answer.result() in (b"no\n", b""), junk
    assert window.session.id == before
    assert opening.request_from(b'{"open": "3f2a9c1e", "event": null}') == Target("3f2a9c1e")
    assert target("sessionscope://session/..%2F..%2Fx") is None and target("sessionscope://evil/x") is None


def _ask(where: str, data: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(where)
        s.sendall(data)
        try:
            return s.recv(3)
        except (ConnectionResetError, TimeoutError):
            return b""


def test_without_a_window_open_starts_one_on_the_session(demo, qtbot, qapp, runtime, tmp_path, monkeypatch):
    """In this process, as `sessionscope open ID` runs it: no window answers, so the window starts, on that session.
    (The app's event loop is this test's: a second QApplication.exec in one process leaves Qt's loops quitting.)"""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from sessionscope.cli.main import main
    from sessionscope.gui.window import app
    from sessionscope.gui.window.main_window import MainWindow
    store, ids = demo
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # (the first run's look finds no agent's files)
    monkeypatch.setattr(app, "_quit_on_ctrl_c", lambda *_: None)  # (a terminal's Ctrl+C: not this test's)
    QSettings().clear()
    wanted = ids[-1]

    def windows() -> list[MainWindow]:
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]

    def run_until_shown() -> int:
        qtbot.waitUntil(lambda: bool(windows()) and _shown(windows()[0], wanted), timeout=30000)
        w = windows()[0]
        w._quitting = True  # (closed as File ▸ Quit closes it)
        w.close()
        w.deleteLater()
        return 0
    monkeypatch.setattr(qapp, "exec", run_until_shown)
    assert main(["--store", store.url.removeprefix("sqlite:///"), "open", wanted[:10]]) == 0


def test_a_sessionscope_link_clicked_in_the_window_opens_its_session(window, demo, qtbot, runtime):
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    from sessionscope.gui.window import open_requests
    _store, ids = demo
    open_requests.serve(window)
    other = next(i for i in ids if not _shown(window, i))
    QDesktopServices.openUrl(QUrl(link(other)))  # what the reader does with a link in a note or a message
    qtbot.waitUntil(lambda: _shown(window, other), timeout=10000)
