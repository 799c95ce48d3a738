"""Pausing Python's cycle collector around bulk work that builds many objects, and keeping
what is alive out of its sight while a long job runs beside the UI.

Walking a 200,000-event branch or laying out its tree creates hundreds of
thousands of tuples and dicts; CPython's collector then runs full passes over
every live object, each holding the GIL for 50-150 ms, and the UI thread of the
same process stalls for as long. These walks create no reference cycles, so
their garbage goes by reference counting alone; pausing the collector while they
run (counted, so overlapping walks on several threads nest) removes the stalls.

A window with a 200,000-event session open holds ~350,000 objects the collector tracks
(its reader's 200,000 cards, its tree's rows, the list's 20,000 sessions); while an import runs beside
it, every few list refreshes the heap has grown enough for a full pass, 200-300 ms
with the GIL held, on whichever thread allocated last. `freeze()` moves everything
alive when a job starts out of the collector's sight (gc.freeze) and `thaw()` gives it
back when the job ends (gc.unfreeze), so garbage among it is still collected then; the
passes during the job look only at what the job and the UI made since.
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


def keep() -> None:
    """What is alive now lives on (a big session's tree or cards, just made): moved out of the collector's sight, so
    its next full pass does not walk them, holding the GIL on whichever thread allocates next (95 ms after a
    200,000-node tree arrived, a stall of the reader scrolling). Cyclic garbage among it waits for the next `thaw`
    (an import's end); what reference counting frees goes as ever."""
    gc.freeze()


_frozen = 0


def freeze() -> None:
    """What is alive now is not looked at by the collector until `thaw` (counted: nested jobs)."""
    global _frozen
    with _lock:
        if _frozen == 0:
            gc.freeze()
        _frozen += 1


def refreeze() -> None:
    """While frozen, what became alive since is put out of sight too (gc.freeze moves whole lists: cheap): a long
    job's beside-work (a list of 20,000 sessions read again every few seconds) never piles up for a full pass."""
    with _lock:
        if _frozen:
            gc.freeze()


def thaw() -> None:
    """The last `thaw` of nested `freeze`s gives the collector back everything frozen."""
    global _frozen
    with _lock:
        _frozen -= 1
        if _frozen == 0:
            gc.unfreeze()


LET_GO_SLICE = 2048  # items freed between two chances for another thread to take the GIL: ~0.3 ms of a tree's rows


def let_go(*held: list | dict | set) -> None:
    """Empty these containers, lists a slice at a time. A walk's or a layout's structures of 200,000 items, freed as
    its function returns, are freed by reference counting inside one C call each, holding the GIL: 20-50 ms of the
    UI thread's while the window's reader scrolled beside a 200,000-event tree being laid out. A list (the rows, the
    last to hold them) is emptied from Python a slice at a time, and the interpreter may hand the GIL over between
    slices; a dict or a set is cleared at once, so name it before the lists holding what it refers to (clearing it
    then frees none of them: a few ms). The caller must not use them after."""
    for items in held:
        if isinstance(items, list):
            while items:
                del items[-LET_GO_SLICE:]
        else:
            items.clear()
