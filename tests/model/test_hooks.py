"""The agents' hooks (#35): `sessionscope hook` run as the tools run it (a real process, the hook's JSON on stdin
or, for Codex's notify, as its last argument), its signal kept in the store or spooled beside it when the store is
locked or not made yet, and the live state it gives a session: exact where the transcript only suggests."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from sessionscope.live import signals
from sessionscope.live import states as live
from sessionscope.live.processes import Proc
from sessionscope.sources.importing import import_paths
from tests.sources.claude_factory import Transcript


@pytest.fixture(autouse=True)
def _data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # a database server's spool lives in the data dir


def run_hook(args: list[str], payload: dict | str | None = None, env: dict | None = None):
    """`sessionscope hook ARGS` as an agent runs it; the process must stay silent and exit 0."""
    stdin = payload if isinstance(payload, str) or payload is None else json.dumps(payload)
    done = subprocess.run([sys.executable, "-m", "sessionscope.cli", "hook", *args], input=(stdin or "").encode(),
                          capture_output=True, timeout=60, env={**os.environ, **(env or {})})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    return done


def _rows(path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT tool, tool_session, event, detail, pid FROM live_signal ORDER BY id").fetchall()


def _claude(store, tmp_path) -> tuple[Transcript, float]:
    t = Transcript(cwd=str(tmp_path / "app"))
    t.user("run the tests")
    t.assistant(tool=("Bash", {"command": "pytest -q"}))
    folder = tmp_path / "projects" / "-app"
    t.write(folder)
    import_paths(store, [folder.parent])
    return t, store.session(t.session_id).updated_at


@pytest.mark.sqlite_only
def test_the_hook_keeps_what_each_tool_says_silently(store, tmp_path):
    """sqlite_only: the hook writes a SQLite store itself (a server's store gets the spool: below)."""
    db = store.url.removeprefix("sqlite:///")
    run_hook(["--tool", "claude", "--store", db],
             {"session_id": "c1", "transcript_path": "/t/c1.jsonl", "cwd": "/app", "hook_event_name": "PermissionRequest",
              "tool_name": "Bash", "tool_input": {"command": "rm -rf build", "description": "clean"}})
    run_hook(["--store", db], {"session_id": "g1", "hook_event_name": "Notification", "timestamp": "2026-11-26T10:00:00Z",
                               "notification_type": "ToolPermission", "message": "Allow run_shell_command?"})
    # Codex's notify program: the JSON is the last argument, and stdin is the user's terminal (not read)
    subprocess.run([sys.executable, "-m", "sessionscope.cli", "hook", "--tool", "codex", "--store", db,
                    json.dumps({"type": "agent-turn-complete", "thread-id": "x1", "turn-id": "7",
                                "last-assistant-message": "Renamed foo to bar; tests pass."})],
                   check=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    rows = _rows(db)
    assert [r[:4] for r in rows] == [
        ("claude_code", "c1", "PermissionRequest", "Bash: rm -rf build"),
        ("gemini", "g1", "Notification/ToolPermission", "Allow run_shell_command?"),
        ("codex", "x1", "agent-turn-complete", "Renamed foo to bar; tests pass.")]
    assert all(isinstance(r[4], int) for r in rows)  # the agent's process (here: the test's Python)

    # one row a session: the newest signal wins
    run_hook(["--tool", "claude", "--store", db], {"session_id": "c1", "hook_event_name": "PostToolUse",
                                                   "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})
    assert [r[2] for r in _rows(db) if r[1] == "c1"] == ["PostToolUse"]

    # bad input: still silent, exit 0, nothing stored, the log says what
    for bad in ("not json", "[1, 2]", json.dumps({"hook_event_name": "Stop"}), ""):
        run_hook(["--tool", "claude", "--store", db], bad)
    assert len(_rows(db)) == 3
    log = (tmp_path / "hook.log").read_text()
    assert "JSONDecodeError" in log and "no session id" in log


@pytest.mark.sqlite_only
def test_a_locked_store_spools_the_signal_and_the_next_drain_brings_it_in(store, tmp_path):
    """sqlite_only: a lock on the SQLite file is what the spool is for."""
    db = store.url.removeprefix("sqlite:///")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # an import's long write transaction
    try:
        run_hook(["--tool", "claude", "--store", db], {"session_id": "c2", "hook_event_name": "Stop",
                                                       "last_assistant_message": "All green."})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    spool = tmp_path / "store.db.hook-spool.jsonl"
    assert spool.exists() and _rows(db) == []
    assert "spooled a 'Stop' signal" in (tmp_path / "hook.log").read_text()
    with open(spool, "ab") as f:
        f.write(b'{"half a line\n["claude_code", 5]\n')  # damage in the spool is skipped, the rest kept
    assert signals.drain(store) == 1
    assert [r[:4] for r in _rows(db)] == [("claude_code", "c2", "Stop", "All green.")]
    assert not spool.exists() and not list(tmp_path.glob("*.draining"))
    assert signals.drain(store) == 0


@pytest.mark.sqlite_only
def test_no_store_yet_spools_and_makes_none(tmp_path):
    """sqlite_only: the store file the hook must not create."""
    target = tmp_path / "later.db"
    run_hook(["--tool", "claude", "--store", str(target)], {"session_id": "c3", "hook_event_name": "SessionStart",
                                                            "source": "startup"})
    assert not target.exists()
    from sessionscope import open_store
    with open_store(target) as store:
        assert signals.drain(store) == 1
        with store.reader() as conn:
            assert signals.latest(conn, 0)[("claude_code", "c3")].event == "SessionStart"


def test_a_servers_signals_wait_in_the_data_dirs_spool(store, tmp_path):
    """A store on a database server: `hooks install` pins "spool:" (the server's URL may hold a password)."""
    run_hook(["--tool", "gemini", "--store", "spool:"], {"session_id": "g2", "hook_event_name": "AfterAgent",
                                                         "prompt": "x", "prompt_response": "Done."})
    if store.url.startswith("sqlite"):
        assert signals.drain(store) == 0  # a SQLite store reads the spool beside it, not the server's
        return
    assert signals.drain(store) == 1
    with store.reader() as conn:
        assert signals.latest(conn, 0)[("gemini", "g2")].detail == "Done."


def test_the_hooks_signal_gives_the_exact_state(store, tmp_path):
    t, last = _claude(store, tmp_path)
    sid = t.session_id
    claude = [Proc(5151, "claude", t.cwd, last - 60, ("claude",))]

    def state(now, procs=None):
        return live.states(store, [store.session(sid)], now=now, procs=procs)[sid]

    assert state(last + 300, claude).state == "working"  # from the lines alone: a Bash call runs
    signals.record(store, "claude_code", sid, "PermissionRequest", "Bash: pytest -q", ts=last + 1, pid=5151)
    asked = state(last + 300, claude)
    assert asked.state == "needs_approval" and "permission prompt is open: Bash: pytest -q" in asked.why
    assert asked.pid == 5151 and live.states(store, now=last + 300, procs=None)[sid].state == "needs_approval"

    signals.record(store, "claude_code", sid, "Stop", "Tests pass.", ts=last + 40, pid=5151)
    assert state(last + 300, claude).state == "waiting"
    assert state(last + 300, []).state == "ended"  # claude was closed after the turn

    signals.record(store, "claude_code", sid, "SessionEnd", "prompt_input_exit", ts=last + 50)
    ended = state(last + 60, claude)
    assert ended.state == "ended" and "prompt_input_exit" in ended.why

    # the transcript went on after the hook spoke: the lines decide again
    signals.record(store, "claude_code", sid, "PermissionRequest", "Bash: pytest -q", ts=last + 70)
    t.clock = t.clock.fromtimestamp(last + 100, t.clock.tzinfo)
    t.user("[Request interrupted by user for tool use]")  # (the user said no, and Claude wrote it at +107 s)
    t.write(tmp_path / "projects" / "-app")
    import_paths(store, [tmp_path / "projects"])
    assert state(last + 130, claude).state == "waiting"

    # lines that say nothing of the turn (Claude Code's record of an API request) leave the hook's word standing
    signals.record(store, "claude_code", sid, "PermissionRequest", "Bash: make clean", ts=last + 110)
    t._env("api-request", requestId="req_1")
    t.write(tmp_path / "projects" / "-app")
    import_paths(store, [tmp_path / "projects"])
    assert store.session(sid).updated_at == last + 114
    assert state(last + 130, claude).state == "needs_approval"


def test_old_signals_are_forgotten(store):
    signals.record(store, "codex", "old", "Stop", ts=1.0)
    signals.record(store, "codex", "new", "Stop")
    signals.record(store, "codex", "new", "PreToolUse", ts=1.0)  # older than what is kept: not taken
    signals.drain(store)
    with store.reader() as conn:
        kept = signals.latest(conn, 0)
    assert set(kept) == {("codex", "new")} and kept[("codex", "new")].event == "Stop"


@pytest.mark.sqlite_only
def test_the_spool_and_the_log_follow_no_link_and_stay_private(tmp_path):
    """#58 item 11: a symlink planted at the spool's path (the store locked or not made yet) had the hook append
    its line to the link's target, which stayed 0644; hook.log was made 0644. Both are opened without following
    a link, only as this user's plain files, 0600."""
    from sessionscope.live.hook import spool_file
    target = tmp_path / "later.db"
    spool = spool_file(str(target))
    log = os.path.join(os.path.dirname(spool), "hook.log")
    victim = tmp_path / "victim.txt"
    victim.write_text("original\n")
    os.chmod(victim, 0o644)
    os.symlink(victim, spool)
    os.symlink(victim, log)
    run_hook(["--tool", "claude", "--store", str(target)], {"session_id": "c9", "hook_event_name": "Stop"})
    assert victim.read_text() == "original\n" and os.path.islink(spool) and os.path.islink(log)
    # without the links: both made, private
    os.unlink(spool)
    os.unlink(log)
    run_hook(["--tool", "claude", "--store", str(target)], {"session_id": "c9", "hook_event_name": "Stop"})
    for path in (spool, log):
        assert os.stat(path).st_mode & 0o777 == 0o600, path
