"""`sessionscope hooks install|uninstall` (#35): Sessionscope's hooks put into Claude Code's, Codex's and Gemini CLI's
own settings files beside what is there, taken out exactly, a file that is not JSON refused untouched; and the
command installed, run through a shell as the agent runs it, keeps its signal in the store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest

from sessionscope.cli.main import main
from sessionscope.errors import InvalidInput
from sessionscope.live import hook_install

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


def test_every_tool_is_done_or_refused_on_its_own_and_said(home, tmp_path, monkeypatch):
    """#58 item 12: Gemini's settings with a `//` comment (which Gemini CLI accepts) stopped the install with an
    error after Claude Code's and Codex's files had been changed, and said nothing of them."""
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    (home / ".codex").mkdir()
    (home / ".gemini").mkdir()
    gemini = home / ".gemini" / "settings.json"
    gemini.write_text('{\n  // my theme\n  "theme": "dark"\n}\n')
    rc, text = cli(tmp_path, "hooks", "install")
    assert rc == 2
    assert "Claude Code: add 10 hooks" in text and "Codex: add 6 hooks" in text
    assert "Gemini CLI: nothing changed" in text and "comments" in text
    assert gemini.read_text() == '{\n  // my theme\n  "theme": "dark"\n}\n'


def test_a_dry_run_creates_no_store_and_writes_nothing(home, tmp_path):
    store = tmp_path / "nowhere" / "store.db"
    settings = home / ".claude" / "settings.json"
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["--store", str(store), "hooks", "install", "--dry-run"])
    assert rc == 0 and "would add 10 hooks" in buf.getvalue()
    assert not store.exists() and not store.parent.exists() and not settings.exists()


def test_a_linked_settings_file_stays_a_link_and_uninstall_gives_back_the_bytes(home, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    original = json.dumps(THEIRS, indent=4).encode() + b"\n\n"  # (a layout of the user's own)
    real.write_bytes(original)
    settings = home / ".claude" / "settings.json"
    settings.symlink_to(real)
    for _ in range(3):  # installing again and again keeps the first copy of the user's bytes
        assert cli(tmp_path, "hooks", "install", "--tool", "claude")[0] == 0
    assert settings.is_symlink() and os.path.realpath(settings) == str(real)
    assert "PermissionRequest" in json.loads(real.read_text())["hooks"]
    assert (dotfiles / "claude-settings.json.sessionscope-backup").read_bytes() == original
    rc, text = cli(tmp_path, "hooks", "uninstall", "--tool", "claude")
    assert rc == 0 and "as it was before the install" in text
    assert settings.is_symlink() and real.read_bytes() == original
    assert not (dotfiles / "claude-settings.json.sessionscope-backup").exists()


def test_uninstall_takes_away_a_file_the_install_made(home, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    assert cli(tmp_path, "hooks", "install", "--tool", "codex")[0] == 0
    made = home / ".codex" / "hooks.json"
    assert made.exists()
    rc, text = cli(tmp_path, "hooks", "uninstall", "--tool", "codex")
    assert rc == 0 and not made.exists() and "the install had made, is gone" in text


def test_hook_help_says_what_it_is_without_reading_stdin(tmp_path):
    import sys
    done = subprocess.run([sys.executable, "-m", "sessionscope.cli", "hook", "--help"], stdin=subprocess.PIPE,
                          capture_output=True, timeout=30)  # (stdin left open: reading it would hang)
    assert done.returncode == 0 and b"usage: sessionscope hook --tool" in done.stdout and done.stderr == b""


def test_installing_and_uninstalling_are_in_the_audit_log(home, tmp_path):
    """#59: `hooks install` rewrote other tools' settings with no audit entry."""
    from sessionscope import open_store
    assert cli(tmp_path, "hooks", "install", "--tool", "claude")[0] == 0
    assert cli(tmp_path, "hooks", "uninstall", "--tool", "claude")[0] == 0
    with open_store(tmp_path / "store.db") as store:
        entries = [(e["action"], e["detail"]["tools"][0]["tool"], e["actor"].endswith("via cli"))
                   for e in reversed(store.audit_log()) if e["action"].startswith("hooks.")]
    assert entries == [("hooks.install", "claude", True), ("hooks.uninstall", "claude", True)]


def test_the_status_line_is_set_when_asked_runs_and_someone_elses_is_kept(home, tmp_path):
    from sessionscope import open_store
    open_store(tmp_path / "store.db").close()
    settings = home / ".claude" / "settings.json"
    settings.write_text(json.dumps(THEIRS, indent=4))
    rc, text = cli(tmp_path, "hooks", "install", "--tool", "claude")
    assert "--statusline also shows" in text and "statusLine" not in json.loads(settings.read_text())
    rc, text = cli(tmp_path, "hooks", "install", "--tool", "claude", "--statusline")
    assert rc == 0 and "status line" in text
    line = json.loads(settings.read_text())["statusLine"]
    assert line["type"] == "command" and line["command"].endswith(f"--store {tmp_path / 'store.db'} usage statusline")
    given = {"session_id": "5d1c", "model": {"display_name": "Opus"}, "cost": {"total_cost_usd": 1.5}}
    done = subprocess.run(line["command"], shell=True, input=json.dumps(given).encode(), capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.decode() == "Opus · $1.50 session · $0.00 today · no block running\n"
    rc, text = cli(tmp_path, "hooks", "uninstall")
    assert json.loads(settings.read_text()) == THEIRS  # our status line out with our hooks

    mine = {**THEIRS, "statusLine": {"type": "command", "command": "~/bin/my-line.sh"}}
    settings.write_text(json.dumps(mine))
    rc, text = cli(tmp_path, "hooks", "install", "--tool", "claude", "--statusline")
    assert "someone else's: kept" in text and json.loads(settings.read_text())["statusLine"] == mine["statusLine"]
    cli(tmp_path, "hooks", "uninstall")
    assert json.loads(settings.read_text()) == mine
