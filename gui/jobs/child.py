"""How the window starts one of its worker processes (an import, search by meaning's job): `python -m MODULE` in
a Python installation; in the desktop bundle, whose executable is no Python, the bundle itself with
`--sessionscope-worker MODULE` (packaging/launch.py runs it)."""

from __future__ import annotations

import sys

WORKER_FLAG = "--sessionscope-worker"
WORKERS = ("sessionscope.gui.jobs.import_worker", "sessionscope.gui.jobs.embed_worker", "sessionscope.gui.jobs.sync_worker")


def command(module: str, *args: str) -> tuple[str, list[str]]:
    """The program and arguments that run `module`'s main(args) in a process of its own."""
    assert module in WORKERS, module
    if getattr(sys, "frozen", False):  # PyInstaller's bundle
        return sys.executable, [WORKER_FLAG, module, *args]
    return sys.executable, ["-m", module, *args]


def start(parent, module: str, *args: str, on_message, on_finished):
    """Start the worker `module` (its stdout: one JSON object a line) as a QProcess child of `parent`: each line
    parsed goes to `on_message(dict)`, then the exit code to `on_finished(code)`, after the last line."""
    import json
    from pathlib import Path

    from PySide6.QtCore import QProcess

    process = QProcess(parent)
    program, argv = command(module, *args)
    process.setProgram(program)
    process.setArguments(argv)
    process.setWorkingDirectory(str(Path(__file__).resolve().parents[2]))
    pending = [b""]

    def read() -> None:
        pending[0] += bytes(process.readAllStandardOutput())
        *lines, pending[0] = pending[0].split(b"\n")
        for line in lines:
            try:
                msg = json.loads(line)
            except ValueError:  # not ours (a library's stray print): skipped
                continue
            if isinstance(msg, dict):
                on_message(msg)
    process.readyReadStandardOutput.connect(read)
    process.finished.connect(lambda code, _status: (read(), on_finished(code)))
    process.start()
    return process
