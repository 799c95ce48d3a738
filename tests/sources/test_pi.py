"""pi and OpenClaw sessions (#36 item 3): the corpus files read, the tree by parentId (a branch stays), OpenClaw's
results hung under the call's id, usage, compaction, an unknown entry type kept and listed as drift, and a
file appended to read from where the last scan stopped (the chain goes on across runs)."""

from __future__ import annotations

import pytest

from sessionscope.insight.drift import drift
from sessionscope.sources import importing, pi

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere


def test_the_corpus_files(store, corpus):
    report = importing.import_paths(store, [corpus / "pi", corpus / "openclaw",
                                            corpus / "other" / "agentsview__pi-session.jsonl"])
    assert report.bad_lines == 1  # the fixture's line that is not JSON; the rest read
    by_title = {store.session(s).title: store.session(s) for s in report.sessions}
    assert {s.source_kind for s in by_title.values()} == {"pi"}
    fix = by_title["Fix the login bug"]
    assert (fix.cwd, fix.model, fix.tokens_in, fix.tokens_out) == ("/Users/alice/code/my-project", "claude-opus-4-5",
                                                                   300, 60)
    kinds = [(e.kind, e.text) for e in store.branch_view(fix.id)]
    assert ("thinking", "Let me analyze this carefully.") in kinds
    assert ("compaction", "# Context Checkpoint\nThe user is fixing a login bug.") in kinds
    call = next(e for e in store.branch(fix.id) if e.kind == "tool_call")
    result = next(e for e in store.branch(fix.id) if e.kind == "tool_result")
    assert store.tool_pairs([call.id, result.id], ["tool_call", "tool_result"]) == {result.id: call.id}
    assert [d.shape for d in drift(store) if d.tool == "pi"] == ["unknown_future_entry_type"]
    claw = by_title["Open /tmp/large and run status"]
    branch = store.branch(claw.id)
    texts = [e.text for e in branch if e.kind in ("message", "tool_call", "tool_result")]
    assert texts[:4] == ["Open /tmp/large and run status", "Gathering files and git status.",
                         'run_terminal {"command":"git status --short","cwd":"/tmp/large"}', "M file1\nM file2"]
    assert texts[-1] == "file written"  # the result hangs under its call (OpenClaw names the call as parent)


def _line(**kw) -> str:
    import orjson
    return orjson.dumps(kw).decode() + "\n"


def test_a_branch_stays_and_an_appended_file_goes_on(store, tmp_path):
    folder = tmp_path / ".pi" / "agent" / "sessions" / "--work-app--"
    folder.mkdir(parents=True)
    path = folder / "2026-03-01T10-00-00-000Z_0199aaaa-0000-7000-8000-000000000001.jsonl"
    msg = lambda i, parent, role, content, **extra: _line(  # noqa: E731
        type="message", id=i, parentId=parent, timestamp=f"2026-03-01T10:00:0{i[-1]}Z",
        message={"role": role, "content": content, **extra})
    path.write_text(
        _line(type="session", version=3, id="0199aaaa-0000-7000-8000-000000000001", timestamp="2026-03-01T10:00:00Z",
              cwd="/work/app")
        + msg("e1", None, "user", [{"type": "text", "text": "Rename foo"}])
        + msg("e2", "e1", "assistant", [{"type": "toolCall", "id": "c1", "name": "edit", "arguments": {"path": "a.py"}}],
              model="gpt-5", usage={"input": 100, "output": 10, "cacheRead": 50, "cacheWrite": 0})
        + msg("e3", "e2", "toolResult", "ok", toolCallId="c1", isError=False)
        + msg("e4", "e1", "assistant", [{"type": "text", "text": "A second try, from the prompt"}]), encoding="utf-8")
    first = pi.import_paths(store, [tmp_path / ".pi" / "agent" / "sessions"])
    sid = next(iter(first.sessions))
    s = store.session(sid)
    assert (s.title, s.tool_id, s.cwd) == ("Rename foo", "0199aaaa-0000-7000-8000-000000000001", "/work/app")
    assert [e.text for e in store.branch_view(sid)] == ["Rename foo", "A second try, from the prompt"]  # the newest branch
    assert len(store.leaves(sid)) == 2  # the first try stays, as a branch
    with open(path, "a", encoding="utf-8") as fh:  # the user goes back to the first try's result and on from there
        fh.write(msg("e5", "e3", "user", [{"type": "text", "text": "Now the tests"}]))
    assert pi.import_paths(store, [tmp_path / ".pi" / "agent" / "sessions"]).events_added == 1
    branch = store.branch(sid)
    assert [e.text for e in branch if e.kind != "meta"][-3:] == ['edit {"path":"a.py"}', "ok", "Now the tests"]
    assert pi.import_paths(store, [tmp_path / ".pi" / "agent" / "sessions"]).events_added == 0


def test_openclaw_results_under_a_call_read_in_an_earlier_run(store, tmp_path):
    folder = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    path = folder / "oc-1.jsonl"
    path.write_text(_line(type="session", id="oc-1", version=3, timestamp="2026-02-24T10:00:00Z", cwd="/tmp/x")
                    + _line(type="message", id="m1", parentId="oc-1", timestamp="2026-02-24T10:00:01Z",
                            message={"role": "user", "content": [{"type": "text", "text": "status?"}]})
                    + _line(type="message", id="m2", parentId="m1", timestamp="2026-02-24T10:00:02Z",
                            message={"role": "assistant", "content": [{"type": "toolCall", "id": "tc-1", "name": "sh",
                                                                       "arguments": {"command": "git status"}}]}),
                    encoding="utf-8")
    pi.import_paths(store, [tmp_path / ".openclaw" / "agents"])
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(_line(type="message", id="m3", parentId="tc-1", timestamp="2026-02-24T10:00:03Z",
                       message={"role": "toolResult", "toolCallId": "tc-1", "content": "clean", "isError": False}))
    report = pi.import_paths(store, [tmp_path / ".openclaw" / "agents"])
    sid = next(iter(report.sessions))
    branch = [e for e in store.branch(sid)]
    assert [e.kind for e in branch] == ["message", "tool_call", "tool_result"]
    assert branch[2].parent_id == branch[1].id
