"""The search language (#34): operators, ranking and errors, the same on SQLite and PostgreSQL."""

from __future__ import annotations

import time

import pytest

from sessionscope import InvalidInput, ops
from sessionscope.recall.query import parse

DAY = 86400.0


@pytest.fixture
def sessions(store):
    """Two sessions of two tools' worth of events, at known times."""
    now = time.time()
    a = store.open_session(title="cookie bug", project="/w/shop")
    b = store.open_session(title="deploy", project="/w/infra")
    e = {}
    e["prompt"] = store.append(a.id, "message", role="user", text="the login cookie expires too early", ts=now - 3 * DAY)
    e["call"] = store.append(a.id, "tool_call", role="assistant", text='Bash {"command":"pytest tests/login"}',
                             ts=now - 3 * DAY + 1)
    e["fail"] = store.append(a.id, "tool_result", role="tool", text="1 failed\nExit code 1", ts=now - 3 * DAY + 2,
                             payload={"is_error": True})
    e["reply"] = store.append(a.id, "message", role="assistant", text="The cookie cookie cookie is set before the "
                              "redirect; the session cookie is fine", ts=now - 3 * DAY + 3)
    e["deploy"] = store.append(b.id, "message", role="user", text="deploy the shop, mind the session timeout",
                               ts=now - DAY)
    e["grep"] = store.append(b.id, "tool_call", role="assistant", text='Grep {"pattern":"timeout"}', ts=now - DAY + 1)
    return a, b, e


def _ids(hits):
    return [h.event_id for h in hits]


def _search(store):
    """The store's search, and on SQLite the command line's quick reader beside it (sessionscope.store.quick, sqlite3
    alone): every answer below is asked of both, and must be the same."""
    if store.engine.dialect.name != "sqlite":
        return store.search
    from sessionscope.store.quick import open_reader

    def both(text, **kw):
        found = store.search(text, **kw)
        with open_reader(store.engine.url.database) as reader:
            assert reader.search(text, **kw) == found, text
        return found
    return both


def test_operators(store, sessions):
    a, b, e = sessions
    search = _search(store)
    find = lambda text, **kw: _ids(search(text, order="time", **kw))  # noqa: E731
    assert find('"cookie expires"') == [e["prompt"].id]
    assert find('"expires cookie"') == []  # a phrase keeps its order
    assert set(find("redirect OR timeout")) == {e["reply"].id, e["deploy"].id, e["grep"].id}
    assert find("cookie -redirect") == [e["prompt"].id]
    assert find("kind:tool_result") == [e["fail"].id]
    assert find("tool:Bash") == [e["call"].id] and find("tool:Grep timeout") == [e["grep"].id]
    assert find("timeout -kind:tool_call") == [e["deploy"].id]
    assert set(find("project:shop cookie")) == {e["prompt"].id, e["reply"].id}
    assert find(f"session:{b.id[:8]} timeout") == [e["grep"].id, e["deploy"].id]
    assert find("source:native has:error") == [e["fail"].id]
    assert set(find("since:2d")) == {e["deploy"].id, e["grep"].id}
    assert e["prompt"].id in find("until:2d cookie")
    assert find("source:codex cookie") == []
    ops.star(store, b.id)
    assert set(find("is:starred")) == {e["deploy"].id, e["grep"].id}
    ops.pin(store, a.id, e["reply"].id)
    assert find("is:pinned") == [e["reply"].id]
    note = ops.note_add(store, a.id, "Decided: the cookie gets a sliding expiry", e["reply"].id).detail["note"]
    hits = search("note:sliding")
    assert [(h.kind, h.event_id) for h in hits] == [("note", e["reply"].id)] and note["text"].startswith("Decided")
    assert search("sliding")[0].kind == "note"  # notes first among everything else
    assert search("sliding kind:message") == []  # a note is no message
    assert [h.kind for h in search("sliding -is:pinned")] == ["note"]  # no note is a pin: -is:pinned keeps them


def test_ranked_by_relevance_or_by_time(store, sessions):
    a, b, e = sessions
    search = _search(store)
    assert _ids(search("cookie"))[0] == e["reply"].id  # said four times: the best hit
    assert _ids(search("cookie", order="time")) == [e["reply"].id, e["prompt"].id]
    assert _ids(search("session", order="time"))[0] == e["deploy"].id  # the newest first
    with pytest.raises(InvalidInput, match="order"):
        store.search("cookie", order="colour")


def test_the_same_text_twice_in_a_session_is_one_hit(store):
    s = store.open_session(title="echoes")  # (Codex writes a reply twice: as a response item and as an event)
    store.append(s.id, "message", role="assistant", text="I will write the migration first")
    store.append(s.id, "message", role="assistant", text="I will write the   migration first")
    t = store.open_session(title="another")
    store.append(t.id, "message", role="assistant", text="I will write the migration first")
    assert len(store.search("migration")) == 2  # once in each session


@pytest.mark.parametrize("text,where", [
    ('"open phrase', "at character 1: the quote opened there is not closed"),
    ("OR cookie", "at character 1: OR needs a word on each side"),
    ("cookie OR", "at the end: OR needs a word after it"),
    ("cookie OR OR jar", "at character 11: OR needs a word on each side"),
    ("colour:red", "at character 1: there is no colour: operator"),
    ("is:lovely", "at character 4: is: takes starred or pinned"),
    ("has:", "at character 5: has: needs a value"),
    ("since:yesterday", "at character 7: 'yesterday' is not a date"),
    ("-cookie", "a search needs a word to find or a filter"),
    ("   ", "the search is empty"),
])
def test_a_query_that_does_not_parse_says_where_and_why(text, where):
    with pytest.raises(InvalidInput) as caught:
        parse(text)
    assert where in str(caught.value)


def test_a_colon_in_a_word_is_a_word():
    q = parse("see http://example.com/x")
    assert [t.text for g in q.groups for t in g] == ["see", "http://example.com/x"] and not q.filters


def test_punctuation_alone_is_left_out_as_the_indexes_leave_it():
    q = parse("flaky & | :* -!")
    assert [t.text for g in q.groups for t in g] == ["flaky"] and q.excluded == []
