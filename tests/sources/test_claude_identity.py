"""History runs across every compaction; a transcript file's name is its session (as the SDK reads it)."""

from __future__ import annotations

import pytest

from sessionscope.sources.claude_code import actions as claude_actions
from sessionscope.sources.claude_code import import_paths
from tests.sources.claude_factory import Transcript

sdk = pytest.importorskip("claude_agent_sdk")


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    return tmp_path / "claude" / "projects" / "-work-app"


def test_a_compaction_naming_a_line_never_written_keeps_the_history(store, home):
    t = Transcript()
    t.user("first prompt")
    t.assistant("first answer")
    t.user("second prompt")
    before = t.assistant("second answer")["uuid"]
    t.compact("summary of the two prompts", logical_parent="0badc0de-0000-4000-8000-000000000000")
    t.user("after the compaction")
    t.assistant("third answer")
    t.write(home)
    import_paths(store, [home.parent])
    texts = [e.text for e in store.branch_view(t.session_id) if e.kind == "message"]
    assert texts == ["first prompt", "first answer", "second prompt", "second answer", "after the compaction",
                     "third answer"]
    boundary = next(e for e in store.events(t.session_id) if e.kind == "compaction")
    assert boundary.parent_id == before
    assert store.tree(t.session_id).lanes == 1  # one lane runs through the compaction


def test_a_dangling_compaction_appended_later_hangs_under_the_stored_head(store, home):
    t = Transcript()
    t.user("first prompt")
    before = t.assistant("first answer")["uuid"]
    path = t.write(home)
    import_paths(store, [home.parent])
    t.lines.clear()
    t.compact("summary", logical_parent="0badc0de-0000-4000-8000-000000000001")
    t.user("after")
    with open(path, "ab") as fh:
        fh.write(t.text().encode())
    import_paths(store, [home.parent])
    assert next(e for e in store.events(t.session_id) if e.kind == "compaction").parent_id == before
    assert [e.text for e in store.branch_view(t.session_id) if e.kind == "message"][0] == "first prompt"


def test_the_file_name_is_the_session(store, home):
    t = Transcript(session_id="aaaaaaaa-0000-4000-8000-00000000000a")
    t.user("hello")
    t.assistant("hi")
    t.write(home, "bbbbbbbb-0000-4000-8000-00000000000b.jsonl")  # lines say another sessionId
    import_paths(store, [home.parent])
    ids = [s.id for s in store.sessions()]
    assert ids == ["bbbbbbbb-0000-4000-8000-00000000000b"]
    s = store.session(ids[0])
    assert s.tool_id == s.id and claude_actions.resume_command(s) == ["claude", "--resume", s.id]
    assert [m.uuid for m in sdk.get_session_messages(s.id)] == [e.id for e in store.branch_view(s.id)
                                                                if e.kind == "message"]
    ch = claude_actions.fork(store, s.id, t.lines[-1]["uuid"])  # acts on the name the SDK knows
    assert ch.session.forked_from_session == s.id


def test_a_resumed_file_repeats_no_event(store, home):
    first = Transcript(session_id="aaaaaaaa-0000-4000-8000-0000000000a1")
    first.user("start")
    first.assistant("started")
    first.write(home)
    resumed = Transcript(session_id=first.session_id)
    resumed.lines = [dict(line) for line in first.lines]  # the copy keeps the old sessionId
    resumed.last, resumed.clock, resumed.n = first.last, first.clock, first.n
    resumed.session_id = "aaaaaaaa-0000-4000-8000-0000000000a2"
    resumed.user("go on")
    resumed.assistant("going on")
    resumed.write(home)
    import_paths(store, [home.parent])
    def messages(sid):
        return [e.id for e in store.events(sid) if not e.kind.startswith("fact.")]
    assert messages(first.session_id) == [x["uuid"] for x in first.lines]
    assert messages(resumed.session_id) == [x["uuid"] for x in resumed.lines[2:]]  # the copies are not repeated
    view = [e.id for e in store.branch_view(resumed.session_id) if e.kind == "message"]
    assert view == [x["uuid"] for x in resumed.lines]  # the continuation runs through the copied history
