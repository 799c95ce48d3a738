"""Markdown detail levels, the Claude Code export read back by claude-agent-sdk, branches and searches."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

from sessionscope.errors import Refused
from sessionscope.export.core import ExportRequest
from sessionscope.ops import export


def _md(store, tmp_path, sid, **kw) -> str:
    path = tmp_path / f"{sid[:8]}-{kw.get('detail', 'full')}.md"
    export(store, ExportRequest("md", (sid,), **kw), path)
    return path.read_text()


def test_markdown_detail_levels(rich_store, tmp_path):
    store, _t = rich_store
    main = next(s for s in store.sessions() if s.title == "Fix the flaky login test")
    prompts = _md(store, tmp_path, main.id, detail="prompts")
    conversation = _md(store, tmp_path, main.id, detail="conversation")
    full = _md(store, tmp_path, main.id, detail="full")
    assert "Find out why." in prompts and "races the session cookie" not in prompts
    assert "races the session cookie" in conversation and "4 failed, 16 passed" not in conversation
    assert "4 failed, 16 passed" in full and "**Thinking**" in full and "```bash" in full
    # the subagent's run is nested (quoted) right after the Task call that spawned it
    lines = full.splitlines()
    task = next(i for i, line in enumerate(lines) if line.startswith("**Tool call · Task**"))
    run = next(i for i, line in enumerate(lines) if "**Subagent run**" in line)
    assert task < run and lines[run + 2].startswith("> **Assistant**")
    assert "Searching for cookie reads" in "\n".join(lines[run:run + 8])


def test_markdown_fences_outlast_backticks_in_output(store, tmp_path):
    sid = store.open_session(title="fences").id
    store.append(sid, "tool_call", role="assistant", payload={"name": "Read", "input": {"file_path": "README.md"}})
    store.append(sid, "tool_result", role="tool", text="```python\nprint(1)\n```", payload={"output": "```python\nprint(1)\n```"})
    md = _md(store, tmp_path, sid)
    assert "````\n```python\nprint(1)\n```\n````" in md


def test_a_branch_export_follows_that_branch_only(store, tmp_path):
    sid = store.open_session(title="rewound").id
    first = store.append(sid, "message", role="user", text="the question")
    store.append(sid, "message", role="assistant", text="the abandoned answer")
    store.rewind(sid, first.id)
    kept = store.append(sid, "message", role="assistant", text="the better answer")
    whole = _md(store, tmp_path, sid)
    assert "the better answer" in whole and "the abandoned answer" not in whole
    assert "branch point" not in whole  # a rewound reply is not a second user branch
    abandoned = store.leaves(sid)[0]
    branch = _md(store, tmp_path, sid, head=abandoned)
    assert "the abandoned answer" in branch and "the better answer" not in branch
    assert kept.id not in branch


def test_the_sessions_of_a_search(rich_store, tmp_path):
    store, _t = rich_store
    path = tmp_path / "search.md"
    report = export(store, ExportRequest("md", search="cookie"), path)
    hit_sessions = {h.session_id for h in store.search("cookie", limit=10_000)}
    assert report.sessions == len(hit_sessions) >= 2
    assert path.read_text().count("\n# ") + path.read_text().startswith("# ") == len(hit_sessions)


def _sdk_messages(session_id, cwd):
    sdk = pytest.importorskip("claude_agent_sdk")
    return sdk.get_session_messages(session_id, directory=cwd)


def test_claude_export_of_a_claude_session_reads_back_like_the_original(rich_store, tmp_path, monkeypatch):
    store, t = rich_store
    original = [(m.type, m.message) for m in _sdk_messages_in(tmp_path / "claude-home", t.session_id, t.cwd,
                                                               monkeypatch)]
    out = tmp_path / "elsewhere"
    report = export(store, ExportRequest("claude", (t.session_id,)), out)
    main = Path(report.files[0])
    assert main.parent == out and main.stem != t.session_id  # a copy, under an id of its own
    assert (out / main.stem / "subagents" / "agent-a1b2c3d.jsonl").is_file()
    lines = [orjson.loads(x) for x in main.read_bytes().splitlines()]
    assert all(x["forkedFrom"]["sessionId"] == t.session_id for x in lines if "uuid" in x)
    assert lines[-1] == {"type": "custom-title", "customTitle": f"{store.session(t.session_id).title} (export)",
                         "sessionId": main.stem}
    home = tmp_path / "other-home"
    (home / "projects" / "-work-app").mkdir(parents=True)
    main.rename(home / "projects" / "-work-app" / main.name)
    exported = [(m.type, m.message) for m in _sdk_messages_in(home, main.stem, t.cwd, monkeypatch)]
    assert exported == original and len(exported) >= 4


def test_exports_never_come_back_into_the_session_they_came_from(rich_store, tmp_path, monkeypatch):
    """A scan of Claude Code's folder after an export (the app's watcher does one every 2 s) brings the
    export in as a session of its own, forked from its origin; the origin is as it was."""
    from sessionscope.sources import importing
    store, _t = rich_store
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    for s in store.sessions():
        before = store.session(s.id)
        report = export(store, ExportRequest("claude", (s.id,)), None)  # where claude --resume looks
        importing.import_paths(store, [tmp_path / "home" / "projects"])
        after = store.session(s.id)
        assert (after.event_count, after.title, after.head_event_id) == \
            (before.event_count, before.title, before.head_event_id)
        copy = store.session(Path(report.files[0]).stem)
        assert copy.forked_from_session == s.id and copy.title.endswith("(export)")
    assert not (tmp_path / "home" / "projects" / "-").exists()  # a session without a folder: the home's project
    # a file named after a stored session is refused: the next scan would read it back into that session
    s = store.sessions()[0]
    with pytest.raises(Refused, match="read back into"):
        export(store, ExportRequest("claude", (s.id,)), tmp_path / f"{s.id}.jsonl")


def _sdk_messages_in(home, session_id, cwd, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    return _sdk_messages(session_id, cwd)


def test_claude_export_of_a_native_session(rich_store, tmp_path, monkeypatch):
    store, _t = rich_store
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home"))
    main = next(s for s in store.sessions() if s.title == "Fix the flaky login test")
    report = export(store, ExportRequest("claude", (main.id,)), None)  # where claude --resume looks
    path = report.files[0]
    assert path.startswith(str(tmp_path / "home" / "projects" / "-home-demo-src-webshop"))
    messages = _sdk_messages(os.path.basename(path)[:-6], main.cwd)
    roles = [m.type for m in messages]
    assert roles[0] == "user" and "assistant" in roles
    texts = [orjson.dumps(m.message).decode() for m in messages]
    # every tool_use is answered by the next message's tool_result (the API requires it)
    for i, m in enumerate(messages):
        content = m.message.get("content")
        if isinstance(content, list) and content and content[0].get("type") == "tool_use":
            nxt = messages[i + 1].message["content"][0]
            assert nxt["type"] == "tool_result" and nxt["tool_use_id"] == content[0]["id"]
    assert any("wait_for_cookie" in x or "redirect" in x for x in texts)
    # never over an existing transcript: each export is a new file
    again = export(store, ExportRequest("claude", (main.id,)), None)
    assert again.files[0] != path


def test_a_result_follows_the_call_it_answers_when_calls_run_in_parallel(store, tmp_path):
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import parallel_calls
    t = parallel_calls()
    import_paths(store, [t.write(tmp_path / "p")])
    out = tmp_path / "x.md"
    export(store, ExportRequest("md", (t.session_id,), detail="full"), out)
    md = out.read_text()
    # each call with the result that answers it, as the reader's cards show them (not in the order written)
    assert md.index("**Tool call · Read**") < md.index("**Tool result · Read**") < md.index("def a(): pass") \
        < md.index("**Tool call · Grep**") < md.index("**Tool result · Grep**") < md.index("3 matches")


def _written(md: str) -> int:
    """The events a Markdown export wrote: each starts with its header line (label · time · tokens)."""
    import re
    header = re.compile(r"^(> )?\*\*[^*\n]+\*\* · (\d{4}-\d\d-\d\d [\d:]+ UTC)?( · [\d,]+ tokens)?$", re.M)
    return len(header.findall(md))


def _promised(store, session_id) -> int:
    """What a full export promises: every event of the branch (with what it reads through from an origin
    session) and every event of the session's subagent runs, that full detail shows and the reader draws
    (not an empty reply, a checkpoint or a progress line)."""
    from sessionscope.export.render import NOT_CARDS, describe, empty_reply, shown
    ids = set(store.branch_ids(session_id, include_subagents=True))
    ids |= {e.id for e in store.events(session_id) if e.sidechain}
    return sum(1 for e in store.events_by_ids(sorted(ids))
               if shown(describe(e), "full") and e.kind not in NOT_CARDS and not empty_reply(e))


def test_a_full_export_writes_subagent_runs_kept_inline(store, tmp_path):
    """Older Claude Code wrote a subagent's run into the main file (sidechain lines, no agent id,
    starting from no parent): a full export writes all of it after the call that spawned it and the call's
    result, as the reader shows the run's card under the call's."""
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import Transcript
    t = Transcript()
    t.user("find the flaky test")
    task = t.assistant(tool=("Task", {"description": "search", "prompt": "grep for sleep()"}))
    main_last = t.last
    run = [t.user("grep for sleep()", parent=None), t.assistant("found 3 in test_login.py")]
    for line in run:
        line["isSidechain"] = True
    t.tool_result(task, "3 places sleep", parent=main_last)
    t.assistant("The sleeps in test_login.py are the cause.")
    import_paths(store, [t.write(tmp_path / "p")])
    out = tmp_path / "x.md"
    export(store, ExportRequest("md", (t.session_id,), detail="full"), out)
    md = out.read_text()
    assert _written(md) == _promised(store, t.session_id) == 6
    assert md.index("Tool call · Task") < md.index("3 places sleep") < md.index("> found 3 in test_login.py")


def test_full_exports_of_the_corpus_write_every_promised_event(corpus, store, tmp_path):
    from sessionscope.sources import importing
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no claude-code corpus")
    importing.import_paths(store, [folder])
    for s in store.sessions(limit=1000):
        export(store, ExportRequest("md", (s.id,), detail="full"), tmp_path / "x.md")
        assert _written((tmp_path / "x.md").read_text()) == _promised(store, s.id), s.title
        (tmp_path / "x.md").unlink()


@pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")
def test_what_an_export_killed_mid_write_leaves_is_removed_by_the_next_one(store, tmp_path, monkeypatch):
    """#29 item 16: a killed export's `.NAME.sessionscope-PID-….part` is removed by the next export into that
    folder once its process is gone (a live writer's, or a fresh one, is left alone)."""
    import subprocess
    import sys
    import textwrap

    from sessionscope.store import partfiles
    from tests.conftest import REPO
    sid = store.open_session(title="killed").id
    for i in range(50):
        store.append(sid, "message", role="user", text=f"line {i} " + "x" * 2000)
    url = store.engine.url.render_as_string(hide_password=False)
    out = tmp_path / "out"
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from sessionscope import open_store
        from sessionscope.export import core
        real = core.atomic_output
        import contextlib
        @contextlib.contextmanager
        def dying(path):
            with real(path) as fh:
                fh.write("half an export")
                fh.flush()
                os.kill(os.getpid(), 9)
                yield fh
        core.atomic_output = dying
        core.export(open_store({url!r}), core.ExportRequest("md", ({sid!r},)), Path({str(out / "s.md")!r}))
    """)
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO)
    assert run.returncode == -9
    [left] = [p for p in out.iterdir() if p.name.endswith(".part")]
    assert left.name.startswith(".s.md.sessionscope-")
    export(store, ExportRequest("md", (sid,)), out / "other.md")
    assert left.exists()  # quiet for less than a minute: it may be another machine's writer
    os.utime(left, (time.time() - 120, time.time() - 120))
    mine = out / f".x.md.sessionscope-{os.getpid()}-live.part"
    mine.write_text("a live writer's")
    os.utime(mine, (time.time() - 120, time.time() - 120))
    export(store, ExportRequest("md", (sid,)), out / "third.md")
    assert not left.exists() and mine.exists()
    assert sorted(p.name for p in out.iterdir()) == sorted([mine.name, "other.md", "third.md"])
    assert partfiles.sweep(out) == []


def test_a_replys_thinking_opens_the_card_of_what_it_led_to(store, tmp_path):
    """As in the reader: thinking and the reply it led to are one card of the HTML export, thinking and its
    tool call with the call's result another; thinking that nothing of its reply followed keeps its own."""

    sid = store.open_session(title="thinking").id
    store.append(sid, "message", role="user", text="why is the build red?")
    store.append(sid, "thinking", role="assistant", text="check the lockfile")
    store.append(sid, "message", role="assistant", text="the lockfile is stale")
    store.append(sid, "thinking", role="assistant", text="read it first")
    call = store.append(sid, "tool_call", role="assistant", payload={
        "type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "uv.lock"}}).id
    store.append(sid, "tool_result", role="user", text="(the lockfile)",
                 payload={"type": "tool_result", "tool_use_id": "toolu_1", "content": "(the lockfile)"})
    store.append(sid, "thinking", role="assistant", text="maybe the image")
    store.append(sid, "message", role="user", text="never mind")
    page = tmp_path / "x.html"
    export(store, ExportRequest("html", (sid,), detail="full"), page)
    cards, alone = _cards(page.read_text())
    assert cards == [["thinking", "reply"], ["thinking", "tool_call", "tool_result"]], cards
    assert alone == ["prompt", "thinking", "prompt"]  # (the last thinking: its reply never came)
    assert call


def _cards(text: str) -> tuple[list[list[str]], list[str]]:
    """The HTML export's cards of several events (`.pair`), each its events' kinds; and the events alone."""
    from html.parser import HTMLParser

    cards: list[list[str]] = []
    alone: list[str] = []

    class Cards(HTMLParser):
        stack: list[str] = []

        def handle_starttag(self, tag, attrs):
            if tag != "div":
                return
            cls = dict(attrs).get("class") or ""
            if cls == "pair":
                cards.append([])
            elif cls.startswith("ev "):
                (cards[-1] if self.stack and self.stack[-1] == "pair" else alone).append(cls.split()[1])
            self.stack.append(cls)

        def handle_endtag(self, tag):
            if tag == "div":
                self.stack.pop()
    Cards().feed(text)
    return cards, alone
