"""A Claude Code session run on from the window (#63), by the `claude` claude-agent-sdk bundles against a loopback
Messages API in a scratch HOME: the reply streams into the run panel, a Bash call asks in the panel (and the session
needs you meanwhile), Allow lets it run, the transcript reaches the timeline; a fork run opens the fork; Stop
interrupts. Skips where the bundled CLI is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

sdk = pytest.importorskip("claude_agent_sdk")
BUNDLED = Path(sdk.__file__).parent / "_bundled" / "claude"
pytestmark = pytest.mark.skipif(not BUNDLED.is_file(), reason="needs the claude that claude-agent-sdk bundles")

from tests.messages_api import Script, first_session, offline_env, serve, text, tool  # noqa: E402


def _window(qtbot, store, *listed: str):
    """A window over `store` with a new user's settings, the browser shown, once it lists `listed`."""
    from PySide6.QtCore import QSettings

    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow
    make_app()
    QSettings().clear()
    QSettings().setValue("view/home_at_start", False)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.set_store(store)
    for sid in listed:
        qtbot.waitUntil(lambda sid=sid: w.sessions.model.row_of(sid) >= 0, timeout=10000)
    return w


@pytest.fixture
def claude_window(qtbot, tmp_path, monkeypatch):
    """A window over a store holding one Claude Code session that `claude` began, the loopback API serving `script`
    (the test fills its replies)."""

    from sessionscope import open_store
    from sessionscope.sources.claude_code import import_paths

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    script = Script([text("Hello.")])
    with serve(script) as url:
        for name, value in offline_env(home, url).items():
            monkeypatch.setenv(name, value)
        sid = first_session(work)
        store = open_store(tmp_path / "store.db")
        import_paths(store, [home / ".claude" / "projects"])
        w = _window(qtbot, store, sid)
        w.open_session(sid)
        qtbot.waitUntil(lambda: w.session is not None and w.session.id == sid, timeout=10000)
        yield w, script, sid, work
        w.close()
        store.close()


def test_a_run_streams_asks_and_lands_in_the_timeline(claude_window, qtbot):
    w, script, sid, work = claude_window
    script.replies[1:] = [tool("Bash", {"command": "touch from-the-window.txt", "description": "make it"}, "On it."),
                          text("Made it from the window.")]
    panel = w.branch.run_panel
    assert panel.isVisible() and not panel.run_button.isEnabled()  # nothing to say yet
    panel.prompt.setPlainText("make the file")
    panel.mode_box.setCurrentIndex(0)  # ask before acting
    assert panel.run_button.isEnabled()
    panel.run_button.click()
    qtbot.waitUntil(lambda: panel.ask_box.isVisible(), timeout=30000)
    assert "wants to run" in panel.ask_box.title.text() and "touch from-the-window.txt" in \
        panel.ask_box.view.toPlainText()
    assert panel.stop_button.isEnabled() and not panel.run_button.isEnabled()
    qtbot.waitUntil(lambda: sid in w.live.needing, timeout=10000)  # Needs You, as a hook's permission request
    assert "On it." in panel.output.toPlainText()  # the reply so far, streamed
    panel.ask_box.allow_once.click()
    qtbot.waitUntil(lambda: panel.running is None, timeout=30000)
    assert (work / "from-the-window.txt").exists()
    assert panel.state.text().startswith("ran:") and "Made it from the window." in panel.output.toPlainText()
    assert panel.detail()["asked"] == [{"tool": "Bash", "allowed": True}]
    def shown() -> list[str]:
        model = w.branch.timeline_model
        return [e.text for e in (model.event_at(r) for r in range(model.rowCount())) if e is not None]
    qtbot.waitUntil(lambda: "Made it from the window." in shown(), timeout=10000)  # the transcript, in the timeline
    qtbot.waitUntil(lambda: sid not in w.live.needing, timeout=10000)


def test_a_fork_run_opens_the_fork_and_stop_interrupts(claude_window, qtbot):
    w, script, sid, work = claude_window
    script.replies[1:] = [text("The fork's answer."), text("A long answer", hold=True)]
    panel = w.branch.run_panel
    panel.prompt.setPlainText("try the other way")
    panel.fork_box.setChecked(True)
    panel.run_button.click()
    qtbot.waitUntil(lambda: panel.running is None, timeout=30000)
    fork = panel.last_changes.session.id
    assert fork != sid
    qtbot.waitUntil(lambda: w.session is not None and w.session.id == fork, timeout=10000)
    assert w.sessions.model.row_of(fork) >= 0

    panel.fork_box.setChecked(False)
    panel.prompt.setPlainText("go on")
    panel.run_button.click()
    qtbot.waitUntil(lambda: script.held.is_set(), timeout=30000)
    panel.stop_button.click()
    qtbot.waitUntil(lambda: panel.running is None, timeout=30000)
    assert panel.detail()["ended"] == "interrupted" and panel.state.text().startswith("ran:")


def test_fork_and_explore_runs_two_paths_compares_them_and_keeps_one(claude_window, qtbot):
    w, script, sid, work = claude_window
    script.replies[1:] = [text("One path's answer.")]
    store = w.store
    reply = next(e for e in store.branch_view(sid) if e.kind == "message" and e.role == "assistant")
    w.openers.explore(store.session(sid), reply)
    view = w.openers.explore_view
    assert len(view.columns) == 2 and not view.run_button.isEnabled()  # each path needs its prompt
    view.columns[0].prompt.setPlainText("try it with a cache")
    view.columns[1].prompt.setPlainText("try it without one")
    view.columns[1].model_box.setCurrentIndex(3)  # another model for the second path
    view.run_button.click()
    qtbot.waitUntil(lambda: all(c.changes is not None for c in view.columns), timeout=60000)
    forks = [c.fork for c in view.columns]
    assert len(set(forks)) == 2 and sid not in forks
    assert [c.changes.detail["model"] for c in view.columns] == [None, "claude-haiku-4-5"]
    for fork, prompt in zip(forks, ("try it with a cache", "try it without one")):
        said = [e.text for e in store.branch_view(fork) if e.kind == "message"]  # the reply forked at, its prompt
        assert said[-3:-2] == [reply.text] and said[-2].endswith(prompt) and said[-1] == "One path's answer."
    qtbot.waitUntil(lambda: w.openers.compare_view is not None, timeout=10000)  # the comparison opens by itself
    assert {w.openers.compare_view.a[0], w.openers.compare_view.b[0]} == set(forks)
    w.openers.compare_view.close()
    view.columns[1].keep_button.click()
    qtbot.waitUntil(lambda: store.session(forks[0]).status == "archived", timeout=10000)
    assert store.session(forks[1]).status != "archived" and store.session(sid).status != "archived"
    assert "archive" in [e["action"] for e in store.audit_log(forks[0])]  # audited (Unarchive undoes it)
    qtbot.waitUntil(lambda: w.session is not None and w.session.id == forks[1], timeout=10000)
    view.close()


def test_an_agents_sdk_session_runs_from_the_panel_and_a_native_one_shows_none(qtbot, tmp_path, monkeypatch):
    """The panel is the session's own rule: an OpenAI Agents SDK session kept in the store runs from it (the SDK's
    Runner against a loopback Responses API, the reply in the timeline); a native session of the store's own shows
    no panel."""
    pytest.importorskip("agents")
    import asyncio

    from sessionscope import open_store
    from sessionscope.adapters.agents import SessionscopeSession
    from tests.responses_api import KEY, Replies
    from tests.responses_api import serve as serve_responses

    store = open_store(tmp_path / "store.db")
    kept = SessionscopeSession("support-7", store)
    asyncio.run(kept.add_items([{"role": "user", "content": "where is my parcel?"}]))
    kept.flush()
    kept.close()
    mine = store.open_session(title="notes of my own").id
    replies = Replies(["It left the depot this morning."])
    with serve_responses(replies) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        w = _window(qtbot, store, kept.id, mine)
        w.open_session(mine)
        qtbot.waitUntil(lambda: w.session is not None and w.session.id == mine, timeout=10000)
        panel = w.branch.run_panel
        assert not panel.isVisible()  # not an SDK's: nothing runs it
        w.open_session(kept.id)
        qtbot.waitUntil(lambda: w.session is not None and w.session.id == kept.id and panel.isVisible(), timeout=10000)
        assert panel.model_box.findData("gpt-4.1") >= 0  # the source's models offered
        panel.prompt.setPlainText("the tracking number is 55")
        panel.run_button.click()
        qtbot.waitUntil(lambda: panel.running is None, timeout=30000)
        assert panel.state.text().startswith("ran:") and "It left the depot" in panel.output.toPlainText()
        assert replies.requests[0]["input"][-1]["content"] == "the tracking number is 55"
        texts = [e.text for e in store.branch_view(kept.id) if e.kind == "message"]
        assert texts[-1] == "It left the depot this morning."
        w.close()
    store.close()
