"""One action on many sessions (the list's selection): each goes the one path, a refusal is that session's
alone, and a failure that is not a session's own stops the batch with what was done kept."""

from __future__ import annotations

import pytest

from sessionscope import ops
from sessionscope.history.read_models import Action
from sessionscope.sources.claude_code import import_paths
from tests.sources.claude_factory import Transcript


def _natives(store, n):
    return [store.open_session(title=f"s{i}", tags=["keep"] if i == 0 else []).id for i in range(n)]


def test_a_star_and_an_archive_on_a_selection_each_audited(store):
    ids = _natives(store, 3)
    store.archive(ids[2])  # archived already: archiving it again is refused, the others go through
    batch = ops.each(ids, lambda sid: ops.archive(store, sid, actor="app"))
    assert [c.session.id for c in batch.done] == ids[:2]
    assert [sid for sid, _ in batch.failed] == [ids[2]] and "archived" in batch.failed[0][1]
    assert batch.said("Archived").startswith("Archived 2 sessions; 1 refused (")
    assert {s.id for s in store.sessions(status="archived")} == set(ids)
    ch = batch.changes(Action.ARCHIVE)
    assert ch.session_ids == frozenset(ids[:2]) and ch.session_list
    starred = ops.each(ids, lambda sid: ops.star(store, sid, True, actor="app"))
    assert len(starred.done) == 3 and {s.id for s in store.sessions(starred=True, include_archived=True)} == set(ids)
    for sid in ids:
        actions = [a["action"] for a in store.audit_log(sid)]
        assert "star" in actions


def test_tags_added_and_taken_away_keep_each_sessions_others(store, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    home = tmp_path / "claude" / "projects" / "-work-app"
    t = Transcript(session_id="aaaaaaaa-bbbb-4ccc-8ddd-000000000009")
    t.user("hello")
    t.assistant("hi")
    t.write(home)
    import_paths(store, [home.parent])
    ids = _natives(store, 2)
    batch = ops.each([*ids, t.session_id], lambda sid: ops.retag(store, sid, ["review", "ui"], [], actor="app"))
    assert [store.session(s).tags for s in ids] == [("keep", "review", "ui"), ("review", "ui")]
    # Claude Code keeps one tag a session (claude-agent-sdk's tag_session): two are refused, and nothing changes
    assert [sid for sid, _ in batch.failed] == [t.session_id] and store.session(t.session_id).tags == ()
    ops.each(ids, lambda sid: ops.retag(store, sid, [], ["ui", "absent"], actor="app"))
    assert [store.session(s).tags for s in ids] == [("keep", "review"), ("review",)]
    assert store.tag_counts() == {"review": 2, "keep": 1}


def test_a_failure_not_the_sessions_own_stops_the_rest(store):
    ids = _natives(store, 3)

    def star_or_fail(sid):
        if sid == ids[1]:
            raise OSError(28, "No space left on device")
        return ops.star(store, sid, True)
    batch = ops.each(ids, star_or_fail)
    assert [c.session.id for c in batch.done] == [ids[0]]
    assert batch.failed == [(ids[1], "OSError: [Errno 28] No space left on device")]
    assert batch.stopped == "1 not tried after an error" and not store.session(ids[2]).starred
    cancelled = ops.each(ids, lambda sid: pytest.fail("nothing is tried once cancelled"), cancelled=lambda: True)
    assert cancelled.done == [] and cancelled.stopped == "cancelled with 3 left"
