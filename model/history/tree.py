"""The branch tree of a session, compressed and laid out in lanes (pure; no Qt, no SQL).

The event tree is compressed to what a person steers by: roots, real branch
points (a rewind: another user prompt under the same parent, or any other line under an event
the head was rewound to), the tips of
branches, compactions, the head, and fork edges into other sessions. Side lines
that are artifacts of one turn (parallel tool results, progress lines, split
replies) are folded into their turn and never open a lane. The GUI only paints
the layout (a delegate draws `TreeLayout`), as git-cola does with its graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sessionscope.store import gcpause


@dataclass(frozen=True, slots=True)
class TreeInput:
    id: str
    parent_id: str | None
    seq: int
    kind: str
    role: str | None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Fork:
    event_id: str  # the fork point in this tree
    session_id: str  # the session that continues from it
    title: str
    verb: str = "fork"  # "rewind" for a session a rewind made (Claude Code's rewinds are new transcripts)


HIDDEN = frozenset({"meta", "opaque", "checkpoint"})  # lines beside the conversation: never tree nodes


def through_hidden(rows: list[TreeInput], forks: list[Fork] = (),
                   hidden: frozenset[str] = HIDDEN) -> tuple[list[TreeInput], list[Fork]]:
    """The rows to lay out, each hung under its nearest shown ancestor (and each fork point moved
    there): a tool whose chain runs through lines the tree does not show (Codex's echoes and token
    counts) still draws one lane, with its forks on it."""
    parent = {r.id: r.parent_id for r in rows if r.kind in hidden}

    def shown(p: str | None) -> str | None:
        seen: set[str] = set()
        while p in parent and p not in seen:
            seen.add(p)
            p = parent[p]
        return p
    out = []
    for r in rows:
        if r.kind not in hidden:
            p = shown(r.parent_id)
            out.append(r if p == r.parent_id else TreeInput(r.id, p, r.seq, r.kind, r.role, r.text))
    return out, [f if shown(f.event_id) == f.event_id else Fork(shown(f.event_id), f.session_id, f.title, f.verb)
                 for f in forks]


@dataclass(frozen=True, slots=True)
class TreeNode:
    id: str
    row: int
    lane: int
    kind: str  # root, branch, tip, compaction, head, fork, step
    label: str
    seq: int
    tip: str  # the tip of this node's lane: showing it shows the branch through this node
    parent_row: int | None
    parent_lane: int | None
    fork_session: str | None = None


@dataclass(frozen=True, slots=True)
class TreeLayout:
    nodes: tuple[TreeNode, ...]
    lanes: int
    passing: tuple[frozenset[int], ...] = field(default=())  # lanes an edge crosses at each row

    def row_of(self, event_id: str) -> int | None:
        return next((n.row for n in self.nodes if n.id == event_id and n.fork_session is None), None)


def is_prompt(n: TreeInput) -> bool:
    """A typed user prompt, or a graph's checkpoint (LangGraph's `step`, whose every second child is a
    fork): only these start a real branch (not a reply's parallel tool calls, say)."""
    return (n.kind == "message" and n.role == "user" and not n.text.lstrip().startswith("<")) or n.kind == "step"


def _label(n: TreeInput) -> str:
    from sessionscope.history.cards import summary_of_text
    text = " ".join((summary_of_text(n.text) if n.kind == "tool_call" else n.text).split())
    return (text[:70] + "…") if len(text) > 70 else (text or n.kind)


# Lines that carry no conversation of their own: the tree passes through them.
PASS_THROUGH = frozenset({"progress", "system", "attachment", "context", "fact.set", "fact.delete"})


def _without_pass_through(rows: list[TreeInput]) -> list[TreeInput]:
    """Hang each shown line under its nearest shown ancestor."""
    parent_of = {r.id: r.parent_id for r in rows}
    hidden = {r.id for r in rows if r.kind in PASS_THROUGH}
    resolved: dict[str, str | None] = {}

    def shown_parent(pid: str | None) -> str | None:
        trail = []
        while pid in hidden and pid not in resolved and pid not in trail:
            trail.append(pid)
            pid = parent_of.get(pid)
        if pid in resolved:
            pid = resolved[pid]
        for t in trail:
            resolved[t] = pid
        return pid
    return [r if r.parent_id not in hidden else TreeInput(r.id, shown_parent(r.parent_id), r.seq, r.kind, r.role, r.text)
            for r in rows if r.id not in hidden]


def layout(rows: list[TreeInput], head: str | None = None, forks: list[Fork] | None = None,
           rewound: frozenset[str] = frozenset()) -> TreeLayout:
    """Compress the tree and assign rows (chronological) and lanes (one per branch). `rewound` names
    events a head was moved back to (the audit log's rewinds): every other child of one starts a
    branch, prompt or not (an Agents SDK pop_item, a regenerated reply)."""
    ids = {r.id for r in rows}
    rows = _without_pass_through(rows)
    shown_ids = {r.id for r in rows}
    if head is not None and head in ids and head not in shown_ids:
        head = None  # the head is a pass-through line: its branch tip stands for it
    forks = [f for f in forks or [] if f.event_id in shown_ids]
    by_id = {r.id: r for r in rows}
    children: dict[str, list[TreeInput]] = {}
    roots = []
    for r in rows:
        if r.parent_id in by_id and r.parent_id != r.id:
            children.setdefault(r.parent_id, []).append(r)
        else:
            roots.append(r)
    last = _subtree_last_seq(rows, children)
    fork_at: dict[str, list[Fork]] = {}
    for f in forks or []:
        if f.event_id in by_id:
            fork_at.setdefault(f.event_id, []).append(f)

    shown: list[tuple[TreeInput, int, str, str | None, str | None]] = []  # node, lane, kind, parent id, fork
    lane_tip: dict[int, str] = {}
    runs: dict[str, int] = {}  # a shown compaction → how many compactions in a row it stands for
    next_lane = 0
    # (start node, lane, shown node it branches from)
    stack = [(r, None) for r in sorted(roots, key=lambda r: r.seq, reverse=True)]
    visited: set[str] = set()
    while stack:
        node, branched_from = stack.pop()
        lane, next_lane = next_lane, next_lane + 1
        prev = branched_from
        cur: TreeInput | None = node
        first = True
        while cur is not None and cur.id not in visited:
            visited.add(cur.id)
            # the branch goes on through the child with the newest descendant (a fact
            # an importer attached beside the chain never continues it)
            kids = sorted(children.get(cur.id, []), key=lambda c: (not c.kind.startswith("fact."), last[c.id]),
                          reverse=True)
            cont = kids[0] if kids else None
            sides = [k for k in kids[1:] if is_prompt(k) or cur.id in rewound]
            kind = ("root" if first and branched_from is None else "branch" if sides else
                    "tip" if cont is None else "compaction" if cur.kind == "compaction" else
                    "head" if cur.id == head else "fork" if cur.id in fork_at else
                    "start" if first else "")
            if kind == "compaction" and shown and shown[-1][1] == lane and shown[-1][2] == "compaction" \
                    and shown[-1][0].id == prev:
                runs[prev] = runs.get(prev, 1) + 1  # a run of compactions with nothing between: one node
            elif kind:
                shown.append((cur, lane, kind, prev, None))
                prev = cur.id
            for f in fork_at.get(cur.id, []):
                shown.append((cur, -1, "fork", cur.id, f.session_id))
            for s in sorted(sides, key=lambda k: k.seq, reverse=True):
                stack.append((s, cur.id))
            lane_tip[lane] = cur.id
            first = False
            cur = cont
    laid = _assign_rows(shown, lane_tip, next_lane,
                        {f.session_id: f"{f.verb} → {f.title or f.session_id[:8]}" for f in forks or []}, head, runs)
    gcpause.let_go(children, last, by_id, visited, ids, shown_ids, rows, shown)  # (not freed at once as we return)
    return laid


def _subtree_last_seq(rows: list[TreeInput], children: dict[str, list[TreeInput]]) -> dict[str, int]:
    """The newest seq under each node (iteratively: trees can be 100,000 deep)."""
    last = {r.id: r.seq for r in rows}
    order: list[TreeInput] = []
    has_parent = {c.id for cs in children.values() for c in cs}
    stack = [r for r in rows if r.id not in has_parent]
    seen: set[str] = set()
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        order.append(n)
        stack.extend(children.get(n.id, []))
    for n in reversed(order):
        for c in children.get(n.id, []):
            last[n.id] = max(last[n.id], last[c.id])
    return last


def _assign_rows(shown, lane_tip, lanes, fork_titles, head, runs=None) -> TreeLayout:
    shown.sort(key=lambda t: (t[0].seq, t[4] is not None))
    row_of: dict[str, int] = {}
    lane_of: dict[str, int] = {}
    fork_lane = lanes
    nodes: list[TreeNode] = []
    for row, (n, lane, kind, parent, fork_session) in enumerate(shown):
        if fork_session is not None:
            lane, fork_lane = fork_lane, fork_lane + 1
            label = fork_titles.get(fork_session) or f"fork → {fork_session[:8]}"
            tip = n.id
        else:
            label = _label(n) + ("  (head)" if n.id == head and kind != "head" else "")
            if (runs or {}).get(n.id, 1) > 1:
                label = f"{runs[n.id]} compactions in a row · {label}"
            tip = lane_tip.get(lane, n.id)
            row_of[n.id] = row
            lane_of[n.id] = lane
        p_row = row_of.get(parent) if parent else None
        p_lane = lane_of.get(parent) if parent else None
        nodes.append(TreeNode(n.id, row, lane, kind, label, n.seq, tip, p_row, p_lane, fork_session))
    total = max(fork_lane, 1)
    passing: list[set[int]] = [set() for _ in nodes]
    for node in nodes:
        if node.parent_row is None:
            continue
        for r in range(node.parent_row + 1, node.row):
            passing[r].add(node.lane)
    return TreeLayout(tuple(nodes), total, tuple(frozenset(p) for p in passing))
