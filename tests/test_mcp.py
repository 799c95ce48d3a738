"""`sessionscope mcp` (#34), driven by the official SDK's own client over stdio, the server in a subprocess as an
agent starts it: every tool, paging, errors, redaction, and the write tools refused without --allow-write; and
the bundled `claude` (offline, in a scratch home) lists the server as connected."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from sessionscope import open_store, ops  # noqa: E402

SECRET = "AKIAIOSFODNN7EXAMPLE"
READ = {"search", "list_sessions", "transcript", "event", "facts", "facts_diff", "notes_and_pins",
        "sessions_touching", "handoff", "similar_sessions"}


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "s.db"
    with open_store(path) as store:
        s = store.open_session(session_id="5e551011-0000-4000-8000-000000000001", title="cookie bug",
                               project="/w/shop")
        store.append(s.id, "message", role="user", text=f"login fails; the key is {SECRET}")
        store.append(s.id, "tool_call", role="assistant", text='Read {"file_path":"/w/shop/app/auth.py"}')
        for i in range(12):
            store.append(s.id, "message", role="assistant", text=f"step {i}: the cookie expires early")
        store.set_fact(s.id, "todos", [{"content": "write the 429 test", "status": "pending"},
                                       {"content": "read auth.py", "status": "completed"}])
        store.append(s.id, "tool_call", role="assistant", text='Bash {"command":"pytest -q"}')  # never answered
        ops.note_add(store, s.id, "Decided: a sliding expiry for the cookie")
        other = store.open_session(title="deploy", project="/w/infra")
        store.append(other.id, "message", role="user", text="deploy the shop")
    return path


def _run(store_path, *flags, calls):
    """Start `sessionscope mcp` as an agent would and run `calls(session)` with the SDK's client."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "sessionscope.cli", "--store", str(store_path),
                                                                  "mcp", *flags], env=dict(os.environ))

    async def main():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await calls(session)
    return asyncio.run(main())


def _data(result) -> object:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if set(content) == {"result"} else content
    return json.loads(result.content[0].text)


def test_every_read_tool_answers_redacted_and_pages(store_path):
    async def calls(s):
        listed = await s.list_tools()
        names = {t.name for t in listed.tools}
        assert names == READ  # read-only: no write tool offered
        assert all(t.annotations.read_only_hint for t in listed.tools) and all(t.input_schema for t in listed.tools)
        found = _data(await s.call_tool("search", {"query": '"cookie expires" -deploy', "limit": 5}))
        assert len(found["hits"]) == 5 and "«cookie expires»" in found["hits"][0]["snippet"]
        sid = found["hits"][0]["session"]
        hit = _data(await s.call_tool("search", {"query": "login"}))["hits"][0]
        assert SECRET not in json.dumps(hit) and "[REDACTED" in hit["snippet"] or "login" in hit["snippet"]
        sessions = _data(await s.call_tool("list_sessions", {"limit": 1}))
        assert len(sessions["sessions"]) == 1 and sessions["next_offset"] == 1
        page = _data(await s.call_tool("transcript", {"session": sid[:8], "limit": 5}))
        assert page["total"] >= 15 and len(page["events"]) == 5 and page["next_offset"] == 5
        assert SECRET not in json.dumps(page) and "[REDACTED" in page["events"][0]["text"]
        last = _data(await s.call_tool("transcript", {"session": sid, "offset": page["total"] - 2}))
        assert last["next_offset"] is None and len(last["events"]) == 2
        one = _data(await s.call_tool("event", {"event": page["events"][1]["id"]}))
        assert one["text"].startswith("Read ")
        facts = _data(await s.call_tool("facts", {"at": sid}))
        assert facts["facts"]["todos"][0]["content"] == "write the 429 test"
        diff = _data(await s.call_tool("facts_diff", {"a": page["events"][0]["id"], "b": sid}))
        assert "todos" in diff["added"]
        marks = _data(await s.call_tool("notes_and_pins", {"session": sid}))
        assert marks["notes"][0]["text"].startswith("Decided") and marks["pins"] == []
        touching = _data(await s.call_tool("sessions_touching", {"path": "auth.py"}))
        assert [x["session"] for x in touching["sessions"]] == [sid]
        handoff = _data(await s.call_tool("handoff", {"project": "/w/shop"}))
        for part in ("### Open todos", "write the 429 test", "### Notes", "sliding expiry", "### Tool calls left "
                     "without a result", "pytest -q"):
            assert part in handoff, part
        assert "read auth.py" not in handoff  # done: not open
        bad = await s.call_tool("search", {"query": '"open quote'})
        assert bad.is_error and "the quote opened there is not closed" in bad.content[0].text
        missing = await s.call_tool("event", {"event": "no-such-event"})
        assert missing.is_error and "no event" in missing.content[0].text
        refused = await s.call_tool("add_note", {"session": sid, "text": "x"})
        assert refused.is_error  # not offered at all
        off = await s.call_tool("similar_sessions", {"session": sid})
        assert off.is_error and "search by meaning is off" in off.content[0].text
    _run(store_path, calls=calls)


def test_search_by_meaning_and_similar_sessions(store_path, tmp_path):
    pytest.importorskip("model2vec")
    from sessionscope.recall import semantic
    from tests.semantic_model import build
    with open_store(store_path) as store:
        a = store.open_session(title="speed up lookups")
        store.append(a.id, "message", role="user", text="add an lru cache to the lookups")
        b = store.open_session(title="parser")
        store.append(b.id, "message", role="user", text="memoize the parser results")
        ops.set_semantic(store, semantic.Config(enabled=True, model=str(build(tmp_path / "model"))))
        ops.embed(store)

    async def calls(s):
        hits = _data(await s.call_tool("search", {"query": "memoization", "limit": 5}))["hits"]
        assert {h["session"] for h in hits} == {a.id, b.id} and {h["found_by"] for h in hits} == {"meaning"}
        like = _data(await s.call_tool("similar_sessions", {"session": a.id[:8]}))
        assert like["similar"][0]["session"] == b.id and like["similar"][0]["score"] > 0.5
    _run(store_path, calls=calls)


def test_write_tools_only_with_allow_write_and_recorded(store_path):
    async def calls(s):
        names = {t.name for t in (await s.list_tools()).tools}
        assert names == READ | {"add_note", "pin", "tag"}
        sid = _data(await s.call_tool("list_sessions", {"filter": "cookie"}))["sessions"][0]["id"]
        first = _data(await s.call_tool("transcript", {"session": sid, "limit": 1}))["events"][0]["id"]
        note = _data(await s.call_tool("add_note", {"session": sid, "text": "picked up by an agent", "event": first}))
        assert note["event_id"] == first
        assert _data(await s.call_tool("pin", {"session": sid, "event": first}))["pins"] == [first]
        assert _data(await s.call_tool("tag", {"session": sid, "add": ["mcp"]}))["tags"] == ["mcp"]
        return sid
    sid = _run(store_path, "--allow-write", calls=calls)
    with open_store(store_path) as store:
        assert [a["action"] for a in store.audit_log(sid)][:3] == ["tag", "pin", "note.add"]
        assert all(a["actor"].endswith(" via mcp") for a in store.audit_log(sid)[:3])


def test_without_redaction_the_secret_is_given_as_it_is(store_path):
    async def calls(s):
        return _data(await s.call_tool("search", {"query": "login"}))["hits"][0]["snippet"]
    assert SECRET in _run(store_path, "--no-redact", calls=calls)


def test_claude_code_lists_the_server_as_connected(store_path, tmp_path):
    sdk = pytest.importorskip("claude_agent_sdk")
    claude = Path(sdk.__file__).parent / "_bundled" / "claude"
    if not claude.is_file():
        pytest.skip("claude-agent-sdk has no bundled claude on this platform")
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "lastOnboardingVersion": "2.1.330", "numStartups": 3,
        "projects": {str(work): {"allowedTools": [], "hasTrustDialogAccepted": True}}}))
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_API_KEY")} | {
        "HOME": str(home), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1"}
    added = subprocess.run([str(claude), "mcp", "add", "sessionscope", "--", sys.executable, "-m", "sessionscope.cli",
                            "--store", str(store_path), "mcp"], cwd=work, env=env, capture_output=True, text=True,
                           timeout=60)
    assert added.returncode == 0, added.stderr
    listed = subprocess.run([str(claude), "mcp", "list"], cwd=work, env=env, capture_output=True, text=True,
                            timeout=90)
    assert "sessionscope" in listed.stdout and "Connected" in listed.stdout, listed.stdout + listed.stderr


def test_over_http_every_request_needs_the_token(store_path):
    import socket
    import time
    import urllib.request

    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = "t0ken-for-the-test"
    server = subprocess.Popen([sys.executable, "-m", "sessionscope.cli", "--store", str(store_path), "mcp", "--http",
                               str(port)], env=dict(os.environ, SESSIONSCOPE_MCP_TOKEN=token),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:  # up once it answers (401: it is up, and refuses a request without the token)
            try:
                urllib.request.urlopen(urllib.request.Request(url, method="POST", data=b"{}"), timeout=1)
            except urllib.error.HTTPError as exc:
                assert exc.code == 401 and b"bearer token" in exc.read()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, server.stderr.read().decode()
                time.sleep(0.2)

        async def main():
            client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
            async with streamable_http_client(url, http_client=client) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return _data(await session.call_tool("search", {"query": "cookie", "limit": 2}))
        assert len(asyncio.run(main())["hits"]) == 2
    finally:
        server.terminate()
        server.wait(timeout=10)
