"""The search's words after a user's import in the window (#64): caught up on a worker, not at the next `*part*` or
typo search (sessionscope.recall.terms.catch_up)."""

from __future__ import annotations

import pytest


@pytest.mark.sqlite_only  # (PostgreSQL's trigram index is over the table itself: nothing to catch up)
def test_the_words_of_what_a_users_import_added_are_kept_on_a_worker_after_it(window, qtbot, tmp_path):
    """A store that keeps the words `*part*` and typo searches ask has them caught up after the import, not at the
    next such search (Store.catch_up_words)."""
    import shutil
    from pathlib import Path

    from sessionscope.recall import terms
    store = window.store
    store.search("*ssion*")  # the store keeps words from now on
    folder = tmp_path / ".junie" / "sessions"
    shutil.copytree(Path(__file__).parents[1] / "sources" / "public" / "junie" / "sessions", folder)

    def kept() -> tuple[int, int]:
        with store.reader() as conn:
            at = conn.exec_driver_sql("SELECT value FROM setting WHERE key = ?", (terms.TERMS_AT,)).scalar()
            return int(at or 0), conn.exec_driver_sql("SELECT max(pk) FROM event").scalar()
    with qtbot.waitSignal(window.imports.sig_finished, timeout=20000):
        assert window.imports.start(store, [folder])
    qtbot.waitUntil(lambda: kept()[0] == kept()[1], timeout=10000)
    with store.reader() as conn:
        assert conn.exec_driver_sql("SELECT 1 FROM search_term WHERE term = 'marmutapp'").first() is not None
