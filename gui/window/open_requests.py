"""The open window takes `sessionscope open ID` (and `sessionscope://` links) from other processes of the user's.

It listens on the address sessionscope.cli.opening names (a socket in a folder of the user's alone, a named pipe on
Windows) with Qt's QLocalServer: event-driven, nothing runs at rest. A second window started while one listens
leaves the address to the first. A request is one line, read to a bound and checked by the model's
`request_from`; a session it names that the store does not hold is said in the status bar, nothing more.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, QTimer, QUrl, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from sessionscope.cli.handoff import MOST_BYTES, address, request_from
from sessionscope.history.addresses import Target

QUIET_MS = 2000  # a client that sends nothing whole in this long is dropped


class OpenRequests(QObject):
    """Listens while the window lives; `sig_open(Target)` for each request read."""

    sig_open = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._take)
        self.where = ""

    def listen(self) -> bool:
        """Start listening, unless another window already does (it keeps the address). False when not listening."""
        try:
            where = address()
        except OSError:
            return False
        probe = QLocalSocket()
        probe.connectToServer(where)
        if probe.waitForConnected(200):  # a window answers there: it is the one `open` reaches
            probe.abort()
            return False
        if sys.platform != "win32":
            QLocalServer.removeServer(where)  # a socket left by a window that crashed
        if not self.server.listen(where):
            return False
        self.where = where
        return True

    def close(self) -> None:
        if self.server.isListening():
            self.server.close()

    def _take(self) -> None:
        while (conn := self.server.nextPendingConnection()) is not None:
            buffer = bytearray()
            timer = QTimer(conn, singleShot=True, interval=QUIET_MS)
            timer.timeout.connect(conn.abort)
            conn.readyRead.connect(lambda c=conn, b=buffer: self._read(c, b))
            conn.disconnected.connect(conn.deleteLater)
            timer.start()

    def _read(self, conn: QLocalSocket, buffer: bytearray) -> None:
        buffer += bytes(conn.read(MOST_BYTES + 1 - len(buffer)).data())
        if b"\n" not in buffer and len(buffer) <= MOST_BYTES:
            return  # more to come
        found: Target | None = request_from(bytes(buffer).split(b"\n", 1)[0])
        conn.write(b"ok\n" if found is not None else b"no\n")
        conn.flush()
        conn.disconnectFromServer()
        if found is not None:
            self.sig_open.emit(found)

    @Slot(QUrl)  # (QDesktopServices calls it by name, as a slot)
    def open_url(self, url: QUrl) -> None:
        """A `sessionscope://` link clicked in the window itself (QDesktopServices hands its scheme here)."""
        from sessionscope.history.addresses import target
        found = target(url.toString())
        if found is not None:
            self.sig_open.emit(found)


def serve(window) -> OpenRequests:
    """The window takes `open` requests and its own `sessionscope://` links from now on."""
    from PySide6.QtGui import QDesktopServices

    from sessionscope.history.addresses import SCHEME
    requests = OpenRequests(window)
    requests.sig_open.connect(lambda found: show(window, found))
    requests.listen()
    QDesktopServices.setUrlHandler(SCHEME, requests, "open_url")  # type: ignore[arg-type]  # (the stub says bytes; PySide takes str)
    window.destroyed.connect(lambda: QDesktopServices.unsetUrlHandler(SCHEME))
    return requests


def show(window, found: Target) -> None:
    """The window raised, on the session (at its event); a session its store does not hold is said."""
    from sessionscope.gui.jobs.workers import run_task
    window.bring_forward()
    store = window.store
    if store is None:  # the store is still opening: shown once it is (app.main)
        window.pending_open = found
        return

    def missing(_exc) -> None:
        window.statusBar().showMessage(f"No session {found.session[:12]} in this store", 8000)
    run_task(lambda: store.session(found.session), lambda s: window.open_session(s.id, found.event), missing,
             owner=window)
