"""Pausing Python's cycle collector around bulk work that builds many objects.

Walking a 200,000-event branch or laying out its tree creates hundreds of
thousands of tuples and dicts; CPython's collector then runs full passes over
every live object, each holding the GIL for 50-150 ms, and the UI thread of the
same process stalls for as long. These walks create no reference cycles, so
their garbage goes by reference counting alone; pausing the collector while they
run (counted, so overlapping walks on several threads nest) removes the stalls.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_depth = 0
_was_enabled = True


@contextlib.contextmanager
def paused() -> Iterator[None]:
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
