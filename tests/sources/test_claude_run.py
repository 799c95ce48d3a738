"""A Claude Code session run from here (#63) by the real `claude` that claude-agent-sdk bundles, in a scratch HOME,
against a loopback server that speaks the Messages API (tests/messages_api.py): a session continued with a Bash call
the listener allows, a call it refuses, a fork at an event that the SDK itself writes, and a run stopped midway. Each
transcript is read back as claude-agent-sdk reads it (its `get_session_messages`): the store's branch holds it.
Skips where the bundled CLI is missing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from sessionscope import open_store, ops
from sessionscope.errors import InvalidInput, Refused
from sessionscope.sources.claude_code import import_paths
from sessionscope.sources.running import Answer, Quiet, RunRequest, ToolAsk
from tests.messages_api import Script, first_session, offline_env, serve, text, tool
from tests.sources.test_claude_conformance import differences

sdk = pytest.importorskip("claude_agent_sdk")
BUNDLED = Path(sdk.__file__).parent / "_bundled" / "claude"
pytestmark = pytest.mark.skipif(not BUNDLED.is_file(), reason="needs the claude that claude-agent-sdk bundles")


class Told(Quiet):
    """A listener that answers each ask with the next of `answers` and keeps what it was asked."""

    def __init__(self, *answers: Answer, store=None):
        super().__init__()
        self.answers = list(answers)
        self.asked: list[ToolAsk] = []
        self.store = store
        self.signalled: list[tuple[str, str]] = []  # the session's live signal while it was asked

    def ask(self, request: ToolAsk) -> Answer:
        self.asked.append(request)
        if self.store is not None:
            from sessionscope.live import signals
            with self.store.reader() as conn:
                said = signals.latest(conn, 0)[("claude_code", request.session_id)]
            self.signalled.append((said.event, said.detail))
        return self.answers.pop(0)


@pytest.fixture
def claude_home(tmp_path, monkeypatch):
    """A scratch HOME for `claude` and the project folder it works in; the loopback API's script is set per test."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    for name, value in offline_env(home, "http://127.0.0.1:9").items():  # (the server's address set per test)
        monkeypatch.setenv(name, value)
    return home, work


def _store_with(tmp_path, home: Path):
    store = open_store(tmp_path / "store.db")
    import_paths(store, [home / ".claude" / "projects"])
    return store


def _transcript(home: Path, sid: str) -> Path:
    return next((home / ".claude" / "projects").glob(f"*/{sid}.jsonl"))


def test_a_session_continues_with_a_call_allowed_and_one_refused(claude_home, tmp_path, monkeypatch):
    home, work = claude_home
    script = Script([text("Hello."),
                     tool("Bash", {"command": "touch made-by-claude.txt", "description": "make a file"}, "On it."),
                     text("Made it."),
                     tool("Bash", {"command": "touch refused.txt", "description": "another file"}),
                     text("Understood, I left it.")])
    with serve(script) as url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        sid = first_session(work)
        store = _store_with(tmp_path, home)
        before = store.session(sid).event_count
        told = Told(Answer(True), store=store)
        changes = ops.run(store, sid, RunRequest("make the file", model="claude-sonnet-4-5"), told)
        assert (work / "made-by-claude.txt").exists()
        assert [(a.tool, a.input["command"], a.session_id) for a in told.asked] == [
            ("Bash", "touch made-by-claude.txt", sid)]
        assert "".join(told.reply).endswith("Made it.") and ("call", "Bash touch made-by-claude.txt") in told.steps
        assert changes.session.id == sid and changes.detail["ended"] == "success"
        # while it asked, the session needed you (as a hook's PermissionRequest says it); once it ended, no more
        assert told.signalled == [("PermissionRequest", "Bash: touch made-by-claude.txt")]
        from sessionscope.live import signals
        with store.reader() as conn:
            assert signals.latest(conn, 0)[("claude_code", sid)].event == "Stop"
        assert changes.detail["asked"] == [{"tool": "Bash", "allowed": True}]
        assert store.session(sid).event_count > before  # imported as the run ended
        assert differences(store, _transcript(home, sid)) == []

        refusing = Told(Answer(False, message="not now, thanks"))
        ops.run(store, sid, RunRequest("make another"), refusing)
        assert not (work / "refused.txt").exists()
        refused = [e for e in store.branch_view(sid) if e.kind == "tool_result"][-1]
        assert "not now, thanks" in refused.text
        assert differences(store, _transcript(home, sid)) == []
    assert script.prompts()[1].endswith("make the file") and script.prompts()[3].endswith("make another")
    entries = [e for e in store.audit_log(sid) if e["action"] == "run"]
    assert [e["outcome"] for e in entries] == ["ok", "ok"] and "make the file" not in str(entries)
    store.close()


def test_a_fork_at_an_event_is_written_by_claude_and_leaves_the_session_be(claude_home, tmp_path, monkeypatch):
    home, work = claude_home
    script = Script([text("First answer."), text("Second answer."), text("The fork's own answer.")])
    with serve(script) as url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        sid = first_session(work)
        store = _store_with(tmp_path, home)
        ops.run(store, sid, RunRequest("and then?"), Quiet())
        branch = store.branch_view(sid)
        first_reply = next(e for e in branch if e.kind == "message" and e.role == "assistant")
        changes = ops.run(store, sid, RunRequest("go another way", fork=True, at=first_reply.id), Quiet())
        fork = changes.session.id
        assert fork != sid and [e.id for e in store.branch_view(sid)] == [e.id for e in branch]
        assert differences(store, _transcript(home, fork)) == []
        said = [e.text for e in store.branch_view(fork) if e.kind == "message"]
        assert "Second answer." not in said and said[-1] == "The fork's own answer."
        assert said[-2].endswith("go another way")
    store.close()


def test_a_run_stops_when_asked(claude_home, tmp_path, monkeypatch):
    home, work = claude_home
    script = Script([text("Hello."), text("A long answer that never ends", hold=True)])
    with serve(script) as url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        sid = first_session(work)
        store = _store_with(tmp_path, home)
        quiet = Quiet()
        threading.Thread(target=lambda: script.held.wait(30) and quiet.stop.set(), daemon=True).start()
        changes = ops.run(store, sid, RunRequest("go on"), quiet)
        assert changes.detail["ended"] == "interrupted"
        assert differences(store, _transcript(home, sid)) == []
    store.close()


def test_what_a_run_is_given_is_checked_before_claude_starts(tmp_path):
    from sessionscope.sources.claude_code.runner import checked
    for bad in (RunRequest(""), RunRequest("x", model="--dangerously-skip-permissions"),
                RunRequest("x", permission_mode="yolo"), RunRequest("x", allowed=("-rf",)),
                RunRequest("x", at="abc"), RunRequest("x" * 100_001)):
        with pytest.raises(InvalidInput):
            checked(bad)
    store = open_store(tmp_path / "s.db")
    native = store.open_session(title="mine").id
    with pytest.raises(Refused, match="run from here"):
        ops.run(store, native, RunRequest("hello"), Quiet())
    store.close()
