"""`sessionscope hooks install|uninstall` (#35): Sessionscope's hooks put into Claude Code's, Codex's and Gemini CLI's
own settings files beside what is there, taken out exactly, a file that is not JSON refused untouched; and the
command installed, run through a shell as the agent runs it, keeps its signal in the store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest

from sessionscope import hook_install
from sessionscope.cli.main import main
from sessionscope.errors import InvalidInput

THEIRS = {"permissions": {"allow": ["Bash(ls:*)"]}, "model": "opus",
          "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send 'Claude' done"}]}],
                    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}]}}


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    (h / ".claude").mkdir(parents=True)
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "SESSIONSCOPE_STORE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(h))
    return h


def cli(tmp_path, *argv) -> tuple[int, str]:
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["--store", str(tmp_path / "store.db"), *argv])
    return rc, buf.getvalue()


def test_install_keeps_theirs_and_uninstall_takes_out_exactly_ours(home, tmp_path):
    settings = home / ".claude" / "settings.json"
    settings.write_text(json.dumps(THEIRS, indent=4))
    os.chmod(settings, 0o640)
    rc, text = cli(tmp_path, "hooks", "install")  # the tools found here: Claude Code alone
    assert rc == 0 and "Claude Code: add 10 hooks" in text and "Codex" not in text and "Gemini" not in text
    assert "saved as" in text and (home / ".claude" / "settings.json.sessionscope-backup").read_text() == \
        json.dumps(THEIRS, indent=4)
    data = json.loads(settings.read_text())
    assert data["permissions"] == THEIRS["permissions"] and data["model"] == "opus"
    assert data["hooks"]["Stop"][0] == THEIRS["hooks"]["Stop"][0] and len(data["hooks"]["Stop"]) == 2
    ours = data["hooks"]["PermissionRequest"][0]["hooks"][0]
    assert ours["command"].endswith(f"hook --tool claude --store {tmp_path / 'store.db'}") and ours["timeout"] == 10
    assert oct(settings.stat().st_mode & 0o777) == "0o640"

    cli(tmp_path, "hooks", "install", "--tool", "claude")  # again: ours replaced, not doubled
    again = json.loads(settings.read_text())
    assert again == data

    rc, text = cli(tmp_path, "hooks", "uninstall", "--dry-run")
    assert "would take 10 Sessionscope hooks out" in text and json.loads(settings.read_text()) == data
    rc, text = cli(tmp_path, "hooks", "uninstall")
    assert rc == 0 and json.loads(settings.read_text()) == THEIRS
    assert "Codex: no Sessionscope hooks" in text


def test_codex_and_gemini_settings(home, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooksConfig": {"enabled": False}}))
    for tool in ("codex", "gemini"):
        assert cli(tmp_path, "hooks", "install", "--tool", tool)[0] == 0
    codex = json.loads((tmp_path / "codex-home" / "hooks.json").read_text())
    assert set(codex["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
                                   "PostToolUse", "Stop"}
    gemini = json.loads((home / ".gemini" / "settings.json").read_text())
    entry = gemini["hooks"]["AfterAgent"][0]["hooks"][0]
    assert entry["name"] == "sessionscope" and entry["timeout"] == 10_000 and "--tool gemini" in entry["command"]
    rc, text = cli(tmp_path, "hooks")
    assert "Gemini CLI   installed (7 events)" in text and "hooksConfig.enabled is false" in text


def test_a_settings_file_that_is_not_json_is_left_alone(home, tmp_path):
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus",}  // a trailing comma')
    with pytest.raises(InvalidInput, match="not JSON"):
        hook_install.install(hook_install.TOOLS["claude"], str(tmp_path / "store.db"))
    assert settings.read_text() == '{"model": "opus",}  // a trailing comma'
    settings.write_text('{"hooks": ["not", "an", "object"]}')
    assert cli(tmp_path, "hooks", "install", "--tool", "claude")[0] == 2
    assert json.loads(settings.read_text()) == {"hooks": ["not", "an", "object"]}


def test_the_installed_command_runs_through_a_shell_and_keeps_the_signal(home, tmp_path):
    from sessionscope import open_store
    open_store(tmp_path / "store.db").close()
    cli(tmp_path, "hooks", "install", "--tool", "claude")
    data = json.loads((home / ".claude" / "settings.json").read_text())
    command = data["hooks"]["Notification"][0]["hooks"][0]["command"]
    event = {"session_id": "5d1c", "hook_event_name": "Notification", "notification_type": "permission_prompt",
             "message": "Claude needs your permission to use Bash"}
    done = subprocess.run(command, shell=True, input=json.dumps(event).encode(), capture_output=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    with sqlite3.connect(tmp_path / "store.db") as conn:
        assert conn.execute("SELECT tool, tool_session, event, detail FROM live_signal").fetchall() == [
            ("claude_code", "5d1c", "Notification/permission_prompt", "Claude needs your permission to use Bash")]
    rc, text = cli(tmp_path, "hooks")
    assert "last signal" in text and "(Notification/permission_prompt); 1 session(s) signalled" in text
