"""Session ▸ Summarize… (#33) from the window, against the loopback API: the dialog shows exactly what is sent
(redacted), nothing is sent on Cancel, and on Send the reader shows the generated note under its model's name."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

pytest.importorskip("anthropic")

from sessionscope.gui.dialogs.summarize_dialog import SummarizeDialog  # noqa: E402
from tests.managed.api_server import KEY, Workspace, serve  # noqa: E402


def test_summarize_shows_what_is_sent_and_keeps_a_generated_note(window, qtbot, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    store, s = window.store, window.session
    store.append(s.id, "message", role="user", text="the token is ghp_0123456789abcdefghij0123456789abcdef")
    ws, seen = Workspace(), []
    with serve(ws) as url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setattr(SummarizeDialog, "exec", lambda d: seen.append(d) or QDialog.DialogCode.Rejected)
        window.qactions["session.summarize"].trigger()
        qtbot.waitUntil(lambda: bool(seen), timeout=10000)
        shown = seen[0].text.toPlainText()
        assert "ghp_0123456789" not in shown and "[REDACTED" in shown and ws.messages == []  # Cancel: nothing sent
        monkeypatch.setattr(SummarizeDialog, "exec", lambda d: seen.append(d) or QDialog.DialogCode.Accepted)
        with qtbot.waitSignal(window.actions_.sig_changes, timeout=20000):
            window.qactions["session.summarize"].trigger()
        assert ws.messages[0]["messages"][0]["content"] == seen[1].text.toPlainText() == shown
    note = store.notes(s.id)[0]
    assert note.generated_by == "claude-haiku-4-5" and store.session(s.id).title == "A loopback title"
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Summarized 1 session", timeout=5000)
    first = window.branch.timeline_model.all_ids[0]
    qtbot.waitUntil(lambda: [n.generated_by for n in window.branch.timeline_model.notes.get(first, ())]
                    == ["claude-haiku-4-5"], timeout=10000)
