"""How the window starts one of its worker processes (an import, search by meaning's job): `python -m MODULE` in
a Python installation; in the desktop bundle, whose executable is no Python, the bundle itself with
`--sessionscope-worker MODULE` (packaging/launch.py runs it)."""

from __future__ import annotations

import sys

WORKER_FLAG = "--sessionscope-worker"
WORKERS = ("sessionscope.gui.import_worker", "sessionscope.gui.embed_worker")


def command(module: str, *args: str) -> tuple[str, list[str]]:
    """The program and arguments that run `module`'s main(args) in a process of its own."""
    assert module in WORKERS, module
    if getattr(sys, "frozen", False):  # PyInstaller's bundle
        return sys.executable, [WORKER_FLAG, module, *args]
    return sys.executable, ["-m", module, *args]
