"""Live states (#35): transcripts written line by line and imported, each ending in a state; the process evidence
from a table of processes, and from a real child process named as the tool (matched by its command line)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest

from sessionscope.live import states as live
from sessionscope.live.processes import Proc
from sessionscope.sources.importing import import_paths
from tests.sources.claude_factory import Transcript
from tests.sources.codex_factory import Rollout


def _ts(line: dict) -> float:
    return dt.datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00")).timestamp()


def _state(store, sid, now, procs, tails=None):
    s = store.session(sid)
    if tails is None:
        return live.states(store, [s], now=now, procs=procs)[sid]
    kept = live.states(store, [s], now=now, procs=procs, tails=tails)[sid]  # (the window keeps the last lines)
    assert kept == live.states(store, [s], now=now, procs=procs)[sid]  # as read anew: a line written is seen
    return kept


class Claude:
    """One Claude Code transcript, written and imported a line at a time."""

    def __init__(self, store, tmp_path):
        self.store, self.t = store, Transcript(cwd=str(tmp_path / "app"))
        self.folder = tmp_path / "projects" / "-app"
        self.tails: dict = {}

    def write(self, partial: str = "") -> float:
        path = self.t.write(self.folder)
        if partial:
            with open(path, "a", encoding="utf-8") as f:
                f.write(partial)
        import_paths(self.store, [self.folder.parent])
        return _ts(self.t.lines[-1])

    def proc(self, started: float) -> Proc:
        return Proc(4242, "claude", self.t.cwd, started, ("claude",))

    def state(self, now, procs):
        return _state(self.store, self.t.session_id, now, procs, self.tails)


def test_a_claude_session_line_by_line(store, tmp_path):
    c = Claude(store, tmp_path)
    c.t.user("fix the flaky test")
    last = c.write()
    start = last - 30
    assert c.state(last + 10, []).state == "working"  # just written
    assert c.state(last + 120, [c.proc(start)]).state == "working"  # mid-turn, claude runs
    gone = c.state(last + 120, [])
    assert gone.state == "interrupted" and "no longer running" in gone.why
    assert c.state(last + 120, None).state == "working"  # processes unknown: recent enough to be on its way

    call = c.t.assistant(tool=("Bash", {"command": "pytest -q"}))
    last = c.write()
    busy = c.state(last + 300, [c.proc(start)])
    assert busy.state == "working" and "Bash call waits for its result" in busy.why and busy.pid == 4242
    assert c.state(last + 300, []).state == "interrupted"

    c.t.tool_result(call, "1 passed")
    c.t.assistant("Fixed: the fixture raced the clock.")
    last = c.write()
    assert c.state(last + 5, None).state == "waiting"  # a finished turn is your move at once
    waiting = c.state(last + 300, [c.proc(start)])
    assert waiting.state == "waiting" and "claude is open" in waiting.why
    assert c.state(last + 300, []).state == "ended"  # claude was closed after its turn
    assert c.state(last + 300, None).state == "waiting"
    assert c.state(last + 7200, None).state == "idle"
    assert c.state(last + 3 * 86400, None).state == "ended"

    c.t.user("[Request interrupted by user for tool use]")
    last = c.write()
    esc = c.state(last + 120, [c.proc(start)])
    assert esc.state == "waiting" and "interrupted the turn" in esc.why

    c.t.user("now the other test")
    last = c.write(partial='{"parentUuid": "x", "type": "assis')  # cut mid-line: the writer died there
    cut = c.state(last + 120, [])
    assert cut.state == "interrupted" and "half-written line" in cut.why


def test_a_codex_session_says_its_turn_itself(store, tmp_path):
    r = Rollout("019c0000-0000-7000-8000-00000000c0de", cwd=str(tmp_path))
    r.turn("add a test", "added", call=("shell", '{"command": ["pytest"]}', "ok"))
    r.add("event_msg", {"type": "task_complete", "turn_id": "t1", "last_agent_message": "added"})
    folder = tmp_path / "sessions"
    r.write(folder)
    import_paths(store, [folder])
    sid = store.sessions()[0].id
    last = _ts(r.lines[-1])
    proc = Proc(7, "codex", str(tmp_path), last - 60, ("codex",))
    done = _state(store, sid, last + 600, [proc])
    assert done.state == "waiting" and "Codex finished the task" in done.why
    r.add("event_msg", {"type": "task_started", "turn_id": "t2"})
    r.write(folder)
    import_paths(store, [folder])
    assert _state(store, sid, last + 600, [proc]).state == "working"
    r.add("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
    r.write(folder)
    import_paths(store, [folder])
    assert _state(store, sid, last + 600, [proc]).state == "waiting"


def test_a_native_session_and_a_closed_one(store):
    """A session an agent writes through the store has no process to look for: who spoke last, and the time."""
    s = store.open_session(title="native")
    store.append(s.id, "message", role="user", text="hello")
    now = store.session(s.id).updated_at
    assert _state(store, s.id, now + 5, []).state == "working"
    assert _state(store, s.id, now + 600, []).state == "working"  # the prompt waits for the agent
    late = _state(store, s.id, now + 3600, [])
    assert late.state == "interrupted" and "wrote nothing for 60 min" in late.why
    store.append(s.id, "message", role="assistant", text="hi")
    now = store.session(s.id).updated_at
    assert _state(store, s.id, now + 600, []).state == "waiting"
    assert _state(store, s.id, now + 7200, []).state == "idle"
    store.close_session(s.id)
    assert _state(store, s.id, now + 5, []).state == "ended"


@pytest.mark.sqlite_only
def test_the_tools_real_process_is_found_by_its_command_line(store, tmp_path):
    """A child process named `claude` (Python under that name) holding the session's id on its command line:
    found in the real process table; once it is gone, the session is ended, not waiting."""
    pytest.importorskip("psutil")
    c = Claude(store, tmp_path)
    c.t.user("explain the cache")
    c.t.assistant("It memoizes lookups.")
    c.write()
    (tmp_path / "bin").mkdir()
    claude = tmp_path / "bin" / "claude"
    os.symlink(sys.executable, claude)
    child = subprocess.Popen([str(claude), "-c", "import time; time.sleep(60)", "--resume", c.t.session_id])
    try:
        import psutil
        psutil.Process(child.pid).cmdline()  # started
        found = live.states(store, [store.session(c.t.session_id)])[c.t.session_id]
        assert found.state == "waiting" and found.pid == child.pid, found
    finally:
        child.kill()
        child.wait()
    gone = live.states(store, [store.session(c.t.session_id)])[c.t.session_id]
    assert gone.state == "ended" and gone.pid is None


def test_a_pass_over_every_session_decides_as_one_by_one(store, tmp_path):
    """The window's pass ends the sessions of more than a day ago by their age without reading them, and reads
    the others closely: every state is what deciding each session on its own gives, whether a process names an
    old session, works in its folder since before it was written, or no process is known."""
    old, new = Claude(store, tmp_path / "old"), Claude(store, tmp_path / "new")
    old.t.user("an old question")
    old.t.assistant("an old answer")
    then = old.write()
    new.t.clock += dt.timedelta(days=3)
    new.t.user("a new question")
    last = new.write()
    native = store.open_session(title="native, ended long ago")
    store.close_session(native.id)
    now = last + 600
    sessions = store.sessions(limit=None)
    assert len(sessions) == 3
    named = Proc(31, "claude", "/elsewhere", then - 9 * 86400, ("claude", "--resume", old.t.session_id))
    folder = Proc(32, "claude", old.t.cwd, then - 60, ("claude",))
    tails, ended = {}, {}  # (kept from pass to pass, as the window keeps them)
    for procs in ([], None, [named], [folder], [named, folder], []):
        every = live.states(store, now=now, procs=procs)
        assert every == live.states(store, sessions, now=now, procs=procs), procs
        assert every == live.states(store, now=now, procs=procs, tails=tails, ended=ended), procs
        assert list(every) == [s.id for s in sessions]  # newest first, as the list
    assert set(ended) == {old.t.session_id}  # (the native one was written after `now`: read closely)
    later = live.states(store, now=now + 5 * 86400, procs=[], tails=tails, ended=ended)  # its age said anew
    assert later == live.states(store, sessions, now=now + 5 * 86400, procs=[])
    assert "nothing written for 8 days" in later[old.t.session_id].why
    assert live.states(store, now=now, procs=[])[old.t.session_id].state == "ended"
    assert live.states(store, now=now, procs=[named])[old.t.session_id].pid == 31  # (named: read closely)
    assert live.states(store, now=now, procs=[folder])[old.t.session_id].pid == 32  # (its folder's process)
    assert live.states(store, now=now, procs=None)[new.t.session_id].state == "working"  # (processes unknown)
