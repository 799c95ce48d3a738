"""A demo store: sessions with forks, rewinds, compactions, subagents and facts.

`sessionscope --demo` opens it so a newcomer sees every view without any agent
history on the machine. Everything is written through the public store API.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from sessionscope.store.api import Store, open_store

HOUR = 3600.0


def _turn(store: Store, sid: str, ts: float, prompt: str, reply: str, tool: tuple[str, dict, str] | None = None,
          tokens: tuple[int, int] = (1200, 180)) -> float:
    store.append(sid, "message", role="user", text=prompt, ts=ts)
    ts += 20
    store.append(sid, "thinking", role="assistant", text=f"The user wants: {prompt[:60]}. Plan the smallest change.", ts=ts)
    if tool:
        name, args, output = tool
        ts += 5
        store.append(sid, "tool_call", role="assistant", text=f"{name} {json.dumps(args)}",
                     payload={"name": name, "input": args}, ts=ts, tokens_in=tokens[0], tokens_out=tokens[1] // 3)
        ts += 9
        store.append(sid, "tool_result", role="tool", text=output, payload={"output": output}, ts=ts)
    ts += 30
    store.append(sid, "message", role="assistant", text=reply, ts=ts, tokens_in=tokens[0] // 2, tokens_out=tokens[1])
    return ts + 60


def build_demo(store: Store, now: float | None = None) -> list[str]:
    """Fill `store` with demo sessions; returns their ids, the richest first."""
    now = time.time() if now is None else now
    t = now - 5 * HOUR
    main = store.open_session(title="Fix the flaky login test", agent="claude-code", project="~/src/webshop",
                              cwd="/home/demo/src/webshop", model="claude-sonnet-4-5", tags=["demo", "tests"],
                              budget={"tokens": 400_000}).id
    t = _turn(store, main, t, "The login test fails one run in five. Find out why.",
              "The test races the session cookie: it reads it before the redirect sets it.",
              ("Bash", {"command": "pytest tests/test_login.py -x --count 20"},
               "FAILED tests/test_login.py::test_login_redirect - AssertionError: cookie missing\n"
               "4 failed, 16 passed in 12.31s"))
    store.set_fact(main, "todos", [{"content": "reproduce the flake", "status": "completed"},
                                   {"content": "wait for the redirect", "status": "pending"}], ts=t)
    store.set_fact(main, "decision", "wait for the redirect instead of sleeping", ts=t + 1)
    t = _turn(store, main, t + 2, "Show me the fixture that sets the cookie.",
              "Here it is; it returns before the redirect completes.",
              ("Read", {"file_path": "tests/conftest.py"},
               "@pytest.fixture\ndef logged_in(client):\n    client.post('/login', data=CREDS)\n    return client\n"))
    # a subagent explores the code base for the main agent
    store.append(main, "tool_call", role="assistant", text='Task {"description": "find other cookie races"}',
                 payload={"name": "Task", "input": {"description": "find other cookie races"}}, ts=t)
    for i, text in enumerate(["Searching for cookie reads after POST…", "Found 2 more: test_cart.py, test_logout.py"]):
        store.append(main, "message", role="assistant", text=text, sidechain=True, agent_id="explore-1",
                     ts=t + 10 + i * 20)
    store.append(main, "tool_result", role="tool", text="2 more races: test_cart.py, test_logout.py", ts=t + 60)
    store.set_fact(main, "file:tests/conftest.py", "edit", ts=t + 61)
    before_fix = store.append(main, "message", role="assistant", text="I'll make the fixture wait for the redirect.",
                              ts=t + 70)
    t = _turn(store, main, t + 80, "Go ahead and fix it.", "Fixed: the fixture follows the redirect. 20/20 green.",
              ("Edit", {"file_path": "tests/conftest.py", "old_string": "client.post('/login', data=CREDS)",
                        "new_string": "client.post('/login', data=CREDS, follow_redirects=True)"}, "Updated 1 file"))
    store.set_fact(main, "todos", [{"content": "reproduce the flake", "status": "completed"},
                                   {"content": "wait for the redirect", "status": "completed"}], ts=t)
    store.compact(main, "Summary so far: the login test raced the session cookie; the fixture now follows "
                        "the redirect and 20 runs pass. Open: the same race in test_cart.py and test_logout.py.",
                  ts=t + 5)
    t = _turn(store, main, t + 10, "Now fix the two other races the same way.",
              "Both fixed; the whole suite passes 20 times in a row.",
              ("Bash", {"command": "pytest -x --count 20"}, "312 passed in 41.02s"))
    # the user rewinds to try a different fix, abandoning the branch above
    store.rewind(main, before_fix.id)
    t = _turn(store, main, t, "Actually, use an explicit wait on the cookie instead.",
              "Done with wait_for_cookie(); it is clearer in the test body.",
              ("Edit", {"file_path": "tests/helpers.py", "old_string": "", "new_string": "def wait_for_cookie(...)"},
               "Created tests/helpers.py"))
    store.set_fact(main, "decision", "explicit wait_for_cookie() helper", ts=t)
    store.set_fact(main, "file:tests/helpers.py", "write", ts=t + 1)
    forked = store.fork(main, before_fix.id, title="Try retry-on-failure instead").session
    assert forked is not None  # (a fork's Changes name the new session)
    fork = forked.id
    _turn(store, fork, t - 1800, "What if we just retried flaky tests?",
          "Retries would hide real failures; I would not recommend it.", tokens=(900, 120))

    others = []
    specs = [
        ("Upgrade to Django 5.1", "codex", "gpt-5-codex", "closed", 30),
        ("Write the release notes for 2.4", "claude-code", "claude-haiku-4-5", "idle", 10),
        ("Investigate slow checkout query", "claude-code", "claude-opus-4-1", "paused", 52),
        ("Old spike: GraphQL gateway", "gemini", "gemini-2.5-pro", "archived", 700),
        ("Nightly triage bot", "triager", "claude-sonnet-4-5", "active", 20),
    ]
    for title, agent, model, status, hours_ago in specs:  # the models make the Usage view's cost
        sid = store.open_session(title=title, agent=agent, project="~/src/webshop", cwd="/home/demo/src/webshop",
                                 model=model).id
        ts = now - hours_ago * HOUR
        _turn(store, sid, ts, f"{title}: where do we start?", "Here is a plan in three steps.",
              ("Bash", {"command": "git log --oneline -5"}, "a1b2c3d Bump deps\n9f8e7d6 Fix typo"))
        store.set_fact(sid, "plan", ["read the code", "change it", "test it"], ts=ts + 200)
        if status == "closed":
            store.close_session(sid)
        elif status == "paused":
            store.pause(sid)
        elif status == "idle":
            store.mark_idle(sid)
        elif status == "archived":
            store.close_session(sid)
            store.archive(sid)
        others.append(sid)
    return [main, fork, *others]


DEMO_VERSION = "2"  # 2: the sessions name their models (the Usage view prices them)


def demo_store(folder: Path) -> Store:
    """Open (building once, and again when the demo changes) the demo store in `folder`. Its sessions are
    made up, so an older demo is simply replaced."""
    from sessionscope.safety.privacy import private_dir
    from sessionscope.store import settings
    private_dir(folder)  # beside the user's own store, in the same private data dir
    path = folder / "demo.db"
    store = open_store(path)
    with store.reader() as conn:
        version = settings.get(conn, "demo_version")
    if version != DEMO_VERSION:
        store.close()
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        store = open_store(path)
        build_demo(store)
        store.write(lambda conn: settings.put(conn, "demo_version", DEMO_VERSION))
    return store
