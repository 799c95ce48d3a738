"""Live states (#35) on the real transcripts in ../shared/corpus (skipped when it is absent): every Claude Code,
Codex and Gemini CLI session there is read by its tool's rule (Source.turn) and ends in the state its last lines
and its tool's process explain, five minutes after its last line, with the tool running and gone."""

from __future__ import annotations

import pytest

from sessionscope import open_store, sources
from sessionscope.live import states as live
from sessionscope.live.processes import Proc
from sessionscope.sources.importing import import_paths

FOLDERS = ("claude-code", "codex", "gemini-cli")
# what the lines say → the state with the tool gone, and with it running
EXPECTED = {"tool": ("interrupted", "working"), "answering": ("interrupted", "working"), "ended": ("ended", "waiting"),
            "aborted": ("ended", "waiting"), None: ("idle", "idle")}


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory):
    from tests.conftest import CORPUS
    if not all((CORPUS / f).is_dir() for f in FOLDERS):
        pytest.skip("../shared/corpus is not on this machine")
    store = open_store(tmp_path_factory.mktemp("live") / "store.db")
    import_paths(store, [CORPUS / f for f in FOLDERS])
    yield store
    store.close()


def test_every_corpus_session_ends_in_the_state_its_lines_explain(corpus_store):
    store = corpus_store
    sessions = [s for s in store.sessions(limit=None) if s.source_kind in ("claude_code", "codex", "gemini")]
    assert {s.source_kind for s in sessions} == {"claude_code", "codex", "gemini"}
    seen = set()
    with store.reader() as conn:
        turns = {s.id: sources.of(s.source_kind).turn(live._tail(conn, s.id)) for s in sessions}
    for s in sessions:
        turn = turns[s.id]
        where = turn.where if turn else None
        seen.add((s.source_kind, where))
        program = sources.of(s.source_kind).programs[0]
        running = [Proc(777, program, "", s.updated_at - 60, (program, "--resume", s.tool_id or s.id))]
        now = s.updated_at + 300
        gone, there = (live.states(store, [s], now=now, procs=procs)[s.id] for procs in ([], running))
        assert (gone.state, there.state) == EXPECTED[where], (s.source_kind, s.title, turn, gone, there)
        assert there.pid == (777 if where is not None or there.state != "idle" else there.pid)
        assert gone.why and gone.why.isprintable()
    # the corpus holds every kind of ending: a finished turn in each tool, a prompt or a result waiting, a call left
    assert {("claude_code", "ended"), ("codex", "ended"), ("gemini", "ended"), ("claude_code", "tool"),
            ("codex", "tool"), ("claude_code", "answering"), ("claude_code", "aborted")} <= seen


def test_the_corpus_tool_call_left_pending_is_read_as_such(corpus_store):
    """agentsview's claude-tool_call_pending: a Read call whose result never came."""
    store = corpus_store
    s = next(s for s in store.sessions(limit=None) if s.title == "Read auth.ts")
    with store.reader() as conn:
        turn = sources.of(s.source_kind).turn(live._tail(conn, s.id))
    assert (turn.where, turn.why) == ("tool", "a Read call waits for its result")
    state = live.states(store, [s], now=s.updated_at + 300, procs=[])[s.id]
    assert state.state == "interrupted" and "claude is no longer running" in state.why


def test_codex_says_its_turn_itself_in_the_corpus(corpus_store):
    store = corpus_store
    with store.reader() as conn:
        whys = {sources.of("codex").turn(live._tail(conn, s.id)).why
                for s in store.sessions(limit=None) if s.source_kind == "codex"
                if sources.of("codex").turn(live._tail(conn, s.id)) is not None}
    assert "Codex finished the task" in whys
