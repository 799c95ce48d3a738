"""Every command's --json output has one shape, whatever the input (the manual: "JSON output")."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from sessionscope.cli.main import main
from sessionscope.cli.parser import COMMANDS, build_parser
from sessionscope.cli.shapes import SHAPES, SessionVerified, keys
from sessionscope.history.read_models import EventView, SessionView
from tests.sources import checkpoint_home
from tests.sources.codex_factory import Rollout

SESSION, EVENT = keys(SessionView), keys(EventView)
VERIFIED = keys(SessionVerified)


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    empty = tmp_path / "empty-home"
    empty.mkdir()
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "SESSIONSCOPE_STORE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(empty))
    seen = defaultdict(list)

    def cli(*argv, code=0):
        rc = main(["--store", str(tmp_path / "s.db"), *argv, "--json"])
        got = capsys.readouterr()
        assert rc == code, got.err
        data = json.loads(got.out)
        seen["note list" if argv[:2] == ("note", "list") else "stats sessions" if argv[:2] == ("stats", "sessions") else
             "usage blocks" if argv[:2] == ("usage", "blocks") else
             "hooks change" if argv[0] == "hooks" and argv[1:2] != ("status",) and len(argv) > 1 else argv[0]].append(data)
        return data
    cli.seen = seen
    return cli


def _check(command: str, data) -> None:
    shape = SHAPES[command]
    items = data if shape.many else [data]
    assert isinstance(data, list if shape.many else dict), (command, data)
    for item in items:
        assert set(item) == shape.keys(), (command, set(item) ^ shape.keys())
        if isinstance(item.get("session"), dict):
            assert set(item["session"]) == SESSION, command
        for e in item.get("events", []) if command == "show" else item.get("transcript", []):
            assert set(e) == EVENT, command
        if command == "verify":
            assert all(set(s) == VERIFIED for s in item["sessions"])


def test_every_command_prints_one_documented_shape(run, tmp_path, monkeypatch):
    # a native session, through every command that writes or reads one
    s = run("new", "--title", "shapes", "--budget", '{"tokens": 1000}')["id"]
    first = run("append", s, "--kind", "message", "--role", "user", "--text", "find the cookie bug")["id"]
    run("append", s, "--kind", "tool_call", "--payload", '{"name": "Bash", "input": {"command": "ls"}}')
    run("fact", "set", s, "plan", '["look", "fix"]')
    run("fact", "delete", s, "plan")
    run("facts", s), run("facts", first)
    fork = run("fork", s, "--at", first)
    assert fork["file"] is None and fork["session"]["forked_from_event"] == first  # store-native: no file
    assert fork["continue"] is None
    went = run("fork", s, "--at", first, "--continue", "now the cookie's expiry")
    # a store-native fork: the note is its next message, here
    assert went["continue"]["command"] is None and went["continue"]["appended"]
    assert went["session"]["event_count"] == 1 and went["continue"]["line"] == f"sessionscope resume {went['session']['id']}"
    run("diff", s, fork["session"]["id"])
    moved = run("rewind", s, "--to", first)
    assert moved["moved"] and moved["session"]["head_event_id"] == first
    run("compact", s, "--summary", "so far")
    native = run("resume", s)
    assert native["command"] is None and native["transcript"][0]["text"] == "so far"
    run("list"), run("list", "--all", "--filter", "no such title")
    run("show", s), run("show", s, "--branch")
    run("search", "cookie"), run("search", "nothing-matches-this")
    assert run("drift") == []  # a store of native sessions: everything understood
    assert [(o["name"], o["calls"]) for o in run("stats", "tools")] == [("Bash", 1)]
    assert [(v["session"], v["calls"]) for v in run("stats", "sessions", s)] == [(s, 1)]
    assert s in [v["session"] for v in run("stats", "sessions", "--since", "1d")]
    assert run("usage", "daily")["by"] == "day" and run("usage", "blocks")["tool"] == "claude_code"
    # a file a native session wrote, in a git repository with one commit
    import subprocess
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\ny = 2\n")
    run("append", s, "--kind", "tool_call", "--payload",
        json.dumps({"name": "Write", "input": {"file_path": str(repo / "a.py"), "content": "x = 1\ny = 2\n"}}))
    blamed = run("blame", f"{repo / 'a.py'}:2")
    assert [(x["number"], x["session"]) for x in blamed["lines"]] == [(2, s)] and blamed["changes"][0]["op"] == "write"
    if subprocess.run(["git", "-C", str(repo), "init", "-q"], capture_output=True).returncode == 0:
        subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q",
                        "--allow-empty", "-m", "one"], check=True)
        assert [c["subject"] for c in run("commits", str(repo))] == ["one"]
    else:
        run.seen["commits"].append([])  # (no git on this machine: the command is tried in tests/model/test_blame.py)
    # a SQLite store has no team rules: `team status` says so (the rules are tried on a server in test_team_rules)
    assert run("team", "status") == {"login": "", "admin": False, "rules_on": False, "owner": True, "members": [],
                                     "projects": [], "done": []}
    now = {r["session"]: r["state"] for r in run("status")}
    assert now[s] == "working" and set(now) <= {r["session"] for r in run("status", "--all")}
    run("rename", s, "renamed"), run("tag", s, "a", "b")
    assert run("tag", s, "--add", "c", "--remove", "a")["tags"] == ["b", "c"]  # the others kept
    assert run("tags") == [{"tag": "b", "sessions": 1}, {"tag": "c", "sessions": 1}]
    assert [x["id"] for x in run("list", "--tag", "c")] == [s] and run("list", "--tag", "a") == []
    assert run("star", s)["starred"] and [x["id"] for x in run("list", "--starred")] == [s]
    assert not run("star", s, "--off")["starred"] and run("list", "--starred") == []
    event = run("show", s)["events"][0]["id"]
    assert [p["event_id"] for p in run("pin", s, event[:12])["pins"]] == [event]
    assert [p["event_id"] for p in run("pins")] == [event] and [x["id"] for x in run("list", "--pinned")] == [s]
    assert run("pin", s, event, "--off")["pins"] == [] and run("pins", s) == []
    made = run("note", "add", s, "We chose **retries**", "--event", event[:12])
    assert made["event_id"] == event and run("note", "edit", made["id"][:8], "retries, with jitter")["text"] == \
        "retries, with jitter"
    assert [n["id"] for n in run("note", "list", s)] == [made["id"]] == [n["id"] for n in run("note", "list")]
    assert run("search", "jitter")[0]["kind"] == "note"
    run("note", "rm", made["id"]), run("note", "list")
    _meaning(run, s, tmp_path)
    run("pause", s), run("close", s), run("archive", s), run("unarchive", s)
    run("verify"), run("verify", s)
    export = tmp_path / "s.jsonl"
    run("export", s, "-f", "jsonl", "-o", str(export), "--no-redact")
    run("verify", str(export))
    run("redaction"), run("redaction", "--add", r"TICKET-\d+")
    run("retention"), run("retention", "--archive-after", "30", "--run", "--dry-run")
    run("audit"), run("audit", s)
    team = tmp_path / "team.db"
    run("sync", "status"), run("sync", "share", s)
    from sessionscope import open_store
    open_store(team).close()  # (a team store to sync to: made first, never by a sync)
    assert run("sync", "--to", str(team))["report"]["pushed"] == [s]

    # a Claude Code session, through the commands that act in its tool
    run("scan")  # nothing in the default places yet: the same shape, with no roots
    home = checkpoint_home.build(tmp_path / "cc")
    monkeypatch.setenv("HOME", str(home.claude.parent))
    found = run("scan")
    assert found["roots"] and found["events_added"]
    c, p1 = home.t.session_id, home.prompts["p1"]
    run("import", str(export), str(home.claude / "projects"))  # an export and transcripts, one report
    assert run("import", str(home.claude / "projects"))["exports"] == []
    rollout = Rollout("019c0000-0000-7000-8000-0000000000f1")
    rollout.turn("hi", "hello")
    rollout.add("response_item", {"type": "hologram_call"})  # a shape newer than the reader: listed by drift
    run("import", str(rollout.write(tmp_path / "codex")))
    assert [d["shape"] for d in run("drift")] == ["response_item/hologram_call"]
    tool = run("resume", c)
    assert tool["command"][-1] == c and tool["transcript"] == []
    written = run("fork", c, "--at", p1)
    assert written["file"] and written["resume"].endswith(written["session"]["id"])
    went = run("fork", c, "--at", p1, "--continue", "-v: a prompt, not an option")
    assert went["continue"]["command"] == ["claude", "--resume", went["session"]["id"], "--",
                                           "-v: a prompt, not an option"]
    assert went["continue"]["appended"] is None and went["file"]
    run("rewind", c, "--to", p1)
    run("restore-files", c, "--to", p1, "--dry-run")
    run("restore-files", c, "--to", p1, "--only", "a.py", "--yes")
    run("restore-files", c, "--undo", "--yes")
    (home.claude / "projects" / "-proj" / f"{c}.jsonl").unlink()  # Claude Code deleted it; we kept it
    for written_back in run("write-back", c)["written"]:
        Path(written_back).unlink()
    run("restore", c)
    run("delete", fork["session"]["id"], "--yes")
    _managed(run)
    made = run("backup")["made"]
    assert run("backup", "--list")["backups"][0] == made
    assert run("backup", "--restore", made["path"], "--yes")["kept"]["kind"] == "before-restore"
    assert run("repair", "--yes")["lost"] == {}
    _hooks(run, tmp_path)
    _run_agent(run, tmp_path, monkeypatch)
    assert len(run("install-desktop")["files"]) == 3
    assert run("install-desktop", "--uninstall")["uninstalled"] is True

    for command, outputs in run.seen.items():
        for data in outputs:
            _check(command, data)
    build_parser()
    assert set(run.seen) | {"open"} == set(SHAPES)  # every command tried, and documented here
    # ("note list" is note's one listing; `mcp` speaks the Model Context Protocol's JSON-RPC on stdout, with
    # shapes of its own: tests/test_mcp.py drives it; `hook` prints nothing, ever: tests/model/test_hooks.py)
    # (`open` needs a window to answer it: tests/gui/test_open_by_id.py runs it against a real one, checking its shape)
    assert {name.split()[0] for name in SHAPES} | {"mcp", "hook"} == COMMANDS
    several = {"scan", "import", "resume", "verify", "retention", "fork", "rewind", "restore-files", "facts", "pull",
               "delete", "archive"}
    assert [c for c in several if len(run.seen[c]) < 2] == []


def _hooks(run, tmp_path) -> None:
    """The agents' hooks in their settings (the HOME here is the Claude Code home above)."""
    assert [r["events"] for r in run("hooks", "status")] == [[], [], []]
    added = run("hooks", "install", "--tool", "claude")
    assert added[0]["written"] and "PermissionRequest" in added[0]["events"]
    assert run("hooks", "install", "--tool", "claude", "--dry-run")[0]["removed"] == len(added[0]["events"])
    assert run("hooks")[0]["events"] == sorted(added[0]["events"])
    assert run("hooks", "uninstall")[0]["removed"] == len(added[0]["events"])


def _run_agent(run, tmp_path, monkeypatch) -> None:
    """A Claude Code session run on by the `claude` claude-agent-sdk bundles, against a loopback Messages API: no
    terminal here, so only the tool --allow names is allowed."""
    from tests.messages_api import Script, first_session, offline_env, serve, text, tool
    work = tmp_path / "work"
    work.mkdir()
    script = Script([text("Hello."), tool("Bash", {"command": "touch ran.txt"}), text("Done."),
                     tool("Write", {"file_path": str(work / "no.txt"), "content": "x"}), text("Left it.")])
    with serve(script) as url:
        for name, value in offline_env(Path.home(), url).items():
            monkeypatch.setenv(name, value)
        sid = first_session(work)
        run("scan")
        ran = run("run", sid[:8], "--prompt", "make it", "--allow", "Bash")
        refused = run("run", sid, "--prompt", "write it")
    assert ran["run"]["ended"] == "success" and ran["reply"].endswith("Done.") and (work / "ran.txt").exists()
    assert ran["session"]["id"] == sid and ran["run"]["asked"] == [{"tool": "Bash", "allowed": True}]
    assert refused["run"]["asked"] == [{"tool": "Write", "allowed": False}] and not (work / "no.txt").exists()


def _meaning(run, s, tmp_path) -> None:
    """Search by meaning, with a tiny model in model2vec's format (tests/semantic_model.py)."""
    from tests.semantic_model import build
    assert run("semantic")["enabled"] is False
    model = str(build(tmp_path / "model"))
    on = run("semantic", "on", "--model", model, "--tool-output")
    assert (on["enabled"], on["model"], on["tool_output"], on["fetched"]) == (True, model, True, True)
    assert run("embed")["embedded_now"] > 0 and run("embed")["embedded_now"] == 0
    other = run("new", "--title", "other")["id"]
    run("append", other, "--kind", "message", "--role", "user", "--text", "a cache for the cookies")
    assert run("embed")["embedded_now"] == 1
    assert other in [x["session_id"] for x in run("similar", s)]
    assert run("search", "memoize")[0]["match"] == "meaning"
    assert run("semantic", "off")["enabled"] is False


def _managed(run) -> None:
    """The managed-agent commands, against the loopback API (and archive, delete through it)."""
    import os

    from tests.managed.api_server import KEY, Workspace, sample, serve

    ws = Workspace()
    ids = sample(ws)
    os.environ["ANTHROPIC_API_KEY"] = KEY  # the fixture's monkeypatch would do; this test restores it itself
    try:
        with serve(ws) as url:
            pulled = run("pull", "--base-url", url)
            assert set(pulled["sessions"]) == set(ids.values()) and pulled["workspaces"] == [url]
            assert run("pull", "--session", ids["idle"])["files_read"] == 0  # nothing new in it
            sent = run("send", ids["idle"], "And Q2?")
            assert sent["session"]["status"] == "running" and sent["events_added"] == 2
            assert run("interrupt", ids["idle"])["session"]["status"] == "idle"
            os.environ["ANTHROPIC_BASE_URL"] = url  # Summarize asks the API the environment names
            shown = run("summarize", ids["idle"], "--show")
            assert shown["note"] is None and ws.messages == [] and "And Q2?" in shown["sent"]
            made = run("summarize", ids["idle"], "--yes")
            assert made["note"]["generated_by"] == "claude-haiku-4-5" and made["title"] == "A loopback title"
            assert ws.messages[0]["messages"][0]["content"] == made["sent"] == shown["sent"]
            assert run("key", "--base-url", url)["key_from"] == "the environment (ANTHROPIC_API_KEY)"
            assert run("archive", ids["terminated"])["status"] == "archived"
            assert run("delete", ids["idle"], "--yes")["events_removed"] == 0  # at Anthropic; the copy kept
            assert run("delete", ids["idle"], "--yes")["events_removed"] > 0  # then the copy
            run("interrupt", ids["running"])
    finally:
        del os.environ["ANTHROPIC_API_KEY"]
        os.environ.pop("ANTHROPIC_BASE_URL", None)


def test_errors_go_to_stderr_and_stdout_stays_empty(run, capsys, tmp_path):
    rc = main(["--store", str(tmp_path / "s.db"), "show", "no-such-session", "--json"])
    got = capsys.readouterr()
    assert rc == 2 and got.out == "" and got.err.startswith("sessionscope: error: ")


def _first_braces(text: str) -> set[str] | None:
    """The keys of the first `{…}` of a manual's row (nested parts left out), or None."""
    start = text.find("{")
    if start < 0:
        return None
    depth, inner, i = 0, [], start
    for i, ch in enumerate(text[start:], start):
        depth += ch in "{[" and 1 or ch in "}]" and -1 or 0
        if depth == 1 and ch not in "{":
            inner.append(ch)
        if depth == 0:
            break
    return {part.split(":")[0].strip() for part in "".join(inner).split(",") if part.strip()}


def test_the_manual_gives_each_command_the_keys_of_its_declared_shape():
    """The manual's "JSON output" table comes from the same shapes: each row's keys are its command's."""
    from tests.conftest import REPO
    text = (REPO / "resources" / "manual" / "command-line.md").read_text()
    section = text[text.index("## JSON output"):]
    said_session = re.search(r"A \*session\* is `\{([^}]*)\}`", section.replace("\n", " "))
    assert said_session and {k.strip() for k in said_session.group(1).split(",")} == SESSION
    said_event = re.search(r"an\s+\*event\* is `\{([^}]*)\}`", section.replace("\n", " "))
    assert said_event and {k.strip() for k in said_event.group(1).split(",")} == EVENT
    names = {"stats tools": "stats", "hooks status": "hooks", "hooks install": "hooks change",
             "hooks uninstall": "hooks change", "note add": "note", "note edit": "note", "note rm": "note",
             "fact set": "fact", "fact delete": "fact"}
    checked = set()
    for row in re.findall(r"^\| (`[^|]+) \| (.+) \|$", section, flags=re.M):
        commands = [names.get(c, c) for c in re.findall(r"`([a-z -]+)`", row[0])]
        said = _first_braces(row[1])
        for command in commands:
            if command not in SHAPES or said is None:
                continue
            declared = SHAPES[command].keys()
            assert said <= declared if "plus" in row[1] else said == declared, (command, said ^ declared)
            checked.add(command)
    assert len(checked) >= 35, sorted(set(SHAPES) - checked)
