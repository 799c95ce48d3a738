"""Rewind, fork, the fold of durable facts across forks, snapshots and diffs."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from sessionscope import NotFound, Refused
from sessionscope.history.facts import SNAPSHOT_EVERY
from sessionscope.store.schema import FACT_SNAPSHOT


def test_rewind_branches_and_keeps_the_abandoned_branch(store):
    s = store.open_session()
    a = store.append(s.id, "message", role="user", text="a")
    b = store.append(s.id, "message", role="assistant", text="b")
    ch = store.rewind(s.id, a.id)
    assert ch.detail["previous_head"] == b.id and ch.session.head_event_id == a.id
    c = store.append(s.id, "message", role="user", text="c")
    assert c.parent_id == a.id and c.seq == 3
    assert [e.text for e in store.branch(s.id)] == ["a", "c"]
    assert [e.text for e in store.branch(s.id, head=b.id)] == ["a", "b"]
    assert set(store.leaves(s.id)) == {b.id, c.id}
    assert store.audit_log(s.id)[0]["detail"] == {"previous_head": b.id}


def test_rewind_refuses_foreign_event(store):
    s1, s2 = store.open_session(), store.open_session()
    store.append(s1.id, "message")
    e2 = store.append(s2.id, "message")
    with pytest.raises(Refused, match="not to the history"):
        store.rewind(s1.id, e2.id)
    with pytest.raises(NotFound):
        store.rewind(s1.id, "nope")


def test_fork_shares_the_prefix(store):
    s = store.open_session(title="origin")
    a = store.append(s.id, "message", text="a")
    store.append(s.id, "message", text="b")
    f = store.fork(s.id, a.id).session
    assert (f.forked_from_session, f.forked_from_event, f.head_event_id) == (s.id, a.id, a.id)
    assert f.title == "origin (fork)" and f.event_count == 0
    x = store.append(f.id, "message", text="x")
    assert x.parent_id == a.id and x.seq == 1 and x.session_id == f.id
    assert [e.text for e in store.branch(f.id)] == ["a", "x"]
    # the prefix is not copied
    assert len(store.events(f.id)) == 1 and store.verify(f.id)[0].ok
    # a fork of a fork may rewind into the shared prefix
    store.rewind(f.id, a.id)
    assert store.session(f.id).head_event_id == a.id


def test_fold_and_diff_on_one_branch(store):
    s = store.open_session()
    e1 = store.set_fact(s.id, "todo", ["write tests"])
    store.set_fact(s.id, "decision", "use sqlite")
    e3 = store.set_fact(s.id, "todo", ["write tests", "ship"])
    store.append(s.id, "message", text="noise")
    e5 = store.delete_fact(s.id, "decision")
    assert store.facts_at(e1.id) == {"todo": ["write tests"]}
    assert store.facts_at(e3.id) == {"todo": ["write tests", "ship"], "decision": "use sqlite"}
    assert store.facts_at(e5.id) == {"todo": ["write tests", "ship"]}
    d = store.diff(e1.id, e3.id)
    assert d.added == {"decision": "use sqlite"} and d.removed == {}
    assert d.changed == {"todo": (["write tests"], ["write tests", "ship"])}
    d = store.diff(e3.id, e5.id)
    assert d.removed == {"decision": "use sqlite"} and not d.added and not d.changed
    assert store.diff(e5.id, e5.id).is_empty()


def test_fold_and_diff_across_branches_forks_and_sessions(store):
    s = store.open_session()
    store.set_fact(s.id, "plan", "v1")
    mid = store.set_fact(s.id, "files", {"a.py": "edit"})
    left = store.set_fact(s.id, "plan", "v2")
    store.rewind(s.id, mid.id)
    right = store.set_fact(s.id, "owner", "bob")
    d = store.diff(left.id, right.id)
    assert d.added == {"owner": "bob"} and d.changed == {"plan": ("v2", "v1")}
    assert d.removed == {} and store.facts_at(right.id)["plan"] == "v1"
    assert store.diff(left.id, right.id).as_dict()["added"] == {"owner": "bob"}
    # across a fork boundary: the fork sees the origin's facts up to the fork point
    f = store.fork(s.id, left.id).session
    fe = store.delete_fact(f.id, "files")
    assert store.facts_at(fe.id) == {"plan": "v2"}
    assert store.head_facts(f.id) == {"plan": "v2"}
    d = store.diff(right.id, fe.id)
    assert d.removed == {"files": {"a.py": "edit"}, "owner": "bob"}
    assert d.changed == {"plan": ("v1", "v2")}
    # different, unrelated sessions
    other = store.open_session()
    oe = store.set_fact(other.id, "plan", "other")
    assert store.diff(fe.id, oe.id).changed == {"plan": ("v2", "other")}


def test_snapshots_are_written_and_used(store):
    s = store.open_session()
    last = None
    for i in range(SNAPSHOT_EVERY * 2 + 5):
        last = store.set_fact(s.id, f"k{i % 7}", i) if i % 3 == 0 else store.append(s.id, "message", text=str(i))
    with store.reader() as conn:
        snaps = conn.execute(sa.select(sa.func.count()).select_from(FACT_SNAPSHOT)).scalar()
    assert snaps == 2  # written on append at depth 200 and 400
    expected = {}
    for i in range(0, SNAPSHOT_EVERY * 2 + 5, 3):
        expected[f"k{i % 7}"] = i
    assert store.facts_at(last.id) == expected


def test_snapshot_content_matches_full_fold(store, tmp_path):
    s = store.open_session()
    for i in range(SNAPSHOT_EVERY + 10):
        store.set_fact(s.id, f"k{i % 5}", i)
    cached = store.head_facts(s.id)
    store.write(lambda conn: conn.execute(FACT_SNAPSHOT.delete()))
    assert store.head_facts(s.id) == cached


def test_subagent_events_chain_beside_the_head(store):
    s = store.open_session()
    call = store.append(s.id, "tool_call", role="assistant", text="Task")
    a1 = store.append(s.id, "message", role="assistant", text="sub 1", sidechain=True, agent_id="x")
    a2 = store.append(s.id, "message", role="assistant", text="sub 2", sidechain=True, agent_id="x")
    result = store.append(s.id, "tool_result", role="tool", text="done")
    assert a1.parent_id == call.id and a2.parent_id == a1.id and result.parent_id == call.id
    assert store.session(s.id).head_event_id == result.id


def test_the_head_branch_is_cached_and_never_stale(store):
    import sqlalchemy as sa

    from sessionscope.store.schema import OUTLINE_CACHE

    sid = store.open_session(title="cached").id
    first = store.append(sid, "message", role="user", text="q", tokens_in=5)
    store.append(sid, "message", role="assistant", text="a1", tokens_out=7)

    def cached():
        with store.reader() as conn:
            return conn.execute(sa.select(OUTLINE_CACHE.c.head_event_id, OUTLINE_CACHE.c.last_seq)
                                .where(OUTLINE_CACHE.c.session_id == sid)).first()
    assert cached() is None
    outline = store.branch_outline(sid)
    assert cached() == (store.session(sid).head_event_id, 2)
    assert outline.turn_tokens == {first.id: 12}
    assert store.branch_outline(sid) == outline  # from the cache
    late = store.append(sid, "message", role="user", text="more")
    assert store.branch_ids(sid)[-1] == late.id and cached().last_seq == 3  # stale, walked again
    store.rewind(sid, first.id)
    alt = store.append(sid, "message", role="assistant", text="a2")
    assert [e.text for e in store.branch_view(sid)] == ["q", "a2"]
    # other branches are walked on demand, never cached under the head
    assert [e.text for e in store.events_by_ids(store.branch_ids(sid, late.id))] == ["q", "a1", "more"]
    assert cached().head_event_id == alt.id
    store.delete(sid)
    assert cached() is None


def test_a_store_of_the_first_schema_is_upgraded(tmp_path):
    import sqlite3

    from sessionscope import open_store
    from sessionscope.store.revision import HEAD_REVISION

    path = tmp_path / "old.db"
    with open_store(path) as s:
        sid = s.open_session(title="kept").id
        s.append(sid, "message", role="user", text="hello")
    with sqlite3.connect(path) as raw:  # back to what revision 0001 created
        for table in ("outline_cache", "file_blob", "checkpoint_backup", "mirror_entry", "mirror_summary", "usage_cache",
                      "event_alias", "star", "pin", "note", "embedding", "live_signal", "tool_cache",
                      "vitals_cache", "file_touch", "commit_link", "project_share"):
            raw.execute(f"DROP TABLE {table}")
        raw.execute("ALTER TABLE source_file DROP COLUMN last_ts")  # (added by 0006)
        raw.execute("DROP INDEX ix_session_imported_by")  # (added by 0008, with its column)
        raw.execute("DROP INDEX ix_event_opaque")  # (added by 0015)
        raw.execute("ALTER TABLE session DROP COLUMN imported_by")
        raw.execute("DROP INDEX ix_session_owner")  # (added by 0020, with its columns)
        raw.execute("DROP INDEX ix_session_project_updated")  # (added by 0022)
        raw.execute("ALTER TABLE session DROP COLUMN owner")
        raw.execute("ALTER TABLE session DROP COLUMN shared")
        raw.execute("ALTER TABLE source DROP COLUMN owner")  # (added by 0023)
        raw.execute("DROP TABLE payload_dict")  # (added by 0024, with the event's two columns)
        raw.execute("ALTER TABLE event DROP COLUMN response_id")
        raw.execute("ALTER TABLE event DROP COLUMN failed")
        raw.execute("UPDATE alembic_version SET version_num = '0001'")
    with open_store(path) as s:
        assert [e.text for e in s.branch_view(sid)] == ["hello"]
        assert all(r.ok for r in s.verify())
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT version_num FROM alembic_version").fetchone() == (HEAD_REVISION,)
        assert raw.execute("SELECT count(*) FROM mirror_entry").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM file_blob").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM usage_cache").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM star").fetchone() == raw.execute("SELECT count(*) FROM pin").fetchone() \
            == (0,)
        assert raw.execute("SELECT folded_to FROM mirror_summary").fetchall() == []
        assert raw.execute("SELECT count(*) FROM event_alias").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM embedding").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM live_signal").fetchone() == (0,)
        assert raw.execute("SELECT count(*) FROM outline_cache").fetchone() == (1,)
