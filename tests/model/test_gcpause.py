"""The collector paused around bulk work (sessionscope.store.gcpause)."""

from __future__ import annotations

import gc


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
