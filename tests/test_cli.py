"""The command line end to end, in real processes on a real store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from sessionscope.store import payloads
from tests.conftest import REPO


@pytest.fixture
def cli(tmp_path):
    env = {**os.environ, "SESSIONSCOPE_STORE": str(tmp_path / "cli.db")}

    def run(*args, ok=True):
        out = subprocess.run([sys.executable, "-m", "sessionscope.cli", *args], cwd=REPO, env=env,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if ok:
            assert out.returncode == 0, out.stderr
        return out
    run.db = tmp_path / "cli.db"
    return run


def _json(out):
    return json.loads(out.stdout)


def test_full_lifecycle_through_the_cli(cli):
    sid = cli("new", "--title", "cli session", "--budget", '{"tokens": 100}', "--tag", "x").stdout.strip()
    e1 = _json(cli("append", sid, "--kind", "message", "--role", "user", "--text", "hello cli", "--json"))
    assert e1["seq"] == 1
    cli("append", sid[:8], "--kind", "tool_call", "--payload", '{"name": "Bash"}', "--tokens-in", "30")
    cli("fact", "set", sid, "plan", '["a"]')
    cli("fact", "set", sid, "owner", "alice")
    cli("fact", "delete", sid, "owner")
    assert _json(cli("facts", sid, "--json"))["facts"] == {"plan": ["a"]}
    rows = _json(cli("list", "--json"))
    assert rows[0]["id"] == sid and rows[0]["event_count"] == 5 and rows[0]["tags"] == ["x"]
    assert "cli session" in cli("list").stdout
    shown = _json(cli("show", sid, "--from-seq", "2", "--to-seq", "3", "--json"))
    assert [e["seq"] for e in shown["events"]] == [2, 3]
    assert _json(cli("show", sid, "--since", "1h", "--json"))["events"]
    assert _json(cli("show", sid, "--until", "2000-01-01T00:00:00Z", "--json"))["events"] == []
    fork = cli("fork", sid, "--at", e1["id"], "--title", "alt").stdout.strip()
    cli("fact", "set", fork, "plan", '["b"]')
    d = _json(cli("diff", sid, fork, "--json"))
    assert d["changed"] == {"plan": {"old": ["a"], "new": ["b"]}}
    assert _json(cli("rewind", sid, "--to", e1["id"], "--json"))["session"]["head_event_id"] == e1["id"]
    cli("compact", sid, "--summary", "so far: hello")
    ctx = _json(cli("resume", sid, "--json"))
    assert ctx["transcript"][0]["text"] == "so far: hello" and ctx["budget_left"] == {"tokens": 70}
    hits = _json(cli("search", "hello", "--json"))
    assert {h["session_id"] for h in hits} == {sid}
    assert "[hello]" in cli("search", "hello").stdout
    assert "all chains intact" in cli("verify").stdout
    cli("close", sid)
    cli("archive", sid)
    assert sid not in cli("list").stdout and sid[:8] in cli("list", "--all").stdout
    cli("unarchive", sid)
    cli("rename", sid, "renamed")
    cli("tag", sid, "a", "b")
    assert _json(cli("list", "--json", "--filter", "renamed"))[0]["tags"] == ["a", "b"]
    assert "retention" not in cli("audit").stdout
    assert "purge archived after never" in cli("retention").stdout
    cli("retention", "--archive-after", "30", "--purge-after", "off", "--run")
    actions = [r["action"] for r in _json(cli("audit", "--json"))]
    assert {"open", "fork", "rewind", "compact", "resume", "close", "archive", "unarchive", "rename",
            "tag", "retention.policy", "retention"} <= set(actions)
    cli("delete", fork, "--yes")
    cli("delete", sid, "--yes")
    assert _json(cli("list", "--all", "--json")) == []


@pytest.mark.parametrize("args, code, message", [
    (["show", "nope"], 2, "no session with id 'nope'"),
    (["append", "nope", "--kind", "m"], 2, "no session"),
    (["facts", "nope"], 2, "no session"),
    (["search", " "], 2, "the search is empty"),
    (["retention", "--archive-after", "soon"], 2, "not a number of days"),
])
def test_errors_are_one_line(cli, args, code, message):
    out = cli(*args, ok=False)
    assert out.returncode == code
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_refusals_exit_1(cli):
    sid = cli("new").stdout.strip()
    cli("archive", sid)
    out = cli("append", sid, "--kind", "message", ok=False)
    assert out.returncode == 1 and "archived; unarchive it first" in out.stderr
    out = cli("delete", sid, ok=False)
    assert out.returncode == 2 and "--yes" in out.stderr


def test_bad_json_argument_is_a_usage_error(cli):
    sid = cli("new").stdout.strip()
    out = cli("append", sid, "--kind", "m", "--payload", "{oops", ok=False)
    assert out.returncode == 2 and "not valid JSON" in out.stderr


def test_verify_names_the_broken_event_and_exits_1(cli):
    sid = cli("new").stdout.strip()
    ids = [_json(cli("append", sid, "--kind", "message", "--text", f"m{i}", "--json"))["id"] for i in range(3)]
    con = sqlite3.connect(cli.db)
    payloads.register_sql(con)  # (an UPDATE of the event table compiles its generated `text`: migration 0028)
    con.execute("UPDATE event SET text_kept = 'forged' WHERE id = ?", (ids[1],))
    con.commit()
    con.close()
    out = cli("verify", ok=False)
    assert out.returncode == 1
    assert f"broken at event {ids[1]} (seq 2)" in out.stdout


def test_damaged_store_is_one_line(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 1000)
    out = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(bad), "list"], cwd=REPO,
                         capture_output=True, text=True)
    assert out.returncode == 1 and "not a database" in out.stderr and "Traceback" not in out.stderr


def test_export_verify_and_import_through_the_cli(cli, tmp_path):
    sid = cli("new", "--title", "to share").stdout.strip()
    key = "AKIA" + "IOSFODNN7EXAMPLQ"
    cli("append", sid, "--kind", "message", "--role", "user", "--text", f"the key is {key}")
    cli("append", sid, "--kind", "message", "--role", "assistant", "--text", "noted")
    out = tmp_path / "s.md"
    refused = cli("export", sid, "-f", "md", "-o", str(out), ok=False)  # secrets found, no choice made
    assert refused.returncode == 1 and "aws-key" in refused.stderr and "--redact" in refused.stderr
    assert not out.exists() and key not in refused.stderr
    done = cli("export", sid, "-f", "md", "-o", str(out), "--redact")
    assert "[REDACTED:aws-key:" in done.stderr and "1 secrets replaced" in done.stdout
    assert key not in out.read_text() and "noted" in out.read_text()
    cli("export", sid, "-f", "md", "-o", str(out), "--no-redact")
    assert key in out.read_text()

    lossless = tmp_path / "s.jsonl"
    report = _json(cli("export", sid, "-f", "jsonl", "-o", str(lossless), "--no-redact", "--json"))
    assert report["events"] == 2
    assert "intact" in cli("verify", str(lossless)).stdout
    lossless.write_text(lossless.read_text().replace("noted", "edited"))
    broken = cli("verify", str(lossless), ok=False)
    assert broken.returncode == 1 and "no longer matches its hash" in broken.stdout
    lossless.write_text(lossless.read_text().replace("edited", "noted"))
    other = tmp_path / "other.db"
    imported = _json(cli("--store", str(other), "import", str(lossless), "--json"))
    assert imported["exports"][0]["imported"] == [sid]
    assert [e["text"] for e in _json(cli("--store", str(other), "show", sid, "--json"))["events"]][1] == "noted"


def test_redaction_patterns_are_kept_in_the_store(cli, tmp_path):
    assert "no patterns of your own" in cli("redaction").stdout
    cli("redaction", "--add", r"TICKET-\d+")
    assert cli("redaction").stdout.strip() == r"TICKET-\d+"
    bad = cli("redaction", "--add", "([unclosed", ok=False)
    assert bad.returncode == 2 and "not a valid regular expression" in bad.stderr
    sid = cli("new", "--title", "t").stdout.strip()
    cli("append", sid, "--kind", "message", "--role", "user", "--text", "see TICKET-4411")
    out = tmp_path / "t.html"
    cli("export", sid, "-f", "html", "-o", str(out), "--redact")
    assert "TICKET-4411" not in out.read_text() and "[REDACTED:custom:" in out.read_text()


def _env(**changes):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return env | changes


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland are Linux's")
def test_no_display_is_one_line_and_exit_1(tmp_path):
    out = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "s.db")], cwd=REPO,
                         env=_env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "no display" in out.stderr


def test_ctrl_c_closes_the_window_cleanly(tmp_path):
    import signal
    import time
    pytest.importorskip("PySide6.QtWidgets")
    proc = subprocess.Popen([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "s.db")], cwd=REPO,
                            env=_env(QT_QPA_PLATFORM="offscreen"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 30
    while not (tmp_path / "s.db").exists() and time.monotonic() < deadline:  # the store opens after the window
        time.sleep(0.2)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the window kept running after Ctrl+C")
    assert proc.returncode == 0 and "Traceback" not in err and "KeyboardInterrupt" not in err


def test_version_and_a_missing_path_fails(cli, tmp_path):
    import tomllib
    out = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--version"], cwd=REPO, capture_output=True, text=True)
    expected = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert out.returncode == 0 and out.stdout.strip() in (f"sessionscope {expected}",
                                                          "sessionscope unknown (not installed)")
    missing = cli("import", str(tmp_path / "nowhere"), ok=False)
    assert missing.returncode == 1 and "no such file or folder" in missing.stdout + missing.stderr


def test_the_app_depends_on_pyside6_essentials_only():
    """PySide6-Addons is 418 MiB the app never imports."""
    import tomllib
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    qt = [d for d in deps if d.lower().startswith("pyside6")]
    assert len(qt) == 1 and qt[0].startswith("PySide6-Essentials")


def test_list_ids_grow_until_unique_and_each_one_resolves(cli):
    """Two sessions whose ids share their first 8 characters (seen with Agents SDK and managed ids)."""
    from sessionscope import open_store
    store = open_store(cli.db)
    a = store.open_session(session_id="abcdef12-0000-4000-8000-000000000001", title="one")
    b = store.open_session(session_id="abcdef12-0000-4000-8000-000000000002", title="two")
    c = store.open_session(session_id="99999999-1111-4000-8000-000000000003", title="three")
    store.close()
    out = cli("list").stdout
    shown = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "99999999" in shown  # as short as git would make it
    long_ids = [k for k in shown if k.startswith("abcdef12")]
    assert len(long_ids) == 2 and all(len(k) > 8 for k in long_ids)
    for short, full in [(k, a.id if k == a.id[:len(k)] else b.id) for k in long_ids] + [("99999999", c.id)]:
        assert _json(cli("--json", "show", short))["session"]["id"] == full


def test_list_says_a_fork_first_where_a_cut_title_cannot_lose_it(cli):
    """#33: a fork's title ended in " (fork)", which the list's cut ate: it looked like its origin."""
    from sessionscope import open_store
    store = open_store(cli.db)
    origin = store.open_session(title="Investigate the flaky checkout test in the payments service, then fix it")
    first = store.append(origin.id, "message", role="user", text="go")
    store.fork(origin.id, first.id)
    store.close()
    lines = cli("list").stdout.splitlines()[1:]
    assert sum("[fork] Investigate the flaky checkout" in line for line in lines) == 1  # the fork, said first
    assert sum("[fork]" in line for line in lines) == 1  # (its origin is not one)


def test_json_gives_payloads_as_json_and_snippets_with_offsets(cli):
    sid = cli("new", "--title", "json shapes").stdout.strip()
    cli("append", sid, "--kind", "message", "--role", "user", "--text", "the cookie race again",
        "--payload", '{"tool": "x", "n": 2}')
    shown = _json(cli("--json", "show", sid))
    assert shown["events"][0]["payload"] == {"tool": "x", "n": 2}  # an object, not a string of one
    hits = _json(cli("--json", "search", "cookie"))
    assert hits and "\x02" not in hits[0]["snippet"] and "\x03" not in hits[0]["snippet"]
    start, end = hits[0]["matches"][0]
    assert hits[0]["snippet"][start:end].lower() == "cookie"


def test_a_reader_that_stops_early_ends_the_listing_quietly(tmp_path):
    """`sessionscope show … | head`: once the reader has enough, the listing stops without an error line."""
    from sessionscope import open_store

    with open_store(tmp_path / "s.db") as store:
        sid = store.open_session(title="long").id
        for i in range(1500):  # ~200 KB of listing: more than a pipe holds
            store.append(sid, "message", role="user", text=f"line {i} " + "x" * 80)
    proc = subprocess.Popen([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "s.db"), "show",
                             sid], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) == 141 and first.startswith(b"long") and err == ""


HOSTILE = "evil\x1b]52;c;ZXZpbA==\x07title\x1b]0;pwned\x07\x1b[2J\u202eexe.txt"


def test_a_transcripts_control_sequences_never_reach_the_terminal(cli):
    """#29 items 2 and 13: OSC 52 (the clipboard), OSC 0 (the window title), ESC[2J and bidi overrides in a
    title or a text are printed visibly escaped by list, show, search and errors; --json keeps them as data."""
    sid = cli("new", "--title", HOSTILE).stdout.strip()
    cli("append", sid, "--kind", "message", "--role", "user", "--text", "findme " + HOSTILE)
    for args in (("list",), ("show", sid), ("search", "findme"), ("show", sid + "\x1b[2J")):
        out = cli(*args, ok=args[-1] != sid + "\x1b[2J")
        printed = out.stdout + out.stderr
        assert "\x1b" not in printed and "\x07" not in printed and "\u202e" not in printed, args
    assert "\\e]52;c;ZXZpbA==" in cli("list").stdout and "\\u202eexe.txt" in cli("show", sid).stdout
    data = _json(cli("--json", "show", sid))
    assert data["session"]["title"] == HOSTILE  # the data itself is unchanged


def test_a_mistyped_store_path_is_said(tmp_path):
    """#29 item 31: reading from a --store that does not exist is refused (no empty store is made); a command
    that adds to it makes one and says so."""
    def run(*args):
        return subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "typo.db"), *args],
                              cwd=REPO, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    listed = run("list")
    assert listed.returncode == 2 and "no store at" in listed.stderr and not (tmp_path / "typo.db").exists()
    made = run("new", "--title", "first")
    assert made.returncode == 0 and "a new, empty one is made" in made.stderr and (tmp_path / "typo.db").exists()
    again = run("list")
    assert again.returncode == 0 and "first" in again.stdout and again.stderr == ""


def test_short_prefixes_hidden_lines_separators_and_a_full_disk(cli, tmp_path, monkeypatch, capsys):
    """#29 item 32: a prefix too short says the minimum; `show` lists the conversation (progress and metadata
    lines counted, --all lists them); counts have separators; a full disk is exit 1, not a usage mistake."""
    import errno

    from sessionscope.cli.main import main
    sid = cli("new", "--title", "prefixes").stdout.strip()
    cli("append", sid, "--kind", "message", "--role", "user", "--text", "hello")
    for _ in range(3):
        cli("append", sid, "--kind", "progress", "--text", "")
    short = cli("show", sid[:2], ok=False)
    assert short.returncode == 2 and "at least 3 characters" in short.stderr
    assert cli("show", sid[:3]).returncode == 0  # unique: resolved
    shown = cli("show", sid).stdout
    assert "progress" not in shown.split("\n", 2)[2].split("(")[0] and "3 progress, metadata" in shown
    assert shown.count("progress   ") == 0 and cli("show", sid, "--all").stdout.count("progress") >= 3
    con = sqlite3.connect(cli.db)
    con.execute("UPDATE session SET tokens_in = 1234567 WHERE id = ?", (sid,))
    con.commit()
    con.close()
    assert "1,234,567" in cli("list").stdout
    from sessionscope.export import markdown

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(markdown, "write", full)
    rc = main(["--store", str(cli.db), "export", sid, "-f", "md", "-o", str(tmp_path / "out.md"), "--no-redact"])
    assert rc == 1 and "No space left" in capsys.readouterr().err


def test_compact_of_a_tools_session_is_refused_as_the_window_refuses_it(cli, tmp_path):
    """#30's first point, a correctness bug: the CLI compacted a Claude Code session the window greys Compact out
    for (and audited it as ok)."""
    from tests.sources.claude_factory import Transcript
    t = Transcript(cwd="/work/app")
    t.user("hello")
    t.assistant("hi")
    t.write(tmp_path / "projects" / "-work-app")
    cli("import", str(tmp_path / "projects"))
    refused = cli("compact", t.session_id, "--summary", "x", ok=False)
    assert refused.returncode == 1 and "not compacted by Sessionscope" in refused.stderr
    audit = _json(cli("--json", "audit", t.session_id))
    assert [(a["action"], a["outcome"]) for a in audit if a["action"] == "compact"] == [("compact", "refused")]
    from sessionscope import sources
    assert not sources.of("claude_code").allows("compact", "idle")  # the window's rule, the same one


def test_a_mistyped_command_is_answered_with_what_it_was_probably_meant_to_be(capsys):
    from sessionscope.cli.main import main
    assert main(["lsit"]) == 2
    assert "did you mean 'list'" in capsys.readouterr().err
    assert main(["--json", "serach", "x"]) == 2
    assert "did you mean 'search'" in capsys.readouterr().err


def test_the_shells_habits_a_word_left_out_unquoted_and_an_event_by_its_number(cli):
    """`search rewind -fork` as its help writes it (a `-word` is a word left out, not an option), and an event named
    by the number `show` prints in its first column (`fork S --at 2`)."""
    sid = cli("new", "--title", "habits").stdout.strip()
    for text in ("rewind the fork", "rewind the branch", "nothing here"):
        cli("append", sid, "--kind", "message", "--role", "user", "--text", text)
    unquoted = _json(cli("search", "rewind", "-fork", "--limit", "10", "--json"))
    assert [h["snippet"] for h in unquoted] == [h["snippet"] for h in _json(cli("search", "rewind -fork", "--json"))]
    assert len(unquoted) == 1 and "branch" in unquoted[0]["snippet"]
    shown = cli("show", sid).stdout.splitlines()
    second = next(line for line in shown if line.split()[:1] == ["2"])  # the first column: the event's number
    fork = _json(cli("fork", sid, "--at", "2", "--title", "from two", "--json"))
    events = _json(cli("show", fork["session"]["id"], "--branch", "--json"))["events"]
    assert [e["text"] for e in events if e["kind"] == "message"] == ["rewind the fork", "rewind the branch"]
    assert second.split()[3] in [e["id"][:8] for e in _json(cli("show", sid, "--json"))["events"]]
    assert cli("fork", sid, "--at", "99", ok=False).returncode != 0  # no event 99: said, as an unknown id is
