"""Every custom Qt model passes pytest-qt's qtmodeltester on real data."""

from __future__ import annotations

import pytest

from sessionscope.gui.reader.timeline_model import PAGE, TimelineModel
from sessionscope.gui.reader.tree_view import BranchTreeModel
from sessionscope.gui.sessions.session_model import SessionTableModel
from tests.gui.pages import loaded


def test_session_model(qtbot, qtmodeltester, demo):
    from sessionscope.gui.sessions.session_model import COLUMNS
    store, ids = demo
    model = SessionTableModel()
    with qtbot.waitSignal(model.sig_loaded, timeout=10000):
        model.set_store(store)
    assert model.rowCount() == 6  # the archived one is hidden
    qtmodeltester.check(model)
    with qtbot.waitSignal(model.sig_loaded, timeout=10000):
        model.sort([c[0] for c in COLUMNS].index("status"))  # in SQL
    assert [s.status for s in model.rows] == sorted(s.status for s in model.rows)
    with qtbot.waitSignal(model.sig_loaded, timeout=10000):
        model.set_filters(include_archived=True, text="spike")
    assert [s.title for s in model.rows] == ["Old spike: GraphQL gateway"]
    qtmodeltester.check(model)


def test_session_model_answers_each_role_of_each_cell(qtbot, demo):
    """What a repaint asks of every visible cell (the roles as the view passes them, ints, and as code names them):
    each column its own text, the source's badge colours, numbers right-aligned, the rest nothing."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor

    from sessionscope.gui.sessions.session_model import COLUMNS, ago, badge, tokens_text
    store, _ids = demo
    model = SessionTableModel()
    with qtbot.waitSignal(model.sig_loaded, timeout=10000):
        model.set_store(store)
    R = Qt.ItemDataRole
    col = {key: i for i, (key, _t, _s) in enumerate(COLUMNS)}
    for row, s in enumerate(model.rows):
        def cell(key, role=R.DisplayRole, row=row):
            by_enum = model.index(row, col[key]).data(role)
            assert model.data(model.index(row, col[key]), int(role.value)) == by_enum
            return by_enum
        assert s.title and cell("title").endswith(s.title)
        assert (cell("events"), cell("updated"), cell("tokens"), cell("source")) == \
            (str(s.event_count), ago(s.updated_at), tokens_text(s.tokens_in + s.tokens_out), badge(s.source_kind)[0])
        assert cell("tags") == ", ".join(s.tags) and cell("tags", R.EditRole) == list(s.tags)
        assert cell("source", R.BackgroundRole) == QColor(badge(s.source_kind)[1])
        assert cell("source", R.ForegroundRole) == QColor("#ffffff")
        assert cell("events", R.TextAlignmentRole) == int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
        assert cell("title", R.TextAlignmentRole) is None and cell("title", R.BackgroundRole) is None
        assert cell("events", R.FontRole) is None and cell("events", R.SizeHintRole) is None
        assert cell("title", R.ToolTipRole).splitlines()[:2] == [s.title, s.id]
        assert cell("project", R.UserRole) is s


def test_timeline_model_pages_lazily(qtbot, qtmodeltester, store):
    s = store.open_session()
    for i in range(PAGE * 2 + 10):
        store.append(s.id, "message", role="user" if i % 2 == 0 else "assistant", text=f"line {i}")
    ids = store.branch_ids(s.id)
    model = TimelineModel()
    model.show_ids(store, ids)
    assert model.rowCount() == len(ids) and model.cache == {}
    assert model.data(model.index(PAGE + 5, 3)) == "…"  # asked for, not yet here
    with qtbot.waitSignal(model.sig_page_loaded, timeout=10000):
        pass
    assert model.data(model.index(PAGE + 5, 3)) == f"line {PAGE + 5}"
    assert len(model.cache) == PAGE and model.pending == set()  # that page only
    loaded(model, qtbot, *range(0, model.rowCount(), PAGE))
    qtmodeltester.check(model)
    found = []
    model.find_async(0, lambda e: e.text == "line 300", found.append)
    qtbot.waitUntil(lambda: bool(found), timeout=10000)
    assert found == [300]


def test_timeline_folds_tool_output_and_counts_turn_tokens(qtbot, qtmodeltester, demo):
    store, ids = demo
    outline = store.branch_outline(ids[0], include_subagents=True)
    model = TimelineModel()
    model.show_outline(store, outline.ids, outline.kinds, outline.turn_tokens, sidechain=outline.sidechain)
    calls = [i for i, k in enumerate(outline.kinds) if k == "tool_call"]
    results = [i for i, k in enumerate(outline.kinds) if k == "tool_result"]
    assert results and model.rowCount() == len(outline.ids) - len(results)  # folded by default
    loaded(model, qtbot, *range(0, model.rowCount(), PAGE))
    row = model.ids.index(outline.ids[calls[0]])
    assert model.data(model.index(row, 1)).startswith("▸ tool call")
    output = store.event(outline.ids[calls[0] + 1]).text.splitlines()[0]
    assert "→" in model.data(model.index(row, 3)) and output[:40] in model.data(model.index(row, 3))
    qtmodeltester.check(model)
    assert model.toggle(row)  # expand this pair
    assert model.ids[row + 1] == outline.ids[calls[0] + 1] and model.data(model.index(row, 1)).startswith("▾")
    qtmodeltester.check(model)
    assert model.toggle(row) and model.rowCount() == len(outline.ids) - len(results)
    hidden = outline.ids[results[-1]]
    assert model.row_of(hidden) == model.ids.index(hidden)  # jumping to a folded result unfolds it
    model.set_folded(False)
    assert model.rowCount() == len(outline.ids)
    # the turn's cost shows on its prompt: every token from that prompt to the next
    first_prompt = outline.ids[0]
    assert store.event(first_prompt).kind == "message" and store.event(first_prompt).role == "user"
    nxt = next(i for i in range(1, len(outline.ids)) if outline.ids[i] in outline.turn_tokens)
    spent = sum(e.tokens_in + e.tokens_out for e in store.events_by_ids(outline.ids[:nxt]))
    assert outline.turn_tokens[first_prompt] == spent > 0
    loaded(model, qtbot, *range(0, model.rowCount(), PAGE))
    assert model.data(model.index(0, 4)).startswith("turn ")
    # the roles a repaint asks, as ints (the view) and as enums (code): a prompt in bold, a call in its colour
    from PySide6.QtCore import Qt
    R = Qt.ItemDataRole
    assert model.data(model.index(0, 3), int(R.FontRole.value)).bold() and model.data(model.index(0, 3), R.FontRole).bold()
    assert model.data(model.index(row, 1), int(R.ForegroundRole.value)) == model.data(model.index(row, 1), R.ForegroundRole)
    assert model.data(model.index(row, 1), R.ForegroundRole) is not None
    assert model.data(model.index(0, 3), int(R.DisplayRole.value)) == model.data(model.index(0, 3))
    assert model.data(model.index(0, 3), R.UserRole).id == first_prompt
    assert model.data(model.index(0, 3), R.DecorationRole) is None and model.data(model.index(0, 3), R.BackgroundRole) is None


def test_branch_tree_model(qtmodeltester, demo):
    store, ids = demo
    model = BranchTreeModel()
    model.set_layout(store.tree(ids[0]))
    assert model.rowCount() >= 5
    qtmodeltester.check(model)


def _folded_pairs(model, store, qtbot):
    """(call payload, [result payloads]) of every call row that folds output."""
    loaded(model, qtbot, *range(0, model.rowCount(), PAGE))
    out = []
    for row in range(model.rowCount()):
        hidden = model.hidden_results(row)
        if hidden:
            out.append((store.event(model.ids[row]).payload, [store.event(r).payload for r in hidden]))
    return out


def test_parallel_calls_fold_the_output_that_answers_them(qtbot, store, tmp_path):
    """Claude Code writes call, call, result, result (the results in any order): each call folds its own."""
    from sessionscope.history import pairing
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import parallel_calls
    t = parallel_calls()
    t.assistant("Both checked.")
    import_paths(store, [t.write(tmp_path / "p")])
    outline = store.branch_outline(t.session_id, include_subagents=True)
    model = TimelineModel()
    model.show_outline(store, outline.ids, outline.kinds, outline.turn_tokens, sidechain=outline.sidechain)
    qtbot.waitUntil(lambda: model.pairs is not None, timeout=10000)  # the call ids arrive from a worker
    folded = _folded_pairs(model, store, qtbot)
    assert len(folded) == 2
    for call, results in folded:
        assert len(results) == 1 and set(pairing.answered(results[0])) == set(pairing.call_ids(call))
    row = next(r for r in range(model.rowCount()) if "Read" in model.data(model.index(r, 3)))
    assert "def a(): pass" in model.data(model.index(row, 3))  # not the Grep's "3 matches"
    assert model.toggle(row) and store.event(model.ids[row + 1]).text.startswith("def a()")


def test_generated_sessions_fold_each_result_under_its_own_call(qtbot, store, tmp_path):
    """The same check as on the corpus, on a generated home (parallel calls, results in any order), so it
    runs wherever the tests run."""
    from sessionscope.history import pairing
    from sessionscope.sources import importing
    from tests.benchmarks.generate import generate
    generate(tmp_path / "projects", 2_000_000, seed=3)
    importing.import_paths(store, [tmp_path / "projects"])
    checked = 0
    for s in sorted(store.sessions(limit=1000), key=lambda s: -s.event_count)[:3]:
        outline = store.branch_outline(s.id, include_subagents=True)
        model = TimelineModel()
        model.show_outline(store, outline.ids, outline.kinds, outline.turn_tokens, sidechain=outline.sidechain)
        qtbot.waitUntil(lambda: model.pairs is not None, timeout=20000)
        for call, results in _folded_pairs(model, store, qtbot):
            assert len(results) == 1 and set(pairing.answered(results[0])) == set(pairing.call_ids(call))
            checked += 1
    assert checked > 20


def test_corpus_sessions_fold_each_result_under_its_own_call(qtbot, corpus, store):
    """On real sessions with parallel calls: every folded result's id is its call's id."""
    from sessionscope.history import pairing
    from sessionscope.sources import importing
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no claude-code corpus")
    importing.import_paths(store, [folder])
    checked = 0
    for s in sorted(store.sessions(limit=1000), key=lambda s: -s.event_count)[:6]:
        outline = store.branch_outline(s.id, include_subagents=True)
        if "tool_result" not in outline.kinds:
            continue
        model = TimelineModel()
        model.show_outline(store, outline.ids, outline.kinds, outline.turn_tokens, sidechain=outline.sidechain)
        qtbot.waitUntil(lambda: model.pairs is not None, timeout=20000)
        for call, results in _folded_pairs(model, store, qtbot):
            for r in results:
                named = set(pairing.answered(r))
                if named:
                    assert named & set(pairing.call_ids(call))
                    checked += 1
    assert checked > 50


def test_the_timeline_says_what_each_line_beside_the_conversation_is(qtbot, store, tmp_path):
    """The timeline lists every line of the branch: Claude Code's own context and a hook's progress are said by what
    their tool calls them (`attachment: skill_listing`), as `show --all` says them."""
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.test_claude_context import _session
    t, lines = _session(tmp_path)
    t.progress_line = t._env("progress", data={"type": "hook_progress", "hookEvent": "PostToolUse"})
    import_paths(store, [t.write(tmp_path / "again")])
    ids = store.branch_ids(t.session_id)
    model = TimelineModel()
    model.show_ids(store, ids)
    loaded(model, qtbot, 0)
    said = {model.ids[r]: model.data(model.index(r, 3)) for r in range(model.rowCount())}
    assert said[lines["skill_listing"]["uuid"]] == "attachment: skill_listing"
    assert said[lines["environment"]["uuid"]] == "attachment: environment"
    assert said[t.progress_line["uuid"]] == "progress: hook_progress"
    assert said[lines["prompt"]["uuid"]] == "make the report's chart"
