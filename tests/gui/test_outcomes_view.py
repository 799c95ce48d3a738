"""View ▸ Tool Outcomes (#37 item 1): the table of a store's tool calls by tool (failures, their rate as a bar,
times), grouped another way when asked, and a failed call opened where it happened."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt

pytestmark = pytest.mark.sqlite_only


@pytest.fixture(autouse=True)
def outcomes_defaults():
    QSettings().remove("outcomes")
    yield
    QSettings().remove("outcomes")


def _calls(store):
    import time
    sid = store.open_session(title="tests failing", model="m-1").id
    t = time.time() - 3600
    for i, (name, output, error) in enumerate([("Bash", "Exit code 1", False), ("Bash", "ok", False),
                                               ("Read", "text", False), ("Bash", "boom", True)]):
        store.append(sid, "tool_call", role="assistant", text=f'{name} {{"n": {i}}}', ts=t + 10 * i,
                     payload={"id": f"c{i}", "name": name, "input": {"n": i}})
        store.append(sid, "tool_result", role="tool", text=output, ts=t + 10 * i + 2,
                     payload={"tool_use_id": f"c{i}", "output": output, "is_error": error})
    return sid


def test_the_outcomes_view_lists_tools_and_opens_a_failure(window, qtbot, store):
    sid = _calls(store)
    window.set_store(store, first_run=False)
    window.qactions["view.outcomes"].trigger()
    v = window.openers.outcomes_view
    qtbot.waitUntil(lambda: v.table.rowCount() == 2, timeout=10000)
    rows = {v.table.item(r, 0).text(): r for r in range(2)}
    bash = rows["Bash"]
    assert [v.table.item(bash, c).text() for c in (1, 2, 3, 4)] == ["3", "2", "66.7%", "2"]
    assert v.table.item(bash, 7).text() == "2.2 s"  # every call took 2 s (within the buckets' 19 %)
    assert "6 calls" not in v.summary.text() and "<b>4</b> calls" in v.summary.text()
    v.table.selectRow(bash)
    qtbot.waitUntil(lambda: v.failures.count() == 2, timeout=10000)
    # each failure says what was called, as the reader's card does, and what the tool answered: not its JSON input
    listed = [v.failures.item(i).text() for i in range(2)]
    assert listed[0].startswith("Bash") and "boom" in listed[0] and "Exit code 1" in listed[1]
    assert not any('{"n"' in text for text in listed)
    assert "tests failing" in v.failures.item(0).toolTip()
    first = v.failures.item(0).data(Qt.ItemDataRole.UserRole)
    v.failures.itemActivated.emit(v.failures.item(0))
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == sid, timeout=10000)
    qtbot.waitUntil(lambda: window.branch.detail.current_event is not None
                    and window.branch.detail.current_event.id == first[1], timeout=10000)
    v.group.setCurrentIndex(1)  # by model
    qtbot.waitUntil(lambda: v.table.rowCount() == 1 and v.table.item(0, 0).text() == "m-1", timeout=10000)
    assert QSettings().value("outcomes/group") == "by model"
    v.close()
