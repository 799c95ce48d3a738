"""Compare two forks from where they part: the demo's fork from the list (two selected), from the fork
alone, from the tree; a Claude Code fork, which shares no event but copies its origin's lines."""

from __future__ import annotations

import copy
import uuid

from PySide6.QtCore import QItemSelectionModel

from tests.sources.claude_factory import Transcript


def _demo_pair(window):
    rows = window.sessions.model.rows
    main = next(r for r in rows if r.title == "Fix the flaky login test")
    fork = next(r for r in rows if r.forked_from_session == main.id)
    return main, fork


def _wait_compared(window, qtbot):
    qtbot.waitUntil(lambda: window.openers.compare_view is not None
                    and window.openers.compare_view.result is not None, timeout=10000)
    return window.openers.compare_view


def test_two_sessions_selected_compare_from_the_fork_point(window, qtbot):
    main, fork = _demo_pair(window)
    sm = window.sessions.view.selectionModel()
    flags = QItemSelectionModel.SelectionFlag
    sm.select(window.sessions.model.index(window.sessions.model.row_of(main.id), 0), flags.ClearAndSelect | flags.Rows)
    sm.select(window.sessions.model.index(window.sessions.model.row_of(fork.id), 0), flags.Select | flags.Rows)
    window.qactions["facts.compare"].trigger()  # Ctrl+D
    view = _wait_compared(window, qtbot)
    c = view.result
    ids = {c.a.session_id, c.b.session_id}
    assert ids == {main.id, fork.id}
    assert c.fork_point.text == "I'll make the fixture wait for the redirect."  # where the fork was made
    by_id = {c.a.session_id: c.a, c.b.session_id: c.b}
    assert by_id[main.id].files == ["tests/helpers.py"] and by_id[fork.id].files == []
    assert by_id[fork.id].outcome == "Retries would hide real failures; I would not recommend it."
    assert by_id[main.id].cost is not None and by_id[main.id].cost > 0
    assert "Decision" in view.facts.toPlainText() and "Files (1)" == view.tabs.tabText(2)
    facts = view.facts.toPlainText()  # a table in words, A beside B: not "− file:… write"
    assert "Fact" in facts and ("only in" in facts or "changed" in facts) and "file:" not in facts
    assert "parted after" in view.left.toPlainText() and "parted after" in view.right.toPlainText()
    assert "Retries would hide" in (view.left.toPlainText() + view.right.toPlainText())
    first = c.a.session_id
    view.swap()
    qtbot.waitUntil(lambda: view.result.a.session_id != first, timeout=10000)
    # Open B shows that session in the window
    from PySide6.QtWidgets import QPushButton
    view.findChild(QPushButton, "open-b").click()
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == view.result.b.session_id,
                    timeout=10000)
    view.close()


def test_a_fork_alone_compares_with_its_origin_and_the_tree_offers_it(window, qtbot):
    main, fork = _demo_pair(window)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(fork.id)
    window.qactions["facts.compare"].trigger()
    view = _wait_compared(window, qtbot)
    assert (view.result.a.session_id, view.result.b.session_id) == (main.id, fork.id)
    view.close()
    window.openers.compare_view = None
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(main.id)
    qtbot.waitUntil(lambda: window.branch.tree.tree_model.layout_ is not None and any(
        n.fork_session == fork.id for n in window.branch.tree.tree_model.layout_.nodes), timeout=10000)
    node = next(n for n in window.branch.tree.tree_model.layout_.nodes if n.fork_session == fork.id)
    window.branch.sig_fork_menu.emit(fork.id, window.mapToGlobal(window.rect().center()))  # a fork node's right-click
    action = next(a for a in window.tree_menu.actions() if a.objectName() == "tree.compare_fork")
    window.tree_menu.close()
    action.trigger()
    view = _wait_compared(window, qtbot)
    assert (view.result.a.session_id, view.result.b.session_id) == (main.id, node.fork_session)
    view.close()


def test_a_claude_code_fork_parts_where_its_copies_end(store, tmp_path):
    from sessionscope.history.compare import compare
    from sessionscope.sources.claude_code import import_paths

    origin = Transcript(cwd="/work/app")
    origin.user("Find the flaky test")
    origin.assistant("It races the cookie.")
    kept = origin.user("Fix it by waiting")
    origin.assistant("Fixed by waiting for the redirect.")
    edit = origin.assistant(tool=("Edit", {"file_path": "tests/conftest.py", "old_string": "a", "new_string": "b"}))
    origin.tool_result(edit, "ok")
    fork = Transcript(cwd="/work/app")
    for line in origin.lines[:3]:  # fork_session's copies: fresh uuids, forkedFrom naming the original
        c = copy.deepcopy(line)
        c.update(uuid=str(uuid.uuid4()), sessionId=fork.session_id, parentUuid=fork.last,
                 forkedFrom={"sessionId": origin.session_id, "messageUuid": line["uuid"]})
        fork.lines.append(c)
        fork.last = c["uuid"]
    fork.assistant("Retrying instead.")
    project = tmp_path / "projects" / "-work-app"
    origin.write(project)
    fork.write(project)
    import_paths(store, [project])
    c = compare(store, (origin.session_id, None), (fork.session_id, None))
    assert c.fork_point.id == kept["uuid"] and c.shared == 3
    assert [e.text for e in c.b.events] == ["Retrying instead."]
    assert c.a.files == ["tests/conftest.py"] and c.a.outcome == "Fixed by waiting for the redirect."
    assert c.b.outcome == "Retrying instead."
    reverse = compare(store, (fork.session_id, None), (origin.session_id, None))
    assert reverse.shared == 3 and reverse.fork_point.text == "Fix it by waiting"  # (the fork's copy of it)
    assert [e.text for e in reverse.a.events] == ["Retrying instead."]


def test_facts_are_named_in_words():
    from sessionscope.gui.views.facts_diff import fact_name, fact_value
    assert fact_name("file:/src/app.py") == "File /src/app.py" and fact_name("git_branch") == "Git branch"
    assert fact_name("pr:https://x/1") == "Pull request https://x/1" and fact_name("deploy_target") == "Deploy target"
    assert fact_value([{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}]) == \
        "2 todos, 1 done"
    assert fact_value("write") == "write" and len(fact_value("x" * 500)) == 90
