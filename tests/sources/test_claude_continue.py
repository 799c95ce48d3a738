"""Fork Here and Continue on a Claude Code session, up to the tool's start (#33): the fork is written as Fork
writes it, and the real `claude` (the one claude-agent-sdk bundles), started offline in a scratch home with
the command Sessionscope gives, opens that fork and sends the note as its next prompt: Claude Code appends it
to the fork's own transcript, under the fork's last line, and the original is untouched."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import orjson
import pytest

from sessionscope import ops
from sessionscope.sources.claude_code import import_paths
from sessionscope.sources.claude_code.actions import project_dir_name
from tests.sources.claude_factory import Transcript

NOTE = "-- we chose retries with jitter; now write the test for the 429 path"


def _bundled_claude() -> str:
    sdk = pytest.importorskip("claude_agent_sdk")
    path = Path(sdk.__file__).parent / "_bundled" / "claude"
    if not path.is_file():
        pytest.skip("claude-agent-sdk has no bundled claude on this platform")
    return str(path)


def _offline_home(home: Path, cwd: Path) -> dict:
    """A scratch home in which claude starts without the network: onboarded, the folder trusted."""
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "lastOnboardingVersion": "2.1.330", "numStartups": 3,
        "projects": {str(cwd): {"allowedTools": [], "hasTrustDialogAccepted": True}}}))
    keep = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_API_KEY")}
    return keep | {"HOME": str(home), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                   "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1"}


def _lines(path: Path) -> list[dict]:
    """The file's whole lines (read while claude writes it, the last may be half written: CI read one once)."""
    data = path.read_bytes()
    return [orjson.loads(raw) for raw in data[:data.rfind(b"\n") + 1].splitlines() if raw.strip()]


def test_the_fork_opens_in_claude_with_the_note_as_its_prompt(store, tmp_path, monkeypatch):
    claude = _bundled_claude()
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    home, cwd = tmp_path / "home", tmp_path / "work" / "app"
    cwd.mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    t = Transcript(session_id="aaaaaaaa-bbbb-4ccc-8ddd-00000000c0de", cwd=str(cwd))
    t.user("the client retries on 429 forever")
    cut = t.assistant("Capped it at five retries.")
    t.user("and the backoff?")
    t.assistant("Doubling, no jitter yet.")
    original = t.write(home / ".claude" / "projects" / project_dir_name(str(cwd)))
    before = original.read_bytes()
    import_paths(store, [home / ".claude" / "projects"])

    ch = ops.fork_and_continue(store, t.session_id, cut["uuid"], NOTE, "the 429 test", actor="test")
    went, fork = ch.detail["continue"], ch.session
    assert went["command"] == ["claude", "--resume", fork.id, "--", NOTE] and went["appended"] is None
    assert went["line"] == f"cd {shlex.quote(str(cwd))} && {shlex.join(went['command'])}"
    assert [a["action"] for a in store.audit_log(fork.id)][:1] == ["fork.continue"]
    forked = Path(ch.files[0])
    last = [x for x in _lines(forked) if x.get("type") in ("user", "assistant")][-1]
    assert last["message"]["content"][0]["text"] == "Capped it at five retries."

    # the tool, started as the app starts it (in the session's folder), on its bundled binary, offline
    name = f"continue{os.getpid()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", str(cwd),
                    shlex.join([claude, *went["command"][1:]])], check=True, env=_offline_home(home, cwd))
    try:
        deadline, sent = time.monotonic() + 60, None
        while time.monotonic() < deadline and sent is None:
            time.sleep(0.5)
            sent = next((x for x in _lines(forked) if x.get("type") == "user" and x.get("uuid") != last["uuid"]
                         and NOTE in json.dumps(x["message"]["content"])), None)
        screen = subprocess.run(["tmux", "capture-pane", "-t", name, "-p"], capture_output=True, text=True).stdout
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], stderr=subprocess.DEVNULL)
    assert sent is not None, f"claude did not send the note in the fork; its screen: {screen.strip()[-600:]!r}"
    # the fork's next turn: under its last line, maybe through lines claude writes between turns (a system line
    # when it cannot restore the session's model: claude-sonnet-4-5 since 2026-11-30; attachments)
    by_uuid = {x["uuid"]: x for x in _lines(forked) if x.get("uuid")}
    above = by_uuid.get(sent["parentUuid"])
    while above is not None and above.get("type") not in ("user", "assistant"):
        above = by_uuid.get(above.get("parentUuid"))
    assert above is not None and above["uuid"] == last["uuid"] and sent["sessionId"] == fork.id
    assert original.read_bytes() == before  # the session forked from is as it was
