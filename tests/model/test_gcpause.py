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


def test_letting_go_of_a_big_list_hands_the_gil_over_between_slices():
    """Another thread runs while a 400,000-item list is emptied (it sees it part-way), as the UI thread must while a
    200,000-event tree's rows are freed on a worker; a dict and a set are emptied too."""
    import sys
    import threading

    from sessionscope.store import gcpause
    rows = [(str(i), [i]) for i in range(400_000)]
    by_id, seen_ids = {r[0]: r for r in rows}, {r[0] for r in rows}
    seen: set[int] = set()
    started = threading.Event()

    def work():
        started.set()
        gcpause.let_go(by_id, seen_ids, rows)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        while worker.is_alive():
            seen.add(len(rows))
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert rows == [] and by_id == {} and seen_ids == set()
    assert any(0 < n < 400_000 for n in seen), sorted(seen)[:5]
