"""The window's workers: a task the user waits for (urgent) goes first, and background passes give way to it."""

from __future__ import annotations

import threading
import time

from sessionscope.gui.jobs import workers


def test_background_work_gives_way_to_what_the_user_waits_for(qtbot):
    from sessionscope.gui.window.app import make_app
    make_app()
    started, release = threading.Event(), threading.Event()
    answers: list = []

    def urgent_read():  # a session's rows, read while the user waits
        started.set()
        release.wait(5)
        return "rows"

    def background_pass():  # the live pass: it waits while the rows are read
        started.wait(5)
        t = time.monotonic()
        workers.yield_to_urgent()
        return time.monotonic() - t

    workers.run_task(urgent_read, answers.append, urgent=True)
    workers.run_task(background_pass, answers.append)
    assert started.wait(5)
    time.sleep(0.05)
    assert not workers.quiet_for(0.0)  # the rows are being read
    time.sleep(0.25)
    release.set()
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=5000)
    assert answers[0] == "rows" and answers[1] >= 0.2  # the pass waited for them
    assert not workers.quiet_for(5.0) and workers.quiet_for(0.0)  # just now: not yet a pause of 5 s
    time.sleep(0.2)
    assert workers.quiet_for(0.15)


def test_a_background_pass_waits_no_longer_than_it_says(qtbot):
    from sessionscope.gui.window.app import make_app
    make_app()
    release, answers = threading.Event(), []
    workers.run_task(lambda: release.wait(5), answers.append, urgent=True)
    qtbot.waitUntil(lambda: not workers.quiet_for(0.0), timeout=5000)
    t = time.monotonic()
    workers.yield_to_urgent(most=0.2)  # (on this thread: the bound holds wherever it is called)
    assert 0.18 <= time.monotonic() - t < 1.0
    release.set()
    qtbot.waitUntil(lambda: len(answers) == 1, timeout=5000)
