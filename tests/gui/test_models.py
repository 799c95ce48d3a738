"""Every custom Qt model passes pytest-qt's qtmodeltester on real data."""

from __future__ import annotations

from gui.session_model import SessionTableModel
from gui.timeline_model import PAGE, TimelineModel
from gui.tree_view import BranchTreeModel


def test_session_model(qtbot, qtmodeltester, demo):
    store, ids = demo
    model = SessionTableModel()
    with qtbot.waitSignal(model.sig_loaded, timeout=10000):
        model.set_store(store)
    assert model.rowCount() == 6  # the archived one is hidden
    qtmodeltester.check(model)
    with qtbot.waitSignal(model.sig_loaded, timeout=10000):
        model.sort(3)  # status, in SQL
    assert [s.status for s in model.rows] == sorted(s.status for s in model.rows)
    with qtbot.waitSignal(model.sig_loaded, timeout=10000):
        model.set_filters(include_archived=True, text="spike")
    assert [s.title for s in model.rows] == ["Old spike: GraphQL gateway"]
    qtmodeltester.check(model)


def test_timeline_model_pages_lazily(qtbot, qtmodeltester, store):
    s = store.open_session()
    for i in range(PAGE * 2 + 10):
        store.append(s.id, "message", role="user" if i % 2 == 0 else "assistant", text=f"line {i}")
    ids = store.branch_ids(s.id)
    model = TimelineModel()
    model.show_ids(store, ids)
    assert model.rowCount() == len(ids) and model.pages == {}
    assert model.data(model.index(PAGE + 5, 3)) == "…"  # asked for, not yet here
    with qtbot.waitSignal(model.sig_page_loaded, timeout=10000):
        pass
    assert model.data(model.index(PAGE + 5, 3)) == f"line {PAGE + 5}"
    assert list(model.pages) == [1]
    model.load_all_pages_blocking()
    qtmodeltester.check(model)
    assert model.find_next(0, lambda e: e.text == "line 300") == 300


def test_branch_tree_model(qtmodeltester, demo):
    store, ids = demo
    model = BranchTreeModel()
    model.set_layout(store.tree(ids[0]))
    assert model.rowCount() >= 5
    qtmodeltester.check(model)
