"""Fork and rewind end where the user clicked (the branch up to E ends at E).

Every fork is read back with claude-agent-sdk's get_session_messages(), as `claude --resume` would.
"""

from __future__ import annotations

import orjson
import pytest

from sessionscope.export.core import ExportRequest
from sessionscope.ops import export
from sessionscope.sources.claude_code import actions as claude_actions
from sessionscope.sources.claude_code import import_paths
from sessionscope.sources.claude_code.fork import CANCEL_MESSAGE, INTERRUPT_MESSAGE
from tests.sources.claude_factory import Transcript

sdk = pytest.importorskip("claude_agent_sdk")


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    return tmp_path / "claude" / "projects" / "-work-app"


def tool_loop(home):
    """One prompt, then a tool loop: think, call, result, text, two parallel calls, their results, a reply."""
    t = Transcript()
    ids = {}
    ids["prompt"] = t.user("find the failing test")["uuid"]
    ids["think"] = t.assistant(thinking="let me look", msg_id="msg_A")["uuid"]
    read = t.assistant(tool=("Read", {"file_path": "/work/app/x.py"}), msg_id="msg_A")
    ids["read"] = read["uuid"]
    ids["read_result"] = t.tool_result(read, "print('x')")["uuid"]
    ids["mid_text"] = t.assistant("now the tests", msg_id="msg_B")["uuid"]
    bash = t.assistant(tool=("Bash", {"command": "pytest -q"}), msg_id="msg_B")
    grep = t.assistant(tool=("Grep", {"pattern": "def test"}), msg_id="msg_B")
    ids["bash"], ids["grep"] = bash["uuid"], grep["uuid"]
    ids["bash_result"] = t.tool_result(bash, "1 failed", parent=grep["uuid"])["uuid"]
    ids["grep_result"] = t.tool_result(grep, "tests/test_x.py")["uuid"]
    ids["reply"] = t.assistant("test_x fails: x prints", msg_id="msg_C")["uuid"]
    ids["prompt2"] = t.user("fix it")["uuid"]
    ids["reply2"] = t.assistant("fixed", msg_id="msg_D")["uuid"]
    t.write(home)
    return t, ids


def read_back(session_id: str) -> list[tuple[str | None, dict]]:
    """(the original uuid a fork's message was copied from, or None for a line the fork added; message)."""
    path = next(p for p in sdk_projects() if p.name == f"{session_id}.jsonl")
    origin = {}
    for raw in path.read_bytes().splitlines():
        line = orjson.loads(raw)
        if line.get("uuid"):
            origin[line["uuid"]] = (line.get("forkedFrom") or {}).get("messageUuid")
    return [(origin[m.uuid], m.message) for m in sdk.get_session_messages(session_id)]


def sdk_projects():
    import os
    from pathlib import Path
    return (Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects").rglob("*.jsonl")


def original_up_to(session_id: str, event_id: str) -> list[tuple[str, dict]]:
    msgs = sdk.get_session_messages(session_id)
    k = next(i for i, m in enumerate(msgs) if m.uuid == event_id)
    return [(m.uuid, m.message) for m in msgs[:k + 1]]


@pytest.mark.parametrize("at", ["prompt", "read", "read_result", "mid_text", "grep_result", "reply"])
def test_fork_ends_where_the_user_clicked(store, home, at):
    t, ids = tool_loop(home)
    import_paths(store, [home.parent])
    ch = claude_actions.fork(store, t.session_id, ids[at])
    got = read_back(ch.session.id)
    want = original_up_to(t.session_id, ids[at])
    copied = [(u, m) for u, m in got if u is not None]
    assert copied == want  # same messages, same order, same content
    added = [m for u, m in got if u is None]
    if at == "read":  # a call whose result came later is closed as Claude Code closes an interrupted one
        assert [b["content"] for m in added[:1] for b in m["content"]] == [CANCEL_MESSAGE]
        assert added[-1]["content"][0]["text"] == INTERRUPT_MESSAGE
    else:
        assert added == [] and ch.note == ""
    assert store.branch_ids(t.session_id, ids[at])[-1] == ids[at]  # the branch up to E ends at E


def test_a_cut_between_parallel_calls_closes_every_open_call(store, home):
    t, ids = tool_loop(home)
    import_paths(store, [home.parent])
    ch = claude_actions.fork(store, t.session_id, ids["grep"])  # both calls made, neither answered
    got = read_back(ch.session.id)
    assert [u for u, _ in got if u] == [u for u, _ in original_up_to(t.session_id, ids["grep"])]
    results = [b for u, m in got if u is None for b in m["content"] if b.get("type") == "tool_result"]
    calls = [b["id"] for _, m in got for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert {r["tool_use_id"] for r in results} == set(calls[-2:]) and all(r["is_error"] for r in results)
    assert ch.detail["interrupted"] == calls[-2:] and "interrupted" in ch.note
    # every call of the fork is answered before anything else is said
    answered = {b["tool_use_id"] for _, m in got if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_result"}
    assert set(calls) <= answered


def test_a_thinking_line_keeps_the_rest_of_its_reply(store, home):
    t, ids = tool_loop(home)
    import_paths(store, [home.parent])
    ch = claude_actions.fork(store, t.session_id, ids["think"])
    got = read_back(ch.session.id)
    assert [u for u, _ in got if u] == [ids["prompt"], ids["think"], ids["read"]]
    assert ch.detail["extended"] == [ids["read"]] and ch.detail["interrupted"]
    assert "thinking alone" in ch.note


def test_rewind_ends_at_the_event_too(store, home):
    t, ids = tool_loop(home)
    import_paths(store, [home.parent])
    ch = claude_actions.rewind(store, t.session_id, ids["mid_text"])
    assert [u for u, _ in read_back(ch.session.id)] == [u for u, _ in original_up_to(t.session_id, ids["mid_text"])]
    assert ch.session.forked_from_event == ids["mid_text"]


def test_fork_at_end_of_turn(store, home):
    t, ids = tool_loop(home)
    import_paths(store, [home.parent])
    for at in ("prompt", "think", "read", "mid_text", "bash_result"):
        assert store.turn_end(ids[at]) == ids["reply"], at
    assert store.turn_end(ids["prompt2"]) == ids["reply2"]
    ch = claude_actions.fork(store, t.session_id, store.turn_end(ids["read"]))
    assert [u for u, _ in read_back(ch.session.id)] == [u for u, _ in original_up_to(t.session_id, ids["reply"])]


def test_branch_export_ends_at_the_event(store, home, tmp_path):
    t, ids = tool_loop(home)
    import_paths(store, [home.parent])
    out = tmp_path / "branch.md"
    export(store, ExportRequest("md", (t.session_id,), head=ids["mid_text"], detail="full"), out)
    text = out.read_text()
    assert "now the tests" in text and "pytest -q" not in text and "test_x fails" not in text


def test_cli_fork_says_what_it_kept(store, home, tmp_path):
    """`sessionscope fork --at E` ends at E and says what it added; --end-of-turn forks at the turn's end."""
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    t, ids = tool_loop(home)
    db = tmp_path / "cli.db"
    env = {**os.environ, "SESSIONSCOPE_STORE": str(db)}

    def cli(*args):
        out = subprocess.run([sys.executable, "-m", "sessionscope.cli", *args], cwd=REPO, env=env, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
        return out.stdout

    cli("import", str(home.parent))
    got = json.loads(cli("fork", t.session_id, "--at", ids["read"], "--json"))
    assert got["interrupted"] and "interrupted" in got["note"] and got["session"]["forked_from_event"] == ids["read"]
    assert got["resume"].endswith(f"claude --resume {got['session']['id']}")
    assert [u for u, _ in read_back(got["session"]["id"])][:3] == [ids["prompt"], ids["think"], ids["read"]]
    text = cli("rewind", t.session_id, "--to", ids["read"][:13], "--end-of-turn")
    new_id = text.splitlines()[1]
    assert [u for u, _ in read_back(new_id)] == [u for u, _ in original_up_to(t.session_id, ids["reply"])]
