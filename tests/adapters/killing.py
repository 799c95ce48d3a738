"""Killing an agent's process at a chosen moment, as a crash would (the adapters' kill -9 tests)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def kill_when_flagged(script: str, *args, flag: Path, what: str) -> None:
    """Run `script` (python -c) with `args` and the repository importable; once it creates `flag`, SIGKILL it."""
    child = subprocess.Popen([sys.executable, "-c", script, *map(str, args)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 120
    while not flag.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert flag.exists(), f"the {what} never got there"
    child.send_signal(signal.SIGKILL)
    child.wait()
