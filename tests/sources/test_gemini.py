"""Gemini CLI chats: corpus files, rewinds as branches, re-appended messages, rescans, legacy documents."""

from __future__ import annotations

import json

import pytest

from sessionscope import sources
from sessionscope.sources import importing

SID = "0ab84937-9fe7-4284-986a-33c832af0b6a"


def _meta(sid=SID):
    return {"sessionId": sid, "projectHash": "9da8", "startTime": "2026-04-23T12:52:52.759Z",
            "lastUpdated": "2026-04-23T12:52:52.759Z", "kind": "main"}


def _user(mid, text, t="2026-04-23T12:53:00.000Z"):
    return {"id": mid, "timestamp": t, "type": "user", "content": [{"text": text}]}


def _gemini(mid, text, calls=(), done=False, t="2026-04-23T12:53:05.000Z"):
    tool_calls = [{"id": c, "name": "read_file", "args": {"absolute_path": f"/p/{c}.py"}, "status":
                   "success" if done else "executing", "timestamp": t,
                   **({"result": [{"functionResponse": {"id": c, "name": "read_file",
                                                        "response": {"output": f"contents of {c}"}}}]} if done else {})}
                  for c in calls]
    return {"id": mid, "timestamp": t, "type": "gemini", "content": text, "model": "gemini-2.5-pro",
            "thoughts": [{"subject": "Planning", "description": "look at the files", "timestamp": t}],
            "tokens": {"input": 100, "output": 10, "cached": 0, "thoughts": 5, "tool": 0, "total": 115},
            "toolCalls": tool_calls}


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_every_corpus_chat_imports(corpus, store):
    folder = corpus / "gemini-cli"
    if not folder.is_dir():
        pytest.skip("no gemini corpus")
    report = importing.import_paths(store, [folder])
    assert report.files_read == len(list(folder.iterdir())) >= 9 and report.bad_lines == 0 and not report.problems
    assert {s.source_kind for s in store.sessions()} == {"gemini"}
    assert all(s.event_count for s in store.sessions()) and all(r.ok for r in store.verify())
    s = store.session(SID)  # a real chat: 5 messages appended again as their tool calls finished
    calls = [e for e in store.events(SID) if e.kind == "tool_call"]
    results = [e for e in store.events(SID) if e.kind == "tool_result"]
    assert calls and len(results) == len(calls)
    assert len([e for e in store.events(SID) if e.kind == "message"]) == len(
        {json.loads(x)["id"] for x in (folder / "VibeCodingTracker__gemini-session.jsonl").read_text().splitlines()[1:]
         if json.loads(x).get("type") in ("user", "gemini")})  # each message once
    assert s.model.startswith("gemini-3.1-pro") and s.tokens_in > 0


def test_a_rewind_is_a_branch_and_finished_calls_add_their_results(store, tmp_path):
    chat = tmp_path / "home" / ".gemini" / "tmp" / "proj" / "chats" / "session-2026-04-23T12-52-0ab84937.jsonl"
    _write(chat, [_meta(), _user("u1", "read the files"), _gemini("g1", "reading", ["c1", "c2"]),
                  _gemini("g1", "reading", ["c1", "c2"], done=True), _user("u2", "now fix them"),
                  _gemini("g2", "fixed")])
    report = importing.import_paths(store, [chat.parent.parent.parent])
    assert report.sessions == {SID}
    kinds = [e.kind for e in store.branch_view(SID)]
    assert kinds.count("tool_result") == 2 and kinds.count("message") == 4 and "thinking" in kinds
    s = store.session(SID)
    assert s.title == "read the files" and (s.tokens_in, s.tokens_out) == (200, 30)  # g1 counted once
    # the user rewinds to u2 and asks again: the abandoned turn stays, as a branch
    with open(chat, "a", encoding="utf-8") as fh:
        for r in ({"$rewindTo": "u2"}, _user("u3", "no, explain them first"), _gemini("g3", "they read config")):
            fh.write(json.dumps(r) + "\n")
    again = importing.import_paths(store, [chat.parent.parent.parent])
    assert again.bytes_read < chat.stat().st_size  # only what was appended
    texts = [e.text for e in store.branch_view(SID) if e.kind == "message"]
    assert texts == ["read the files", "reading", "no, explain them first", "they read config"]
    assert store.tree(SID).lanes == 2 and len(store.leaves(SID)) == 2
    src = sources.of("gemini")
    # the chat names no folder (no projects.json here): the line says where to run it rather than fail there
    assert src.resume_line(store.session(SID)) == \
        f"cd YOUR-PROJECT-FOLDER && gemini --resume {SID}  # Gemini CLI resumes a session in the folder it ran in"


@pytest.mark.parametrize("shape", ["slug", "hash"])
def test_the_resume_line_names_the_projects_folder(store, tmp_path, shape):
    """#29 item 32: the folder comes from ~/.gemini/projects.json (or the SHA-256 an older CLI named it by)."""
    import hashlib
    folder = "/work/my project"
    name = "my-project" if shape == "slug" else hashlib.sha256(folder.encode()).hexdigest()
    gemini = tmp_path / "home" / ".gemini"
    chat = gemini / "tmp" / name / "chats" / "session-2026-04-23T12-52-0ab84937.jsonl"
    _write(chat, [_meta(), _user("u1", "hello"), _gemini("g1", "hi")])
    (gemini / "projects.json").write_text(json.dumps({"projects": {folder: "my-project"}} if shape == "slug"
                                                     else {folder: "something else"}))
    importing.import_paths(store, [gemini / "tmp"])
    assert store.session(SID).cwd == folder
    assert sources.of("gemini").resume_line(store.session(SID)) == f"cd '{folder}' && gemini --resume {SID}"


def test_a_legacy_document_rewritten_keeps_what_was_seen(store, tmp_path):
    doc = tmp_path / "chats" / "session-2025-10-11T11-58-d6f69999.json"
    doc.parent.mkdir(parents=True)
    body = {**_meta("d6f69999-62cc-4d41-8de4-9a85fc1531b8"), "messages": [_user("a", "hello"), _gemini("b", "hi")]}
    doc.write_text(json.dumps(body, indent=2))
    (tmp_path / "chats" / "logs.json").write_text("[]")  # other JSON in the folder is left alone quietly
    first = importing.import_paths(store, [tmp_path / "chats"])
    assert first.events_added and not first.problems
    body["messages"].append(_user("c", "and more"))
    doc.write_text(json.dumps(body, indent=2))  # rewritten whole, as the CLI does
    importing.import_paths(store, [tmp_path / "chats"])
    texts = [e.text for e in store.branch_view(body["sessionId"]) if e.kind == "message"]
    assert texts == ["hello", "hi", "and more"]
    assert importing.import_paths(store, [tmp_path / "chats"]).events_added == 0
