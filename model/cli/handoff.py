"""How `sessionscope open` reaches a window already open: where the window listens, the one line it is sent, and
the window's check of what it reads (sessionscope.gui.window.open_requests). A leaf: the window imports it, and it
imports nothing of the command line."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from pathlib import Path

from sessionscope.history.addresses import ID, Target

MOST_BYTES = 4096  # one request: two ids fit many times over


def address() -> str:
    """Where the open window listens: a named pipe of the user's on Windows; elsewhere a socket in a folder of the
    user's alone (the runtime folder, which the system empties at logout)."""
    import getpass
    if sys.platform == "win32":
        return rf"\\.\pipe\sessionscope-window-{re.sub(r'[^A-Za-z0-9_-]', '_', getpass.getuser())}"
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = Path(base) / "sessionscope" if base and Path(base).is_dir() else \
        Path("/tmp") / f"sessionscope-{os.getuid()}"  # (a Unix socket's path must stay short: not the cache folder)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
        raise PermissionError(f"{folder} is not the user's own folder; no window is reached through it")
    return str(folder / "window")


def handoff(found: Target, timeout: float = 3.0) -> bool:
    """Ask an open window to show the session; False where none answers (then the caller starts one)."""
    line = (json.dumps({"open": found.session, "event": found.event}) + "\n").encode()
    try:
        where = address()
        if sys.platform == "win32":
            with open(where, "r+b", buffering=0) as pipe:
                pipe.write(line)
                return pipe.read(3) == b"ok\n"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(where)
            s.sendall(line)
            return s.recv(3) == b"ok\n"
    except OSError:  # no window listens (or a stale socket of one that crashed)
        return False


def request_from(data: bytes) -> Target | None:
    """The session a request names (the window's side): one JSON line, bounded, ids of our alphabet; else None."""
    if len(data) > MOST_BYTES:
        return None
    try:
        obj = json.loads(data.decode("utf-8").strip() or "null")
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("open"), str):
        return None
    event = obj.get("event")
    if event is not None and not (isinstance(event, str) and ID.fullmatch(event)):
        return None
    return Target(obj["open"], event) if ID.fullmatch(obj["open"]) else None
