"""A team store's reports as its members see them (#38, #61): usage counts what a member may read, and a member's
report over many shared sessions reads their owners' caches in a few statements (tests/conftest.py's `team_store`:
three logins on a real PostgreSQL server)."""

from __future__ import annotations

from sessionscope import ops


def test_usage_counts_what_a_member_may_read(team_store):
    """A member's Usage goes through the owner's function (sessionscope_usage): the same rule as every read."""
    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]

    def spent(store, title, tokens):
        sid = store.open_session(title=title).id
        store.append(sid, "message", role="assistant", text="done", tokens_in=tokens, tokens_out=1)
        return sid
    private, shared, own = spent(alice, "a", 1000), spent(alice, "b", 2000), spent(bob, "c", 30)
    ops.share(alice, shared, actor="test")
    seen = {sid for _c, _t, sid in bob.usage(group="person").session_costs}
    assert shared in seen and own in seen and private not in seen
    by_person = dict(bob.usage(group="person").top["person"])
    assert set(by_person) >= {names["alice"], names["bob"]}
    assert private in {sid for _c, _t, sid in alice.usage().session_costs}


def _statements(store):
    """The SQL statements `store` sends while the block runs (a list filled as they go)."""
    import contextlib

    import sqlalchemy as sa

    @contextlib.contextmanager
    def counting():
        sent: list[str] = []

        def note(_conn, _cursor, statement, *_args):
            sent.append(statement)
        sa.event.listen(store.engine, "before_cursor_execute", note)
        try:
            yield sent
        finally:
            sa.event.remove(store.engine, "before_cursor_execute", note)
    return counting()


def test_a_members_report_over_many_shared_sessions_takes_a_few_statements(team_store):
    """A member may keep nothing derived from another's session (team.changeable), so: the owner's import folds
    the reports of what it brought in (Store.warm → derive_for_readers), and a member's report reads those caches;
    what is stale is folded in a few queries, not a few a session (the cache's save asked the server which sessions
    it may change once for every session: 2 s for 400 shared sessions)."""
    server, database, names, st = team_store
    alice, bob = st["alice"], st["bob"]
    theirs = []
    for n in range(40):
        sid = alice.open_session(title=f"spent {n}").id
        alice.append(sid, "message", role="assistant", text="done", tokens_in=100 + n, tokens_out=1)
        ops.share(alice, sid, actor="test")
        theirs.append(sid)
    with _statements(bob) as sent:  # not yet folded by alice: bob folds them, and can keep none of it
        before = bob.usage(group="person")
    assert len(sent) < 15, len(sent)
    with bob.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM usage_cache WHERE session_id = ANY(%s)",
                                    (theirs,)).scalar() == 0
    alice.warm(theirs)  # what her import does with what it touched
    with _statements(bob) as sent:
        after = bob.usage(group="person")
    assert not [q for q in sent if "FROM event" in q]  # nothing folded again: every row came from alice's caches
    assert {sid for _c, _t, sid in after.session_costs} >= set(theirs)
    assert after.totals == before.totals
    with bob.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM usage_cache WHERE session_id = ANY(%s)",
                                    (theirs,)).scalar() == 40
        assert conn.exec_driver_sql("SELECT count(*) FROM vitals_cache WHERE session_id = ANY(%s)",
                                    (theirs,)).scalar() == 40
