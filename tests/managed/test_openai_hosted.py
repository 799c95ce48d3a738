"""OpenAI hosted agent sessions through the real `openai` client, against a loopback API (openai_server.py):
listing and item pages by id, incremental pulls that hold back what is still in progress, turns' usage counted
once, subagents nested under the call that spawned them, statuses (a required action needs you), retries, the
actions (delete, send, cancel), an item type the reader does not know, a project header, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("openai")

from sessionscope import ops, sources
from sessionscope.errors import IllegalTransition  # noqa: E402
from sessionscope.live import needs_you
from sessionscope.live import states as live  # noqa: E402
from sessionscope.sources.openai_hosted import location_of, sync  # noqa: E402
from tests.conftest import REPO  # noqa: E402

from .openai_server import KEY, Project, _usage, sample, serve  # noqa: E402

SOURCE = sources.of("openai_hosted")


@pytest.fixture
def api(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    p = Project()
    ids = sample(p)
    with serve(p) as url:
        loc = location_of(url + "/v1")
        SOURCE.clients.pop(loc, None)
        yield p, ids, loc


def gets(p, suffix: str) -> int:
    return sum(1 for m, path in p.requests if m == "GET" and path.endswith(suffix))


def test_a_project_is_pulled_with_titles_statuses_tokens_and_paired_steps(store, api):
    p, ids, loc = api
    report = sync(store, loc)
    assert not report.problems and report.sessions == set(ids.values())
    status = {k: store.session(v).status for k, v in ids.items()}
    assert status == {"done": "idle", "multi": "idle", "waiting": "running", "failed": "terminated", "running": "running"}
    s = store.session(ids["done"])
    assert (s.title, s.source_kind, s.agent, s.model) == ("Cut the 1.4 release", "openai_hosted", "Release helper", "gpt-5.5")
    assert store.session(ids["waiting"]).title == "File an issue for the flaky login test"  # no title given: the prompt
    assert (s.tokens_in, s.tokens_out) == (1500, 120)
    events = store.branch(s.id)
    assert [(e.kind, e.role) for e in events] == [
        ("message", "user"), ("thinking", "assistant"), ("tool_call", "assistant"), ("tool_result", "tool"),
        ("tool_call", "assistant"), ("tool_result", "tool"), ("message", "assistant"), ("meta", "usage")]
    assert events[1].text == "Check the tags"
    fc, fco, cmd, out = events[2:6]
    assert fc.text == 'git_tags {"limit":3}' and fco.text == "v1.4.0\nv1.3.2"
    assert cmd.text == "shell pytest -q" and out.text == "42 passed in 5.01s"
    assert store.tool_pairs([e.id for e in events[2:6]], ["tool_call", "tool_result"] * 2) == {fco.id: fc.id,
                                                                                                out.id: cmd.id}
    assert json.loads(cmd.payload)["cwd"] == "/workspace/app" and "output" not in json.loads(cmd.payload)
    assert json.loads(out.payload)["duration_ms"] == 5120
    assert (events[-1].tokens_in, events[-1].tokens_out) == (1500, 120)
    assert events[-1].text == "turn completed: 1,500 tokens in (800 cached), 120 out"
    assert any(h.session_id == s.id for h in store.search("Tagged"))
    # the failed step and turn say so
    failed = store.branch(ids["failed"])
    assert [e.text for e in failed if e.kind == "tool_result"] == ["error: permission denied\n(exit code 1)"]
    assert json.loads(next(e for e in failed if e.kind == "tool_result").payload)["is_error"] is True
    assert failed[-1].role == "error" and failed[-1].text == "turn failed: sandbox_error the sandbox stopped"
    assert store.session(ids["failed"]).meta["openai"]["error"] == "the sandbox stopped"


def test_a_subagent_nests_under_the_call_that_spawned_it(store, api):
    p, ids, loc = api
    sync(store, loc)
    sid = ids["multi"]
    sub = p.subagents[sid][0]["id"]
    events = store.events(sid)
    call = next(e for e in events if e.kind == "tool_call" and json.loads(e.payload)["type"] == "create_subagent_call")
    assert call.text.startswith("spawn_subagent (gpt-5.5-mini): Price GitHub Pages")
    side = [e for e in events if e.sidechain]
    assert [(e.kind, e.agent_id) for e in side] == [("message", sub), ("meta", sub)]
    assert side[0].parent_id == call.id and side[1].parent_id == side[0].id
    assert side[0].text.startswith("Pages: free")
    assert (side[1].tokens_in, side[1].tokens_out) == (300, 40)
    main = store.branch(sid)
    assert not any(e.sidechain for e in main) and main[-2].text.startswith("All three are free")
    held = store.session(sid).meta["openai"]["pull"]["subagents"][sub]
    assert (held["spawned_by"], held["name"], held["status"]) == (call.id, "scout", "active")
    # a second subagent spawned in a later pull, with the same parent, finds its own call by its task
    tid = p.start_turn(sid, "And the CDN?")
    p.add_subagent(sid, "Compare two CDNs", name="cdn")
    sub2 = p.subagents[sid][1]["id"]
    st = p.start_turn(sid, None, subagent=sub2)
    p.item(sid, st, "message", subagent=sub2, role="assistant", status="completed",
           content=[{"type": "output_text", "text": "Fastly vs Cloudflare"}])
    p.end_turn(sid, st, usage=_usage(10, 5))
    p.end_turn(sid, tid, usage=_usage(10, 5))
    sync(store, loc)
    events = store.events(sid)
    calls = [e for e in events if e.kind == "tool_call" and json.loads(e.payload)["type"] == "create_subagent_call"]
    second = next(e for e in events if e.agent_id == sub2 and e.kind == "message")
    assert second.parent_id == calls[1].id and calls[1].id != call.id


def test_pulls_are_incremental_and_hold_back_what_is_in_progress(store, api):
    p, ids, loc = api
    sync(store, loc)
    assert gets(p, "/subagents") == 1  # only the multi-agent session's subagents are asked for
    sid = ids["running"]
    assert [e.kind for e in store.branch(sid)] == ["message"]  # the command still running is not read yet
    before = len(p.requests)
    again = sync(store, loc)
    assert again.events_added == 0 and again.files_read == 0
    assert [path for _m, path in p.requests[before:]] == ["/v1/agents/sessions"]  # one listing, nothing else
    # the command finishes, the turn ends: its call, its output and the turn's usage arrive, once
    item = p.items[sid][-1]
    item.update(status="completed", output="100%", exit_code=0, duration_ms=30_000)
    p.end_turn(sid, p.turns[sid][-1]["id"], usage=_usage(900, 60))
    report = sync(store, loc)
    assert report.events_added == 3 and not report.problems
    events = store.branch(sid)
    assert [e.text for e in events[1:]] == ["shell ./reindex.sh", "100%", "turn completed: 900 tokens in (0 cached), 60 out"]
    assert store.session(sid).status == "idle"
    assert sync(store, loc).events_added == 0
    assert sum(e.tokens_in for e in store.events(sid)) == 900  # the turn's usage counted once


def test_item_pages_follow_after_and_only_new_items_are_asked_for(store, api):
    p, ids, loc = api
    sid = ids["done"]
    tid = p.start_turn(sid, "Now list every file")
    for i in range(230):
        p.item(sid, tid, "message", role="assistant", status="completed", content=[{"type": "output_text", "text": f"file {i}"}])
    p.end_turn(sid, tid, usage=_usage(10, 10))
    sync(store, loc)
    texts = [e.text for e in store.branch(sid) if e.kind == "message" and e.role == "assistant"]
    assert texts[1:] == [f"file {i}" for i in range(230)]
    item_gets = [q for _m, q in p.requests if q.endswith(f"{sid}/items")]
    assert len(item_gets) == 3  # 231 new items: three pages of 100
    p.item(sid, tid, "message", role="assistant", status="completed", content=[{"type": "output_text", "text": "last"}])
    p.sessions[sid]["last_active_at"] += 5
    assert sync(store, loc).events_added == 1


def test_a_waiting_approval_needs_you(store, api):
    p, ids, loc = api
    sync(store, loc)
    sid = ids["waiting"]
    s = store.session(sid)
    states = live.states(store, [s], procs=None)
    assert states[sid].state == "needs_approval"
    assert states[sid].why == "requires action at OpenAI: approve the MCP call github/create_issue"
    waiting = needs_you.waiting(store, states)
    assert [w.session.id for w in waiting] == [sid] and waiting[0].pending == "approve the MCP call github/create_issue"
    assert "waits for you to approve the MCP call github/create_issue" in SOURCE.summary(s)
    # the user approves at OpenAI: the next pull sees it working, no longer needing anyone
    p.sessions[sid].update(status="in_progress", required_actions=[], last_active_at=p.tick())
    sync(store, loc)
    assert live.states(store, [store.session(sid)], procs=None)[sid].state == "working"


def test_retries_on_500_and_429_then_one_problem_when_the_server_keeps_failing(store, api):
    p, ids, loc = api
    p.fault("/v1/agents/sessions", 500, times=1)
    p.fault(f"/v1/agents/sessions/{ids['done']}/items", 429, {"retry-after": "0.1"}, times=1)
    heard = []
    report = sync(store, loc, notify=heard.append)
    assert not report.problems and len(report.sessions) == 5 and len(heard) == 2
    p.fault("/v1/agents/sessions", 503, times=10)
    report = sync(store, loc)
    assert [x["problem"] for x in report.problems] == ["could not list the project's sessions: HTTP 503, injected by the test"]
    assert store.session(ids["done"]).meta["openai"].get("gone_at") is None  # a failed listing marks nothing gone


def test_a_wrong_key_or_a_missing_project_is_said(store, api, monkeypatch):
    p, ids, loc = api
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    report = sync(store, loc)
    assert "refused the key" in report.problems[0]["problem"] and "OPENAI_API_KEY" in report.problems[0]["problem"]
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    p.project = "proj_team"
    assert "refused" in sync(store, loc).problems[0]["problem"]
    report = sync(store, location_of(loc, "proj_team"))  # the project sent as OpenAI-Project
    assert not report.problems and len(report.sessions) == 5


def test_delete_is_refused_while_running_and_keeps_our_copy(store, api):
    p, ids, loc = api
    sync(store, loc)
    with pytest.raises(IllegalTransition):
        ops.delete(store, ids["running"], actor="test")
    assert ids["running"] in p.sessions
    ch = ops.delete(store, ids["done"], actor="test")
    assert ids["done"] not in p.sessions and ch.detail == {"kept": True}
    s = store.session(ids["done"])
    assert SOURCE.only_a_copy(s) == "deleted at OpenAI: this is the copy kept here"
    sync(store, loc)  # the API no longer lists it: still kept, still marked
    assert store.session(ids["done"]).meta["openai"]["gone_at"]
    ops.delete(store, ids["done"], actor="test")  # the second delete removes the copy
    assert ids["done"] not in {x.id for x in store.sessions(limit=None)}


def test_send_starts_a_turn_and_interrupt_cancels_it(store, api):
    p, ids, loc = api
    sync(store, loc)
    sid = ids["done"]
    ch = ops.send(store, sid, "Also bump the changelog", actor="test")
    assert p.posted[-1]["type"] == "agent.session.input.message"
    assert ch.session.status == "running" and store.branch(sid)[-1].text == "Also bump the changelog"
    ch = ops.interrupt(store, sid, actor="test")
    assert p.posted[-1] == {"type": "agent.session.input.cancel"}
    assert ch.session.status == "idle"
    assert [(e.kind, e.text) for e in store.branch(sid)][-1] == ("interrupt", "the turn was cancelled")
    assert SOURCE.refusal("interrupt", "idle") and SOURCE.refusal("rewind", "idle")


def test_an_item_type_this_reader_does_not_know_is_kept_and_said_once(store, api):
    p, ids, loc = api
    sid = ids["done"]
    tid = p.start_turn(sid, "Draw the architecture")
    for _ in range(2):
        p.item(sid, tid, "image_generation_call", status="completed", result="iVBORw0KGgo=")
    p.end_turn(sid, tid)
    report = sync(store, loc)
    assert len(report.problems) == 1
    problem = report.problems[0]["problem"]
    assert "2 item(s) of type 'image_generation_call'" in problem and "openai 3." in problem
    kept = [e for e in store.events(sid) if e.kind == "opaque" and e.text == "image_generation_call"]
    assert len(kept) == 2 and json.loads(kept[0].payload)["result"] == "iVBORw0KGgo="


def test_archive_is_ours_and_pulls_keep_it(store, api):
    p, ids, loc = api
    sync(store, loc)
    sid = ids["done"]
    ops.archive(store, sid, actor="test")
    p.turn(sid, "one more", "done")
    sync(store, loc)
    assert store.session(sid).status == "archived" and store.branch(sid)[-2].text == "done"


def test_the_cli_pulls_a_project_with_openai(api, tmp_path):
    p, ids, loc = api
    env = {**os.environ, "OPENAI_API_KEY": KEY, "HOME": str(tmp_path)}
    db = tmp_path / "cli.db"
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(db), "pull", "--openai",
                          "--base-url", loc, "--json"], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["workspaces"] == [loc] and len(out["sessions"]) == 5
    listed = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(db), "list", "--json"],
                            capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert "Cut the 1.4 release" in listed.stdout


def test_one_hostile_project_does_not_stop_the_others(store, api, monkeypatch):
    """#58 item 14: on OpenAI's path one hostile project stopped the whole pull ("ResponseRefused: the server sent over
    64 MB…"; the good project's new turn was not pulled); one non-object entry dropped a whole listing; duplicate ids
    were merged silently."""
    from sessionscope.sources import remote
    from sessionscope.sources.scan import source_row

    from .api_server import send_raw
    p, ids, good = api
    monkeypatch.setattr(remote, "MAX_RESPONSE_BYTES", 1 << 20)

    class Hostile(Project):
        def _raw_for(self, path):
            if path.rstrip("/").endswith("/agents/sessions"):
                return lambda h, q: send_raw(h, 200, b'{"data": ["' + b"x" * (2 << 20) + b'"]}',
                                             {"content-type": "text/event-stream"})
            return None
    with serve(Hostile()) as bad_url:
        bad = location_of(bad_url + "/v1")
        SOURCE.clients.pop(bad, None)
        for loc in (bad, good):
            store.write(source_row, "openai_hosted", loc)
        problems = SOURCE.workspaces.pull_all(store)
    assert any(x["path"] == bad and "over 1 MB in one response" in x["problem"] for x in problems), problems
    assert {store.session(i).id for i in ids.values()} == set(ids.values())  # the good project: pulled

    # a listing with an entry that is no object, and an id listed twice: said, the rest read
    monkeypatch.setattr(remote, "MAX_RESPONSE_BYTES", 64 << 20)
    first = next(iter(p.sessions.values()))
    odd = [first, "not a session", dict(first)]
    p._raw_for = lambda path: (lambda h, q: send_raw(h, 200, json.dumps(
        {"object": "list", "data": odd, "has_more": False}).encode())) \
        if path.rstrip("/").endswith("/agents/sessions") else None
    report = sync(store, good)
    said = " | ".join(x["problem"] for x in report.problems)
    assert "no session ('not a session')" in said and f"session {first['id']} is listed twice" in said
