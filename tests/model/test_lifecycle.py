"""The store API in lifecycle order, with every refusal."""

from __future__ import annotations

import time

import pytest

from sessionscope import IllegalTransition, InvalidInput, NotFound, Refused
from sessionscope.history import lifecycle


def test_open_records_identity_and_audits(store):
    s = store.open_session(title="refactor", agent="bot", metadata={"repo": "x"}, budget={"tokens": 100},
                           tags=["b", "a"], cwd="/src")
    got = store.session(s.id)
    assert (got.title, got.agent, got.meta, got.budget, got.tags, got.cwd) == (
        "refactor", "bot", {"repo": "x"}, {"tokens": 100}, ("a", "b"), "/src")
    assert got.status == "active" and got.event_count == 0 and got.head_event_id is None
    entry = store.audit_log(s.id)[0]
    assert entry["action"] == "open" and entry["outcome"] == "ok"


def test_append_assigns_seq_parent_and_counts(store):
    s = store.open_session(title="t")
    a = store.append(s.id, "message", role="user", text="hi", tokens_in=5)
    b = store.append(s.id, "tool_call", payload={"name": "Read", "input": {"path": "x"}}, tokens_out=7)
    assert (a.seq, b.seq) == (1, 2)
    assert a.parent_id is None and b.parent_id == a.id and b.depth == 1
    assert b.payload == '{"name":"Read","input":{"path":"x"}}'
    got = store.session(s.id)
    assert (got.event_count, got.tokens_in, got.tokens_out, got.head_event_id) == (2, 5, 7, b.id)


def test_append_rejects_bad_input(store):
    s = store.open_session()
    with pytest.raises(InvalidInput):
        store.append(s.id, "")
    with pytest.raises(InvalidInput):
        store.append(s.id, "fact.set", payload="not an object")
    with pytest.raises(InvalidInput):
        store.append(s.id, "x", payload={1, 2})
    with pytest.raises(NotFound):
        store.append("no-such-session", "message")
    e = store.append(s.id, "message", event_id="fixed-id")
    with pytest.raises(InvalidInput, match="already"):
        store.append(s.id, "message", event_id="fixed-id")
    assert store.session(s.id).event_count == 1 and e.id == "fixed-id"


def test_read_by_seq_and_time(store):
    s = store.open_session()
    base = 1_700_000_000.0
    for i in range(10):
        store.append(s.id, "message", text=f"m{i}", ts=base + i * 60)
    assert [e.text for e in store.events(s.id, from_seq=3, to_seq=5)] == ["m2", "m3", "m4"]
    assert [e.text for e in store.events(s.id, since=base + 120, until=base + 240)] == ["m2", "m3", "m4"]
    assert [e.seq for e in store.events(s.id, from_seq=9)] == [9, 10]
    with pytest.raises(NotFound):
        store.events("missing")


def test_resume_context_is_facts_and_transcript_since_compaction(store):
    s = store.open_session(budget={"tokens": 1000, "events": 10, "usd": 5})
    store.append(s.id, "message", role="user", text="old prompt", tokens_in=100)
    store.set_fact(s.id, "plan", ["a", "b"])
    store.compact(s.id, "we agreed on plan a,b")
    store.append(s.id, "message", role="user", text="next", tokens_out=50)
    store.close_session(s.id)
    ctx = store.resume(s.id)
    assert ctx.session.status == "active"
    assert ctx.facts == {"plan": ["a", "b"]}
    assert [e.text for e in ctx.transcript] == ["we agreed on plan a,b", "next"]
    assert ctx.budget_left == {"tokens": 850, "events": 6, "usd": 5}
    # the compacted messages stay in the log
    assert [e.text for e in store.events(s.id)][0] == "old prompt"


def test_close_archive_unarchive_and_refusals(store):
    s = store.open_session()
    store.append(s.id, "message", text="x")
    store.close_session(s.id)
    with pytest.raises(IllegalTransition, match=f"cannot append session {s.id}: it is closed"):
        store.append(s.id, "message", text="late")
    store.archive(s.id)
    assert store.session(s.id).status == "archived"
    assert s.id not in [x.id for x in store.sessions()]
    assert s.id in [x.id for x in store.sessions(include_archived=True)]
    with pytest.raises(IllegalTransition, match="archived; unarchive it first"):
        store.append(s.id, "message", text="late")
    with pytest.raises(IllegalTransition):
        store.compact(s.id, "no")
    with pytest.raises(IllegalTransition):
        store.rewind(s.id, store.session(s.id).head_event_id)
    with pytest.raises(IllegalTransition):
        store.resume(s.id)
    refused = [e for e in store.audit_log(s.id) if e["outcome"] == "refused"]
    assert {e["action"] for e in refused} >= {"compact", "rewind", "resume"}
    store.unarchive(s.id)
    assert store.session(s.id).status == "closed"  # as it was archived
    store.resume(s.id)
    store.append(s.id, "message", text="back")
    assert store.session(s.id).event_count == 2


def test_pause_and_idle(store):
    s = store.open_session()
    assert store.pause(s.id).session.status == "paused"
    assert store.mark_idle(s.id).session.status == "idle"
    store.append(s.id, "message")
    assert store.session(s.id).status == "active"


def test_state_machine_is_the_one_place():
    assert lifecycle.next_status("s", "idle", "resume") == "active"
    with pytest.raises(IllegalTransition) as info:
        lifecycle.next_status("s1", "running", "delete")
    assert (info.value.session_id, info.value.status, info.value.action) == ("s1", "running", "delete")
    assert "stop the running agent" in str(info.value)
    assert not lifecycle.allows("archived", "append") and lifecycle.allows("closed", "archive")
    with pytest.raises(ValueError):
        lifecycle.next_status("s", "active", "explode")


def test_delete_removes_and_records(store):
    s = store.open_session(title="doomed")
    store.append(s.id, "message", text="findme please")
    ch = store.delete(s.id)
    assert ch.detail["events_removed"] == 1
    with pytest.raises(NotFound):
        store.session(s.id)
    assert store.search("findme") == []
    assert store.audit_log(s.id)[0]["action"] == "delete"


def test_delete_refused_while_running_or_forked_from(store):
    s = store.open_session()
    e = store.append(s.id, "message")
    store.report_status(s.id, "start")
    with pytest.raises(IllegalTransition, match="running"):
        store.delete(s.id)
    assert store.audit_log(s.id)[0]["outcome"] == "refused"
    store.report_status(s.id, "terminate")
    fork = store.fork(s.id, e.id).session
    with pytest.raises(Refused, match="fork from it"):
        store.delete(s.id)
    store.delete(fork.id)
    store.delete(s.id)


def test_rename_and_tag(store):
    s = store.open_session(title="a")
    assert store.rename(s.id, "b").session.title == "b"
    assert store.set_tags(s.id, ["x", "x", "y"]).session.tags == ("x", "y")


def test_prefix_resolution(store):
    s = store.open_session()
    assert store.resolve_session(s.id[:8]) == s.id
    with pytest.raises(NotFound):
        store.resolve_session("zzzzzzzz")


def test_list_sorting_and_filters(store):
    ids = []
    for i, title in enumerate(["beta", "alpha", "gamma"]):
        s = store.open_session(title=title, project=f"p{i % 2}")
        store.append(s.id, "message", ts=time.time() + i)
        ids.append(s.id)
    assert [s.title for s in store.sessions()] == ["gamma", "alpha", "beta"]
    assert [s.title for s in store.sessions(sort="title", descending=False)] == ["alpha", "beta", "gamma"]
    assert [s.title for s in store.sessions(text="amm")] == ["gamma"]
    assert store.count_sessions(project="p0") == 2
    assert [s.title for s in store.sessions(limit=1, offset=1)] == ["alpha"]
    with pytest.raises(InvalidInput):
        store.sessions(sort="nope")


def test_unarchive_returns_the_status_a_session_was_archived_from(store):
    paused, idle, active = store.open_session(), store.open_session(), store.open_session()
    store.pause(paused.id)
    store.mark_idle(idle.id)
    for s in (paused, idle, active):
        store.archive(s.id)
    assert [store.unarchive(s.id).detail["to"] for s in (paused, idle, active)] == ["paused", "idle", "idle"]
    assert [store.session(s.id).status for s in (paused, idle, active)] == ["paused", "idle", "idle"]
    assert "archived_from" not in store.session(paused.id).meta
    trail = [(a["detail"]["from"], a["detail"]["to"]) for a in store.audit_log(paused.id) if a["action"] == "unarchive"]
    assert trail == [("archived", "paused")]
