"""Waiting for the timeline's pages as the window gets them: asked for by a painted row, read on a worker."""

from __future__ import annotations


def loaded(model, qtbot, *rows: int) -> None:
    """Ask for the pages of `rows` (as painting them does) and wait until their events are here."""
    for row in rows:
        model.data(model.index(row, 3))
    qtbot.waitUntil(lambda: all(model.event_at(r) is not None for r in rows), timeout=10000)
