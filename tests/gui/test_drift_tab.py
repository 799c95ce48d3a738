"""File ▸ Import Problems… has a second tab: what the readers met and did not understand, by tool and version."""

from __future__ import annotations

from sessionscope.sources.importing import import_paths
from tests.sources.codex_factory import Rollout


def test_the_formats_tab_lists_drift_by_tool_and_version(qtbot, store, tmp_path):
    from sessionscope.gui.dialogs.problems_dialog import ProblemsDialog

    r = Rollout("019b0000-0000-7000-8000-0000000000e1")
    r.lines[0]["payload"]["cli_version"] = "0.999.0"
    r.turn("Ship it", "Shipped")
    r.add("response_item", {"type": "hologram_call", "call_id": "h1"})
    import_paths(store, [r.write(tmp_path / "codex")])
    dialog = ProblemsDialog(store, [])
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.drift.topLevelItemCount() == 1, timeout=10000)
    row = dialog.drift.topLevelItem(0)
    assert [row.text(i) for i in range(5)] == ["Codex CLI", "0.999.0", "1", "1", "response_item/hologram_call"]
    assert row.text(5) == "session 019b0000-0000-7000-8000-0000000000e1"
    assert "1 shape a reader met and did not understand" in dialog.drift_summary.text()
    assert [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())] == ["Problems", "Formats Not Understood"]
