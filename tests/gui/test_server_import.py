"""File ▸ Import from a Database Server (#38 item 5): an address is asked for (never with a password), imported in
the import's child process like a file, and the threads it holds are listed."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QInputDialog

pytest.importorskip("langgraph.checkpoint.postgres")

from tests.sources.test_server_databases import _address, _run_on  # noqa: E402


def test_a_database_server_is_imported_by_its_address(window, qtbot, postgres_server, monkeypatch, dialogs):
    address = _address(postgres_server)
    _app, cm, _config = _run_on(address)
    cm.__exit__(None, None, None)

    with_password = address.replace("@", ":secret@", 1)
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: (with_password, True)))
    dialogs.expected = 1
    window.qactions["app.import_database"].trigger()
    assert "leave the password out" in dialogs[0][1] and not window.imports.busy

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: (address, True)))
    with qtbot.waitSignal(window.imports.sig_finished, timeout=60000) as done:
        window.qactions["app.import_database"].trigger()
    report = done.args[0]
    assert len(report.sessions) == 1 and not report.problems, report.problems
    (sid,) = report.sessions
    qtbot.waitUntil(lambda: window.sessions.model.row_of(sid) >= 0, timeout=10000)
    assert window.store.session(sid).title == "what is in a.txt?"
