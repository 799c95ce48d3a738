"""The real Claude Code (the CLI claude-agent-sdk bundles) running Sessionscope's hooks (#35): installed with
`sessionscope hooks install`, started in tmux in a scratch HOME against a loopback API that refuses every request,
it sends SessionStart, UserPromptSubmit, StopFailure (the refused request ends the turn) and SessionEnd, and
`sessionscope status` reads each as the session's state. Skips where tmux or the bundled CLI is missing."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from sessionscope.cli.main import main

KEY = "sk-ant-api03-sessionscope-loopback-key-000000000000"


def _claude() -> str | None:
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    path = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return str(path) if path.is_file() else None


pytestmark = pytest.mark.skipif(not shutil.which("tmux") or not _claude(), reason="needs tmux and the bundled claude")


class Refuse(BaseHTTPRequestHandler):
    """An API that answers every request with a 400 (not retried: the turn ends at once)."""

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps({"type": "error", "error": {"type": "invalid_request_error",
                                                      "message": "refused by the test's loopback API"}}).encode()
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST  # noqa: N815

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _api():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def _signal(db: Path, timeout: float = 60.0, **want) -> tuple:
    end = time.time() + timeout
    row = None
    while time.time() < end:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            row = conn.execute("SELECT tool, tool_session, event, detail, pid FROM live_signal").fetchone()
        if row and all(row[("tool", "tool_session", "event", "detail", "pid").index(k)] == v for k, v in want.items()):
            return row
        time.sleep(0.3)
    raise AssertionError(f"no signal {want} in {timeout:.0f} s; the last: {row}")


def _status(db: Path, home: Path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--store", str(db), "status", "--all", "--json"]) == 0
    return json.loads(out.getvalue())[0]


def test_claude_code_sends_its_states_through_our_hooks(tmp_path, monkeypatch):
    home, proj, db = tmp_path / "home", tmp_path / "proj", tmp_path / "store.db"
    (home / ".claude").mkdir(parents=True)
    proj.mkdir()
    for var in ("CLAUDE_CONFIG_DIR", "SESSIONSCOPE_STORE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--store", str(db), "hooks", "install", "--tool", "claude"]) == 0
    # an onboarded CLI that trusts the folder and the key: it asks nothing before its prompt
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "lastOnboardingVersion": "2.1.330", "numStartups": 3,
        "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
        "projects": {str(proj): {"allowedTools": [], "hasTrustDialogAccepted": True}}}))
    name = f"hooks{os.getpid()}"
    with _api() as url:
        env = {"HOME": str(home), "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url, "DISABLE_TELEMETRY": "1",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "DISABLE_ERROR_REPORTING": "1"}
        start = " ".join(f"{k}={v}" for k, v in env.items())
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", str(proj),
                        f"env {start} {_claude()}"], check=True)
        try:
            _, sid, _, _, pid = _signal(db, event="SessionStart", detail="startup")
            assert Path(f"/proc/{pid}/exe").resolve().name == "claude" or not Path("/proc").exists()
            time.sleep(1.0)  # (the prompt takes keys once drawn)
            subprocess.run(["tmux", "send-keys", "-t", name, "-l", "say hello"], check=True)
            subprocess.run(["tmux", "send-keys", "-t", name, "Enter"], check=True)
            _signal(db, event="StopFailure")  # (after UserPromptSubmit: the refused request ended the turn)
            assert main(["--store", str(db), "scan"]) == 0
            now = _status(db, home)
            assert (now["session"], now["state"], now["pid"]) == (sid, "waiting", pid)
            assert "stopped on an error" in now["why"]
            subprocess.run(["tmux", "send-keys", "-t", name, "-l", "/exit"], check=True)
            time.sleep(0.5)
            subprocess.run(["tmux", "send-keys", "-t", name, "Enter"], check=True)
            _signal(db, event="SessionEnd")
            assert _status(db, home)["state"] == "ended"
        finally:
            subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
