"""Subagents that write files of their own are runs in their parent's session, not sessions apart (#36 item 6):
a Codex subagent thread (`session_meta.source.subagent.thread_spawn.parent_thread_id`) and a Gemini CLI
subagent chat (`chats/<parent>/<id>.jsonl`) nest under the call that spawned them, whichever file is read
first, and a rescan of the subagent's file adds to its run."""

from __future__ import annotations

import os

import orjson

from sessionscope.sources import codex, gemini

from .codex_factory import Rollout

PARENT, CHILD = "019a0000-0000-7000-8000-00000000aaaa", "019a0000-0000-7000-8000-00000000bbbb"


def _codex_pair() -> tuple[Rollout, Rollout]:
    parent = Rollout(PARENT)
    parent.turn("Audit the repo with a helper", "Starting a helper")
    parent.add("response_item", {"type": "function_call", "name": "spawn_agent", "call_id": "call_spawn",
                                 "arguments": '{"message": "List the TODOs", "agent_type": "explorer"}'})
    parent.add("event_msg", {"type": "collab_agent_spawn_begin", "call_id": "call_spawn", "sender_thread_id": PARENT,
                             "prompt": "List the TODOs"})
    parent.add("event_msg", {"type": "collab_agent_spawn_end", "call_id": "call_spawn", "sender_thread_id": PARENT,
                             "new_thread_id": CHILD, "new_agent_nickname": "Ada", "new_agent_role": "explorer",
                             "prompt": "List the TODOs", "status": "pending_init"})
    parent.add("response_item", {"type": "function_call_output", "call_id": "call_spawn",
                                 "output": '{"agent_id": "' + CHILD + '", "nickname": "Ada"}'})
    parent.add("response_item", {"type": "message", "role": "assistant",
                                 "content": [{"type": "output_text", "text": "The helper found 3 TODOs"}]})
    child = Rollout(CHILD)
    child.clock = parent.clock  # (it runs while the parent waits)
    meta = child.lines[0]["payload"]
    meta["source"] = {"subagent": {"thread_spawn": {"parent_thread_id": PARENT, "depth": 1, "agent_nickname": "Ada",
                                                    "agent_role": "explorer"}}}
    child.turn("List the TODOs", "3 TODOs: a, b, c", tokens=(400, 30))
    return parent, child


def _import(store, *paths):
    report = codex.import_paths(store, list(paths))
    assert not report.problems
    return report


def _check_codex(store):
    ids = [s.id for s in store.sessions(limit=None)]
    assert ids == [PARENT]  # one session: the subagent's thread is a run in it
    s = store.session(PARENT)
    assert s.title == "Audit the repo with a helper" and s.cwd == "/work/app"
    assert {"nickname": "Ada", "role": "explorer", "call_id": "call_spawn"}.items() <= s.meta["subagents"][CHILD].items()
    run = [e for e in store.events(PARENT) if e.sidechain]
    assert run and {e.agent_id for e in run} == {CHILD}
    assert [e.text for e in run if e.kind == "message"] == ["List the TODOs", "3 TODOs: a, b, c"]
    assert sum(e.tokens_in for e in run) == 400 and s.tokens_in == 1000 + 400
    assert not any(e.sidechain for e in store.branch(PARENT))
    # with its runs, the subagent's work sits between the spawn call and its output
    walk = store.events_by_ids(store.branch_ids(PARENT, include_subagents=True))
    texts = [(e.kind, e.sidechain, e.text) for e in walk if e.kind in ("tool_call", "tool_result", "message")]
    call = next(i for i, t in enumerate(texts) if t[0] == "tool_call" and t[2].startswith("spawn_agent"))
    assert [t[1] for t in texts[call + 1:call + 3]] == [True, True]
    assert texts[call + 3][0] == "tool_result" and not texts[call + 3][1]


def test_a_codex_subagent_thread_nests_under_its_spawn_call(store, tmp_path):
    parent, child = _codex_pair()
    _import(store, parent.write(tmp_path / "a"), child.write(tmp_path / "b"))
    _check_codex(store)


def test_the_subagent_file_read_first_still_lands_under_the_call(store, tmp_path):
    parent, child = _codex_pair()
    child_path = child.write(tmp_path / "b")
    _import(store, child_path)
    assert [s.id for s in store.sessions(limit=None)] == [PARENT]  # its parent, not yet read, is made for it
    _import(store, parent.write(tmp_path / "a"))
    _check_codex(store)


def test_a_rescan_of_the_subagent_file_adds_to_its_run(store, tmp_path):
    parent, child = _codex_pair()
    child_path = child.write(tmp_path / "b")
    _import(store, parent.write(tmp_path / "a"), child_path)
    before = [e.id for e in store.events(PARENT) if e.sidechain]
    child.turn("And the FIXMEs?", "None", tokens=(100, 5))
    with open(child_path, "a", encoding="utf-8") as fh:
        fh.write("".join(orjson.dumps(x).decode() + "\n" for x in child.lines[-7:]))
    _import(store, child_path)
    run = [e for e in store.events(PARENT) if e.sidechain]
    added = [e for e in run if e.id not in before]
    assert added and all(e.agent_id == CHILD for e in added)
    assert added[0].parent_id == before[-1]  # it goes on from where the run stopped
    assert store.session(PARENT).title == "Audit the repo with a helper"
    assert sum(e.tokens_in for e in run) == 500


G_PARENT, G_CHILD = "5f1c0000-0000-4000-8000-0000000000aa", "5f1c0000-0000-4000-8000-0000000000bb"


def _line(obj) -> str:
    return orjson.dumps(obj).decode() + "\n"


def _gemini_home(tmp_path):
    chats = tmp_path / ".gemini" / "tmp" / "proj" / "chats"
    (chats / G_PARENT).mkdir(parents=True)
    parent = chats / "session-2026-03-01T10-00-5f1c0000.jsonl"
    parent.write_text(
        _line({"sessionId": G_PARENT, "projectHash": "ab" * 32, "startTime": "2026-03-01T10:00:00.000Z",
               "lastUpdated": "2026-03-01T10:05:00.000Z", "kind": "main", "directories": ["/work/site"]})
        + _line({"id": "m1", "timestamp": "2026-03-01T10:00:01.000Z", "type": "user",
                 "content": [{"text": "Investigate the slow build"}]})
        + _line({"id": "m2", "timestamp": "2026-03-01T10:00:05.000Z", "type": "gemini", "content": "Delegating.",
                 "model": "gemini-3-pro", "tokens": {"input": 900, "output": 40},
                 "toolCalls": [{"id": "codebase_investigator-1", "name": "codebase_investigator",
                                "args": {"objective": "Find why the build is slow"}, "status": "success",
                                "timestamp": "2026-03-01T10:00:06.000Z",
                                "result": [{"functionResponse": {"id": "codebase_investigator-1", "name":
                                            "codebase_investigator", "response": {"output": "webpack cache off"}}}]}]})
        + _line({"id": "m3", "timestamp": "2026-03-01T10:04:00.000Z", "type": "gemini",
                 "content": "Turn the webpack cache on.", "model": "gemini-3-pro"}), encoding="utf-8")
    child = chats / G_PARENT / f"{G_CHILD}.jsonl"
    child.write_text(
        _line({"sessionId": G_CHILD, "projectHash": "ab" * 32, "startTime": "2026-03-01T10:00:07.000Z",
               "lastUpdated": "2026-03-01T10:03:00.000Z", "kind": "subagent"})
        + _line({"id": "1", "timestamp": "2026-03-01T10:00:07.000Z", "type": "user",
                 "content": [{"text": "Find why the build is slow"}]})
        + _line({"id": "2", "timestamp": "2026-03-01T10:02:00.000Z", "type": "gemini", "model": "gemini-3-flash",
                 "content": "The webpack cache is off.", "tokens": {"input": 300, "output": 20}}), encoding="utf-8")
    return parent, child


def test_a_gemini_subagent_chat_nests_in_its_parent(store, tmp_path):
    parent, child = _gemini_home(tmp_path)
    os.utime(child, (1, 1))  # older than its parent: read first
    report = gemini.import_paths(store, [tmp_path / ".gemini" / "tmp"])
    assert not report.problems
    assert [s.id for s in store.sessions(limit=None)] == [G_PARENT]
    s = store.session(G_PARENT)
    assert (s.title, s.cwd, s.model) == ("Investigate the slow build", "/work/site", "gemini-3-pro")
    assert s.tokens_in == 900 + 300
    run = [e for e in store.events(G_PARENT) if e.sidechain]
    assert [e.text for e in run] == ["Find why the build is slow", "The webpack cache is off."]
    assert {e.agent_id for e in run} == {G_CHILD}
    walk = store.events_by_ids(store.branch_ids(G_PARENT, include_subagents=True))
    kinds = [(e.kind, e.sidechain) for e in walk]
    call = kinds.index(("tool_call", False))
    assert kinds[call + 1:call + 3] == [("message", True), ("message", True)]
    assert kinds[call + 3] == ("tool_result", False)
    # the subagent writes on: its new message joins its run
    with open(child, "a", encoding="utf-8") as fh:
        fh.write(_line({"id": "3", "timestamp": "2026-03-01T10:03:00.000Z", "type": "gemini",
                        "content": "Also: source maps in production."}))
    gemini.import_paths(store, [tmp_path / ".gemini" / "tmp"])
    run = [e for e in store.events(G_PARENT) if e.sidechain]
    assert run[-1].text == "Also: source maps in production." and run[-1].parent_id == run[-2].id
    assert run[-1].agent_id == G_CHILD and store.session(G_PARENT).title == "Investigate the slow build"
