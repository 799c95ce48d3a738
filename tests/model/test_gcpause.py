"""The collector paused around bulk work, and what the window keeps out of its sight (sessionscope.store.gcpause)."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap


def _out_of_sight_after_a_pause(keep_after: bool) -> int:
    """In a fresh process: objects a second thread makes and keeps while the first holds the collector paused; how
    many are out of the collector's sight once the pause ends (else its youngest generation holds them all, and the
    next pass there walks them, on whichever thread allocates next)."""
    code = textwrap.dedent(f"""
        import gc, threading
        from sessionscope.store import gcpause
        if {keep_after}:
            gcpause.keep_after_pauses()
        kept, made, go = [], threading.Event(), threading.Event()
        def other():  # a worker laying out a tree beside the pause
            go.wait()
            kept.extend([i, str(i)] for i in range(100_000))
            made.set()
        threading.Thread(target=other).start()
        with gcpause.paused():
            go.set()
            made.wait(30)
        print(gc.get_freeze_count())
    """)
    return int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_what_a_thread_made_during_a_pause_is_not_left_to_one_long_pass():
    assert _out_of_sight_after_a_pause(keep_after=False) == 0
    assert _out_of_sight_after_a_pause(keep_after=True) >= 100_000  # (the lists; ints and strings are not tracked)


def test_a_pause_gives_the_collector_back_as_it_found_it():
    from sessionscope.store import gcpause
    assert gc.isenabled()
    with gcpause.paused():
        with gcpause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gcpause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
