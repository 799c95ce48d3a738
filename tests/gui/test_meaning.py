"""Search by meaning in the window (#34): turned on in Settings, the texts are embedded in the background (a child
process, progress and Stop in the status bar), Search Everything marks what meaning found, and Session ▸ Find
Sessions Like This lists the nearest sessions. A real model2vec model (tiny, tests/semantic_model.py)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

pytest.importorskip("model2vec")

from sessionscope import ops  # noqa: E402
from sessionscope.gui.dialogs.settings_dialog import SettingsDialog  # noqa: E402
from sessionscope.recall import semantic
from tests.semantic_model import build  # noqa: E402


@pytest.fixture
def model(tmp_path):
    return str(build(tmp_path / "model"))


def _topic_sessions(store):
    a = store.open_session(title="lookups")
    store.append(a.id, "message", role="user", text="add an lru cache to the lookups")
    b = store.open_session(title="parser speed")
    store.append(b.id, "message", role="user", text="memoize the parser results")
    c = store.open_session(title="schema")
    store.append(c.id, "message", role="user", text="the postgres migration is failing")
    return a, b, c


def test_turned_on_in_settings_it_embeds_in_the_background_and_search_finds_by_meaning(window, qtbot, model,
                                                                                        monkeypatch, dialogs):
    store = window.store
    a, b, _ = _topic_sessions(store)
    seen = []

    def run(dialog):
        seen.append(dialog)
        qtbot.waitUntil(dialog.ok.isEnabled, timeout=10000)
        assert "not fetched yet" not in dialog.meaning_status.text() and "; off" in dialog.meaning_status.text()
        dialog.meaning_on.setChecked(True)
        dialog.meaning_model.setText(model)
        dialog.accept()
        qtbot.waitUntil(lambda: dialog.result() == QDialog.DialogCode.Accepted, timeout=10000)
        return dialog.result()
    monkeypatch.setattr(SettingsDialog, "exec", run)
    with qtbot.waitSignal(window.embeds.sig_done, timeout=60000) as done:
        window.qactions["app.settings"].trigger()
    assert done.args[0] > 0 and semantic.status(store).pending == 0
    assert semantic.config_of(store).enabled and store.audit_log(limit=1)[0]["action"] == "semantic.settings"
    qtbot.waitUntil(lambda: "texts embedded" in window.statusBar().currentMessage(), timeout=5000)
    assert not window.embeds.bar.isVisible()

    from sessionscope.gui.dialogs.search_dialog import SearchDialog
    search = SearchDialog(store, window)
    qtbot.addWidget(search)
    search.run("memoization")
    qtbot.waitUntil(lambda: "match" in search.status.text(), timeout=10000)
    found = [search.results.topLevelItem(i) for i in range(search.results.topLevelItemCount())]
    assert {f.text(0) for f in found} >= {"lookups", "parser speed"}
    assert all(f.child(0).text(0).startswith("≈ ") for f in found if f.text(0) in ("lookups", "parser speed"))

    # another model makes every vector again: asked first (the test answers No, and nothing changes)
    def change(dialog):
        qtbot.waitUntil(dialog.ok.isEnabled, timeout=10000)
        assert "to do" not in dialog.meaning_status.text() and dialog.meaning_on.isChecked()
        dialog.meaning_model.setText("someone/another-model")
        dialog.accept()
        return QDialog.DialogCode.Rejected
    monkeypatch.setattr(SettingsDialog, "exec", change)
    dialogs.expected = 1
    window.qactions["app.settings"].trigger()
    assert dialogs[0][0] == "question" and "dropped" in dialogs[0][1]
    assert semantic.config_of(store).model == model and semantic.status(store).embedded > 0


def test_sessions_like_this_one(window, qtbot, model):
    from sessionscope.gui.dialogs.similar_dialog import SimilarDialog
    store = window.store
    a, b, c = _topic_sessions(store)
    off = SimilarDialog(store, store.session(a.id), window)
    qtbot.addWidget(off)
    qtbot.waitUntil(lambda: "is off" in off.status.text(), timeout=10000)
    assert not off.settings_button.isHidden()

    ops.set_semantic(store, semantic.Config(enabled=True, model=model))
    ops.embed(store)
    window.open_session(a.id)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == a.id, timeout=10000)
    window.qactions["session.similar"].trigger()
    dialog = window.openers.similar_dialog
    qtbot.waitUntil(lambda: dialog.results.topLevelItemCount() > 0, timeout=10000)
    first = dialog.results.topLevelItem(0)
    assert first.text(0) == "parser speed" and first.text(1).endswith("%")
    dialog.results.itemActivated.emit(first, 0)
    qtbot.waitUntil(lambda: window.session.id == b.id, timeout=10000)
    dialog.close()


def test_stop_keeps_what_was_done_and_no_run_starts_by_itself(window, qtbot, model):
    store = window.store
    _topic_sessions(store)
    ops.set_semantic(store, semantic.Config(enabled=True, model=model))
    window.embeds.maybe_start(asked=True)
    qtbot.waitUntil(lambda: window.embeds.running, timeout=10000)
    assert window.embeds.stop_button.isVisible()
    window.embeds.stop()
    assert not window.embeds.running and window.embeds.stopped
    qtbot.waitUntil(lambda: "stopped" in window.statusBar().currentMessage(), timeout=5000)
    window.embeds.maybe_start()  # a quiet rescan's: not after a Stop
    qtbot.wait(300)
    assert not window.embeds.running
    with qtbot.waitSignal(window.embeds.sig_done, timeout=60000):
        window.embeds.maybe_start(asked=True)  # the user's next import, or Settings
    assert semantic.status(store).pending == 0


def test_a_rescan_reported_after_the_window_closed_starts_nothing(window, qtbot):
    """A watcher's last rescan can report after closeEvent stopped everything (CI saw the 30 s timer left
    running): the closed window's job takes no new run."""
    window.close()
    window.embeds.soon()  # what the import's sig_changes calls
    assert not window.embeds.later.isActive() and window.embeds.store is None
