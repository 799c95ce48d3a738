"""The branch-tree layout, without Qt (pure function) and through the store."""

from __future__ import annotations

from sessionscope.history.tree import Fork, TreeInput, layout


def _n(i, parent, kind="message", role="user", text=""):
    return TreeInput(i, parent, int(i[1:]), kind, role, text or i)


def test_linear_session_is_root_and_tip():
    rows = [_n("e1", None), _n("e2", "e1", role="assistant"), _n("e3", "e2"), _n("e4", "e3", role="assistant")]
    lay = layout(rows, head="e4")
    assert [(n.id, n.kind, n.lane) for n in lay.nodes] == [("e1", "root", 0), ("e4", "tip", 0)]
    assert lay.lanes == 1


def test_rewind_opens_a_lane_and_artifacts_do_not():
    rows = [
        _n("e1", None), _n("e2", "e1", "tool_call", "assistant"),
        _n("e3", "e2", "tool_result", "tool"), _n("e4", "e2", "tool_result", "tool"),  # parallel results
        _n("e5", "e4", role="assistant"),
        _n("e6", "e5", text="take one"), _n("e7", "e6", role="assistant"),
        _n("e8", "e5", text="take two"), _n("e9", "e8", role="assistant"),  # the rewind
    ]
    lay = layout(rows, head="e9", forks=[Fork("e7", "s-fork", "experiment")])
    kinds = {n.id: n.kind for n in lay.nodes if n.fork_session is None}
    assert kinds == {"e1": "root", "e5": "branch", "e6": "start", "e7": "tip", "e9": "tip"}
    lanes = {n.id: n.lane for n in lay.nodes if n.fork_session is None}
    assert lanes["e9"] == 0 and lanes["e7"] == 1  # the newest branch keeps the main lane
    tip7 = next(n for n in lay.nodes if n.id == "e7" and n.fork_session is None)
    assert tip7.tip == "e7" and tip7.parent_row == lay.row_of("e6")
    start = next(n for n in lay.nodes if n.id == "e6")
    assert start.parent_row == lay.row_of("e5") and start.tip == "e7"
    fork = next(n for n in lay.nodes if n.fork_session)
    assert fork.fork_session == "s-fork" and "experiment" in fork.label and fork.lane == 2
    assert lay.lanes == 3
    # the main lane passes the rows between the branch point and its tip
    assert all(0 in lay.passing[r] for r in range(lay.row_of("e5") + 1, lay.row_of("e9")))


def test_deep_trees_do_not_recurse():
    rows = [_n("e0", None)] + [_n(f"e{i}", f"e{i - 1}", role="assistant" if i % 2 else "user") for i in range(1, 50_000)]
    lay = layout(rows)
    assert [n.kind for n in lay.nodes] == ["root", "tip"]


def test_cycles_terminate():
    rows = [TreeInput("a", "b", 1, "message", "user"), TreeInput("b", "a", 2, "message", "user")]
    assert layout(rows).nodes == ()


def test_store_tree_shows_rewind_and_fork(store):
    s = store.open_session()
    a = store.append(s.id, "message", role="user", text="first")
    b = store.append(s.id, "message", role="assistant", text="answer")
    store.append(s.id, "message", role="user", text="take one")
    store.rewind(s.id, b.id)
    store.append(s.id, "message", role="user", text="take two")
    f = store.fork(s.id, a.id, title="side quest").session
    lay = store.tree(s.id)
    assert {n.kind for n in lay.nodes} >= {"root", "branch", "tip", "fork"}
    assert any(n.fork_session == f.id for n in lay.nodes)


def test_a_chain_through_hidden_lines_is_one_lane():
    from sessionscope.history.tree import TreeInput, layout, through_hidden
    rows = [TreeInput("p", None, 1, "message", "user", "q"), TreeInput("m1", "p", 2, "meta", None),
            TreeInput("a", "m1", 3, "message", "assistant", "r"), TreeInput("m2", "a", 4, "meta", None),
            TreeInput("m3", "m2", 5, "opaque", None), TreeInput("p2", "m3", 6, "message", "user", "q2")]
    shown, _ = through_hidden(rows)
    assert [(r.id, r.parent_id) for r in shown] == [("p", None), ("a", "p"), ("p2", "a")]
    assert layout(shown, "p2", []).lanes == 1


def test_a_run_of_compactions_is_one_node():
    """33 compactions with only conversation between them: one node saying so, not 33 alike."""
    rows, parent = [_n("e1", None)], "e1"
    for i in range(33):
        c, reply = f"e{100 + 2 * i}", f"e{101 + 2 * i}"
        rows += [_n(c, parent, "compaction", "system", "summary of the conversation so far"),
                 _n(reply, c, role="assistant")]
        parent = reply
    rows.append(_n("e900", parent, text="a question after them"))
    lay = layout(rows, head="e900")
    assert [(n.id, n.kind) for n in lay.nodes] == [("e1", "root"), ("e100", "compaction"), ("e900", "tip")]
    assert lay.nodes[1].label.startswith("33 compactions in a row · ")
    # a node shown between two compactions (here a fork) breaks the run there
    lay = layout(rows, head="e900", forks=[Fork("e121", "s-other", "elsewhere")])
    runs = [n.label.split(" compactions")[0] for n in lay.nodes if n.kind == "compaction"]
    assert runs == ["11", "22"]
