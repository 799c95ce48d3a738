"""Opening a store for the window, on a worker (SQLAlchemy loads there, after the first paint): the user's own, or
the demo's. Below the window and the app alike, which both open stores."""

from __future__ import annotations

from pathlib import Path


def open_demo_store():
    """The demo store in the user's data dir, built on first use (runs on a worker)."""
    import platformdirs

    from sessionscope.gui.window.lazy import load_now
    from sessionscope.store.demo import demo_store
    store = demo_store(Path(platformdirs.user_data_dir("sessionscope", appauthor=False)) / "demo")
    load_now()
    return store


def open_user_store(url: str | None = None):
    """The user's own store (the default one when `url` is None), leaving the demo (on a worker)."""
    return _open_store(url)


def _open_store(url):
    from sessionscope import open_store  # imported here: sqlmodel costs ~0.6 s, after the first paint
    from sessionscope.gui.window.lazy import load_now
    store = open_store(url)
    load_now()  # here, not at a first click on the UI thread
    return store
