"""Sessions with little of their own (#57): one reply and nothing else, Claude Code 2.0's "Warmup" stubs, and no row
of the list without a title where the session has text."""

from __future__ import annotations

from sessionscope import open_store
from sessionscope.sources import importing
from sessionscope.sources.claude_code import import_paths
from tests.sources.claude_factory import Transcript


def test_a_session_of_one_reply_is_named_by_it(store, tmp_path):
    t = Transcript()
    t.assistant("The migration ran: 14 tables moved, none left behind.", parent=None)
    t.write(tmp_path / "projects" / "-w")
    import_paths(store, [tmp_path / "projects"])
    assert store.session(t.session_id).title == "The migration ran: 14 tables moved, none left behind."


def test_a_name_the_tool_gives_later_wins_over_the_first_reply(store, tmp_path):
    t = Transcript()
    t.assistant("Ready when you are.", parent=None)
    path = t.write(tmp_path / "projects" / "-w")
    import_paths(store, [tmp_path / "projects"])
    t.user("rename the module")
    t.meta("custom-title", customTitle="Module rename")
    path.write_text(t.text())
    import_paths(store, [tmp_path / "projects"])
    assert store.session(t.session_id).title == "Module rename"


def _warmup(session_id: str, agent: str) -> Transcript:
    stub = Transcript(session_id=session_id)
    stub.user("Warmup", parent=None)
    stub.assistant("I'm ready to help.")
    for line in stub.lines:
        line.update(isSidechain=True, agentId=agent)
    return stub


def test_warmup_stubs_stay_under_the_session_that_made_them(store, tmp_path):
    """Claude Code 2.0 wrote a flat agent-<id>.jsonl "Warmup" stub for each subagent at start, its sessionId the main
    session's: under that session it is kept (a subagent run); a stub whose session left no transcript is no row."""
    project = tmp_path / "projects" / "-w"
    main = Transcript()
    main.user("fix the build")
    main.assistant("fixed")
    main.write(project)
    _warmup(main.session_id, "3be551df").write(project, "agent-3be551df.jsonl")
    alone = _warmup("14653a8a-9a1b-4299-8e64-c0aa4b772c1d", "41b9470d")
    alone.write(project, "agent-41b9470d.jsonl")
    report = import_paths(store, [project])
    assert report.problems == []
    assert [s.id for s in store.sessions()] == [main.session_id]
    assert [e.text for e in store.branch_view(main.session_id)] == ["fix the build", "fixed"]
    kept = [e for e in store.events(main.session_id) if e.sidechain]
    assert [(e.text, e.agent_id) for e in kept] == [("Warmup", "3be551df"), ("I'm ready to help.", "3be551df")]


def test_no_untitled_row_where_the_session_has_text(corpus, tmp_path):
    store = open_store(tmp_path / "corpus.db")
    importing.import_paths(store, [corpus])
    untitled = [(s.source_kind, s.tool_id) for s in store.sessions() if not (s.title or "").strip() and any(
        e.kind == "message" and e.text.strip() for e in store.events(s.id))]
    assert untitled == []
    assert not any(s.title == "Warmup" for s in store.sessions())
    store.close()
