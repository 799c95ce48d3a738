"""`sessionscope usage` against the files themselves and against ccusage, on a generated Claude Code home (several
days, three models, replies over several lines, subagents, a fork made by claude-agent-sdk, a session running now).

ccusage (the npm package, its native build) is found on PATH, at $SESSIONSCOPE_CCUSAGE, or where .ci/run installs
it; without it those comparisons skip."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sessionscope.cli.main import main
from tests.usage_home import generate, independent_sum

REPO = Path(__file__).resolve().parents[1]
KINDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _ccusage() -> str | None:
    for found in (os.environ.get("SESSIONSCOPE_CCUSAGE"), shutil.which("ccusage"),
                  str(REPO / ".ci" / "ccusage" / "node_modules" / ".bin" / "ccusage")):
        if found and os.access(found, os.X_OK):
            return found
    return None


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("usage")
    config = root / ".claude"
    projects = generate(config)
    first = next(p for p in sorted(projects.rglob("*.jsonl")) if "subagents" not in p.parts)
    try:  # a fork as the SDK makes one: its copied lines name their origin (forkedFrom) and keep its message ids
        import claude_agent_sdk
    except ImportError:
        claude_agent_sdk = None
    if claude_agent_sdk is not None:
        cwd = json.loads(first.read_text().splitlines()[0])["cwd"]
        old = os.environ.get("CLAUDE_CONFIG_DIR")
        os.environ["CLAUDE_CONFIG_DIR"] = str(config)
        try:
            claude_agent_sdk.fork_session(first.stem, directory=cwd)
        finally:
            os.environ.pop("CLAUDE_CONFIG_DIR") if old is None else os.environ.update(CLAUDE_CONFIG_DIR=old)
    store = root / "s.db"
    assert main(["--store", str(store), "import", str(projects)]) == 0
    return config, projects, store


def _json(capsys, store, *argv):
    capsys.readouterr()
    assert main(["--store", str(store), "--json", "usage", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_totals_and_each_day_are_the_files_own_tokens(home, capsys):
    _config, projects, store = home
    by_hand = independent_sum(projects)
    daily = _json(capsys, store, "daily")
    assert {row["key"]: [row[k] for k in KINDS] for row in daily["rows"]} == by_hand
    total = _json(capsys, store)
    assert [total["totals"][k] for k in KINDS] == [sum(d[i] for d in by_hand.values()) for i in range(4)]
    assert total["totals"]["cost"] > 0 and not total["unpriced"]


@pytest.mark.parametrize("what", ["weekly", "monthly", "session", "project", "model", "tool"])
def test_every_report_adds_up_to_the_total(home, capsys, what):
    store = home[2]
    total = _json(capsys, store)["totals"]
    rows = _json(capsys, store, what, "--breakdown")["rows"]
    for k in KINDS:
        assert sum(r[k] for r in rows) == total[k]
        assert all(sum(m[k] for m in r["breakdown"]) == r[k] for r in rows)
    assert sum(r["cost"] for r in rows) == pytest.approx(total["cost"])
    if what == "session":
        assert all(r["title"] and r["tool"] == "claude_code" for r in rows)


def test_ranges_tools_and_projects_narrow_the_report(home, capsys):
    _config, projects, store = home
    by_hand = independent_sum(projects)
    days = sorted(by_hand)
    part = _json(capsys, store, "daily", "--since", days[2].replace("-", ""), "--until", days[4])
    assert [r["key"] for r in part["rows"]] == days[2:5]
    assert _json(capsys, store, "--tool", "codex")["rows"] == []
    api = _json(capsys, store, "project", "--project", "/home/dev/api")["rows"]
    assert [r["key"] for r in api] == ["/home/dev/api"]


@pytest.mark.skipif(_ccusage() is None, reason="ccusage is not installed (.ci/run installs it)")
def test_each_day_and_each_block_agree_with_ccusage(home, capsys):
    config, _projects, store = home
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "HOME": str(config.parent)}

    def ccusage(*argv):
        done = subprocess.run([_ccusage(), "claude", *argv, "--json", "--offline"], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    theirs = {d["date"]: d for d in ccusage("daily")["daily"]}
    ours = {r["key"]: r for r in _json(capsys, store, "daily")["rows"]}
    assert sorted(theirs) == sorted(ours)
    for day, d in theirs.items():
        assert [d["inputTokens"], d["outputTokens"], d["cacheReadTokens"], d["cacheCreationTokens"]] == \
            [ours[day][k] for k in KINDS], day
        assert abs(d["totalCost"] - ours[day]["cost"]) < 0.01, day
    their_blocks = ccusage("blocks")["blocks"]
    our_blocks = _json(capsys, store, "blocks")["blocks"]
    assert len(their_blocks) == len(our_blocks) > 2
    for t, o in zip(their_blocks, our_blocks):
        assert (t["startTime"], t["endTime"], t["isGap"], t["isActive"]) == (o["start"], o["end"], o["gap"], o["active"])
        counts = t["tokenCounts"]
        assert [counts["inputTokens"], counts["outputTokens"], counts["cacheReadInputTokens"],
                counts["cacheCreationInputTokens"]] == [o[k] for k in KINDS]
        assert abs(t["costUSD"] - o["cost"]) < 0.01
    active = [o for o in our_blocks if o["active"]]
    assert len(active) == 1 and active[0]["burn"]["cost_per_hour"] > 0 and active[0]["projection"]["minutes_left"] > 0


def _statusline(store, stdin: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(store), "usage", "statusline"],
                          input=stdin, capture_output=True, text=True, env=env, timeout=60)


def test_the_status_line_is_one_line_of_todays_and_the_blocks_figures(home, capsys, tmp_path):
    store = home[2]
    today = time.strftime("%Y-%m-%d")
    spent = next((r["cost"] for r in _json(capsys, store, "daily")["rows"] if r["key"] == today), 0.0)
    block = next(b for b in _json(capsys, store, "blocks")["blocks"] if b["active"])
    given = {"session_id": "abc", "model": {"id": "claude-opus-4-5", "display_name": "Opus 4.5"},
             "cost": {"total_cost_usd": 0.4251}}
    done = _statusline(store, json.dumps(given))
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.count("\n") == 1
    line = done.stdout.strip()
    assert line.startswith("Opus 4.5 · $0.43 session · ") and f"${spent:,.2f} today" in line
    assert f"${block['cost']:,.2f} block" in line and "left" in line
    assert "sqlalchemy" not in line


def test_the_status_line_survives_what_it_is_given_and_makes_no_store(tmp_path):
    for stdin in ("", "not json", "[1, 2]", json.dumps({"model": {"display_name": "\x1b[2Jevil\nname"},
                                                       "cost": {"total_cost_usd": "NaN"}, "session_id": 5})):
        done = _statusline(tmp_path / "none.db", stdin)
        assert done.returncode == 0 and done.stdout.count("\n") == 1, (stdin, done.stderr)
        assert "\x1b" not in done.stdout and "no block running" in done.stdout
    assert not (tmp_path / "none.db").exists()


def test_the_quick_reader_answers_as_the_store_and_leaves_a_changed_session_to_it(home, capsys, tmp_path):
    import shutil as sh

    from sessionscope import open_store
    from sessionscope.store.quick import open_reader
    db = tmp_path / "copy.db"
    sh.copy(home[2], db)
    with open_store(db) as full:
        fresh = full.usage_table(by="day")  # (folds what is not cached yet, and keeps it)
    with open_reader(str(db)) as quick:
        t = quick.usage_table(by="day")
    assert t is not None and [x.as_json(True) for x in t.lines] == [x.as_json(True) for x in fresh.lines]
    sid = _json(capsys, db, "session")["rows"][0]["key"]
    assert main(["--store", str(db), "append", sid, "--kind", "message", "--role", "assistant", "--text", "more",
                 "--tokens-in", "1000", "--tokens-out", "10"]) == 0
    with open_reader(str(db)) as quick:
        assert quick.usage_table(by="day") is None  # the Store folds the session again
    total = _json(capsys, db)["totals"]
    assert total["input_tokens"] == fresh.total.tokens[0] + 1000 and total["output_tokens"] == fresh.total.tokens[1] + 10


def test_blocks_live_redraws_until_interrupted(home):
    import signal
    store = home[2]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "sessionscope.cli", "--store", str(store), "usage", "blocks", "--active",
                             "--live", "--interval", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        time.sleep(3.5)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and b"interrupted" in err
    frames = out.decode().split("\x1b[H\x1b[2J")[1:]
    assert len(frames) >= 2 and all("ACTIVE" in f and "left" in f for f in frames)
