"""The conversation reader on a real imported Claude Code session: cards with Markdown and highlighted
code, a tool call and its result as one folded card with a one-line summary, a diff when opened, a
subagent run nested under its call, a compaction as a divider, find, prompt jumps, copying, and the
reader and the timeline keeping one selection."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from tests.sources.claude_factory import Transcript

PROMPT = ("# Plan\n\n- first\n- second\n\n| file | lines |\n|---|---|\n| app.py | 12 |\n\n"
          "```python\ndef answer():\n    return 42\n```\n\nsee [the docs](https://example.com/docs)")


def _claude_session(folder) -> Transcript:
    t = Transcript(cwd="/work/app")
    t.user(PROMPT)
    t.assistant(thinking="The helper needs a second line before the test can pass.")
    edit = t.assistant(tool=("Edit", {"file_path": "tests/helpers.py", "old_string": "a = 1\nb = 2\n",
                                      "new_string": "a = 1\nc = 3\nd = 4\n"}))
    t.tool_result(edit, "The file tests/helpers.py has been updated.")
    bash = t.assistant(tool=("Bash", {"command": "pytest -q", "description": "run the tests"}))
    failed = t.tool_result(bash, "Exit code 1\nFAILED tests/test_login.py::test_cookie")
    failed["message"]["content"][0]["is_error"] = True
    t.assistant("")  # an empty reply line (its tool calls have their own cards)
    t.assistant("The cookie test **races the redirect**.")
    t.compact("Summary: the login test races the cookie; helpers were edited.")
    t.user("Now ask a subagent to look")
    task = t.assistant(tool=("Task", {"subagent_type": "general", "description": "look for races", "prompt": "look"}))
    t.tool_result(task, "found it", extra={"agentId": "a1b2c3d", "status": "completed", "agentType": "general"})
    t.user("Thanks, that is all")
    t.assistant("Fixed by waiting for the redirect.")
    t.write(folder)
    t.write_subagent(folder, "a1b2c3d", "look for races", "looked in tests/")
    return t


def _in_reader(window, qtbot, project, session_id: str):
    """Import the transcripts in `project` and show `session_id` in the reader, every card's event read."""
    from sessionscope.sources.claude_code import import_paths

    import_paths(window.store, [project])
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(session_id) >= 0, timeout=10000)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(session_id)
    window.qactions["view.reader"].setChecked(True)
    window.branch.set_reader(True)
    r = window.branch.reader
    r.resize(900, 700)
    qtbot.waitUntil(lambda: r.cards and all(r.event_id(n) in r.events for n in range(len(r.cards))), timeout=10000)
    return r


@pytest.fixture
def reader(window, qtbot, tmp_path):
    """The window showing the Claude session in the reader."""
    project = tmp_path / "claude" / "projects" / "-work-app"
    t = _claude_session(project)
    return window, _in_reader(window, qtbot, project, t.session_id), t


def _cards(r, kind):
    return [n for n, c in enumerate(r.cards) if c.kind == kind]


def _text(r, n) -> str:
    d = r.doc(n)
    return d.toPlainText() if d is not None else ""


def test_the_reader_draws_the_branch_as_cards(reader):
    window, r, _t = reader
    assert window.branch.timeline_stack.currentWidget() is r
    first = r.doc(0)
    html = first.toHtml()
    assert "Plan" in first.toPlainText() and "<table" in html  # Markdown: a heading, a list, a table
    assert "first" in first.toPlainText() and "https://example.com/docs" in html
    assert "return" in first.toPlainText() and "color:#" in html.replace(" ", "")  # the code block is coloured
    assert "ctx" not in first.toPlainText()  # a prompt has no tokens
    tools = _cards(r, "tool")
    summaries = [_text(r, n).split("\n")[0] for n in tools]
    assert any("Edit tests/helpers.py (+2 −1)" in s for s in summaries), summaries
    assert any("Bash: pytest -q → exit 1" in s for s in summaries), summaries
    assert any("Task: look for races" in s for s in summaries), summaries
    # a call and its result are one card: no card of its own for a result
    assert not any(r.tm.kinds[c.at] == "tool_result" for c in r.cards)
    assert len(_cards(r, "divider")) == 1 and len(_cards(r, "summary")) == 1
    assert any("ctx 100 · out 20" in _text(r, n) for n in range(len(r.cards)))  # tokens labelled
    empty = [n for n in range(len(r.cards)) if r.doc(n).isEmpty()]
    assert len(empty) == 1 and r.height_of(empty[0]) == 0  # the empty reply takes no room


def test_tool_cards_fold_and_show_a_diff_when_opened(reader, qtbot):
    _window, r, _t = reader
    edit = next(n for n in _cards(r, "tool") if "Edit" in _text(r, n))
    folded = r.height_of(edit)
    assert "c = 3" not in _text(r, edit) and _text(r, edit).startswith("▸")
    # the thinking the call came from is part of its card: said on its head, read when it opens
    assert "thought · 11 words" in _text(r, edit).split("\n")[0] and "second line" not in _text(r, edit)
    r.current = edit
    qtbot.keyClick(r, Qt.Key.Key_Space)
    assert _text(r, edit).startswith("▾") and "+c = 3" in _text(r, edit) and "-b = 2" in _text(r, edit)
    assert "second line" in _text(r, edit)
    assert "has been updated" in _text(r, edit)  # its result, in the same card
    assert r.height_of(edit) > folded
    bash = next(n for n in _cards(r, "tool") if "Bash" in _text(r, n))
    rect = next(rect for n, rect in r.visible() if n == bash) if bash in dict(r.visible()) else None
    if rect is not None:  # a click on the head line opens it too
        qtbot.mouseClick(r.viewport(), Qt.MouseButton.LeftButton, pos=rect.topLeft() + QPoint(30, 12))
        assert "FAILED tests/test_login.py" in _text(r, bash)
    assert not _cards(r, "thinking")  # no card of thinking alone


def test_a_replys_thinking_is_part_of_its_card_and_opens_from_its_head(window, qtbot, tmp_path):
    """Thinking-only lines (their text empty where Claude Code keeps only a signature) make no card of their
    own: a reply's card says it thought and opens to the thinking; thinking that no reply follows (the user
    interrupted) keeps a folded card of its own."""
    t = Transcript(cwd="/work/app")
    t.user("why is the build red?")
    t.assistant(thinking="Check the lockfile first, then the cache.")
    t.assistant(thinking="")  # a signature alone
    t.assistant("The lockfile is stale.")
    t.user("and now?")
    t.assistant(thinking="Maybe the runner image changed")
    t.user("never mind")  # interrupted: nothing of that reply followed its thinking
    project = tmp_path / "claude" / "projects" / "-work-app"
    t.write(project)
    r = _in_reader(window, qtbot, project, t.session_id)
    texts = [_text(r, n) for n in range(len(r.cards))]
    assert [c.kind for c in r.cards] == ["event", "event", "event", "thinking", "event"], texts
    reply = 1
    assert len(r.cards[reply].thoughts) == 2
    assert texts[reply].startswith("Assistant") and "▸ thought · 7 words" in texts[reply].split("\n")[0]
    assert "lockfile first" not in texts[reply] and "stale" in texts[reply]
    rect = dict(r.visible())[reply]
    qtbot.mouseClick(r.viewport(), Qt.MouseButton.LeftButton, pos=rect.topLeft() + QPoint(30, 12))
    assert "▾ thought" in _text(r, reply) and "lockfile first" in _text(r, reply) and "stale" in _text(r, reply)
    timeline_row = r.tm.all_ids.index(t.lines[2]["uuid"])  # the thinking, chosen in the timeline
    assert r.card_index(timeline_row) == reply
    assert "Maybe the runner image" not in texts[3] and texts[3].startswith("▸ Thinking")


def test_a_subagent_run_is_a_nested_card_that_opens(reader):
    _window, r, _t = reader
    runs = _cards(r, "run")
    assert len(runs) == 1
    task = next(n for n in _cards(r, "tool") if "Task" in _text(r, n))
    assert runs[0] == task + 1  # right under the call that spawned it
    # named as its Task names it (#60: it read "agent a1b2c3d", the hex id)
    assert "general · look for races" in _text(r, runs[0]) and "2 events" in _text(r, runs[0])
    before = len(r.cards)
    r.toggle(runs[0])
    inside = [c for c in r.cards if c.depth == 1]
    assert len(r.cards) == before + 2 and len(inside) == 2
    assert r.card_for(r.event_id(runs[0])) == runs[0] + 1  # open, the event shows on its own card
    r.toggle(_cards(r, "run")[0])
    assert len(r.cards) == before


def test_reader_and_timeline_keep_one_selection(reader, qtbot):
    window, r, _t = reader
    r.setFocus()
    r.choose(0)
    qtbot.keyClick(r, Qt.Key.Key_Down)
    current = window.branch.timeline.currentIndex().row()
    assert window.branch.timeline_model.ids[current] == r.event_id(r.current)
    assert window.branch.detail.current_event is None or window.branch.detail.current_event.id == r.event_id(r.current)
    # Ctrl+Down (the window's next-prompt command) walks the timeline; the reader follows
    prompts = [n for n, c in enumerate(r.cards) if c.kind == "event" and r.events[r.event_id(n)].role == "user"]
    window.qactions["timeline.next_prompt"].trigger()
    qtbot.waitUntil(lambda: r.current == prompts[1], timeout=5000)
    window.qactions["timeline.next_prompt"].trigger()
    qtbot.waitUntil(lambda: r.current == prompts[2], timeout=5000)
    window.qactions["timeline.prev_prompt"].trigger()
    qtbot.waitUntil(lambda: r.current == prompts[1], timeout=5000)


def test_find_highlights_and_steps_through_matches(reader, qtbot):
    window, r, _t = reader
    r.choose(0)
    window.branch.find_edit.setText("redirect")
    window.branch.find_next()
    qtbot.waitUntil(lambda: r.current > 0 and "redirect" in _text(r, r.current).lower(), timeout=5000)
    first = r.current
    html = r.doc(first).toHtml().lower()
    assert "background-color:#ffe066" in html.replace(" ", "")
    window.branch.find_next()
    qtbot.waitUntil(lambda: r.current != first, timeout=5000)
    assert "redirect" in (_text(r, r.current) + r.tm.store.event(r.event_id(r.current)).text).lower()
    window.branch.find_edit.clear()
    assert r.needle == "" and "ffe066" not in r.doc(r.current).toHtml()


def test_text_is_selectable_and_copyable(reader, qtbot, qapp):
    _window, r, _t = reader
    r.choose(0)
    qtbot.keyClick(r, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)  # no selection: the whole card
    assert qapp.clipboard().text().startswith("# Plan")
    rect = dict(r.visible())[0]
    start = rect.topLeft() + QPoint(20, 14)
    qtbot.mousePress(r.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(r.viewport(), start + QPoint(200, 40))
    qtbot.mouseRelease(r.viewport(), Qt.MouseButton.LeftButton, pos=start + QPoint(200, 40))
    r.copy()
    picked = qapp.clipboard().text()
    assert picked and picked in r.doc(0).toPlainText() and len(picked) < len(r.doc(0).toPlainText())


def test_the_choice_of_reader_is_remembered(window):
    from PySide6.QtCore import QSettings
    window.qactions["view.reader"].setChecked(False)
    window.branch.set_reader(False)
    assert window.branch.timeline_stack.currentWidget() is window.branch.timeline
    window.qactions["view.reader"].trigger()
    assert QSettings().value("timeline/reader", type=bool) is True
    assert window.branch.timeline_stack.currentWidget() is window.branch.reader
    window.qactions["view.reader"].trigger()
    assert QSettings().value("timeline/reader", type=bool) is False


def test_the_dark_theme_redraws_the_cards_in_dark_colours(reader, qapp):
    from sessionscope.gui.window import theme
    _window, r, _t = reader
    light = r.doc(0).toHtml()
    try:
        theme.apply("dark")
        qapp.processEvents()
        dark = r.doc(0).toHtml()
        assert dark != light and "#7fb2f0" in dark  # the prompt's name in the dark palette's blue
        assert "#23241f" in dark  # the code block on the dark code background
    finally:
        theme.apply("system")
    assert "#1f5fbf" in r.doc(0).toHtml()


def test_a_shell_lines_output_reads_as_output_not_prose(qapp):
    from sessionscope.gui.reader.reader_cards import _body
    from sessionscope.gui.reader.timeline_model import command_output
    text = "<bash-stdout>===== 3 passed =====\n# not a heading</bash-stdout><bash-stderr></bash-stderr>"
    assert command_output(text) == "===== 3 passed =====\n# not a heading"
    assert command_output("say <bash-stdout>x</bash-stdout> inline") is None
    body = _body(text, dark=False)
    assert body.startswith("<pre") and "<h1" not in body and "# not a heading" in body


def test_a_pasted_image_shows_as_a_thumbnail(window, qtbot, tmp_path):
    import base64

    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QUrl
    from PySide6.QtGui import QColor, QImage, QTextDocument

    from sessionscope.sources.claude_code import import_paths
    image = QImage(640, 480, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366cc"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    t = Transcript(cwd="/work/app")
    line = t.user("")
    line["message"]["content"] = [{"type": "text", "text": "What is wrong in this screenshot?"},
                                  {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                               "data": base64.b64encode(bytes(data)).decode()}}]
    t.assistant("The button is off by a pixel.")
    project = tmp_path / "claude" / "projects" / "-work-app"
    t.write(project)
    import_paths(window.store, [project])
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(t.session_id) >= 0, timeout=10000)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(t.session_id)
    window.branch.set_reader(True)
    r = window.branch.reader
    qtbot.waitUntil(lambda: bool(r.cards) and r.doc(0) is not None, timeout=10000)
    d = r.doc(0)
    assert "<img" in d.toHtml() and "What is wrong" in d.toPlainText()
    thumb = d.resource(QTextDocument.ResourceType.ImageResource, QUrl(f"img:{r.event_id(0)}:0"))
    assert thumb is not None and thumb.width() == 240 and thumb.height() == 180  # scaled, its shape kept
    assert r.height_of(0) > 180
    window.branch.set_reader(False)


def test_a_plan_reads_as_the_plan_and_a_diff_names_an_absolute_path_once(qapp):
    """Claude Code's ExitPlanMode is the plan, as Markdown, titled by its first line, never its JSON in the
    error colour (a plan the user turned down comes back flagged is_error: a decision, not a failure); an
    edit of an absolute path has the headers git writes (a/Users/…, not a//Users/…)."""
    import orjson

    from sessionscope.export.render import describe
    from sessionscope.gui.reader.reader_cards import Card, card_html
    from sessionscope.gui.reader.reader_view import COLORS
    from sessionscope.history import cards
    from sessionscope.history.read_models import EventView

    def event(eid, kind, payload, text=""):
        return EventView(id=eid, session_id="s", parent_id=None, seq=1, depth=0, ts=1.7e9, kind=kind, role="assistant",
                         text=text, payload=orjson.dumps(payload).decode(), tokens_in=0, tokens_out=0,
                         sidechain=False, agent_id=None, hash="")
    plan = "# Fix the cookie race\n\n1. wait for the redirect\n2. **then** read the cookie"
    call = event("c", "tool_call", {"message": {"content": [
        {"type": "tool_use", "id": "t1", "name": "ExitPlanMode", "input": {"plan": plan}}]}}, "ExitPlanMode {…}")
    said_no = event("r", "tool_result", {"message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
         "content": "The user doesn't want to proceed with this tool use."}]}})
    events = {"c": call, "r": said_no}
    folded = card_html(Card(0, "tool", results=(1,)), events, ["c", "r"], False, COLORS[False], False)
    opened = card_html(Card(0, "tool", results=(1,)), events, ["c", "r"], True, COLORS[False], False)
    assert "Plan: Fix the cookie race" in folded and COLORS[False]["error"] not in folded
    assert "<h1>Fix the cookie race</h1>" in opened and "<strong>then</strong>" in opened  # Markdown, rendered
    assert "&quot;plan&quot;" not in opened and '"plan"' not in opened  # never its JSON
    item = describe(call)
    assert item.label == "Plan" and item.text == plan and not item.code  # the exports write it as prose
    edit = cards.Call("Edit", {"file_path": "/Users/me/app/a.py", "old_string": "a = 1", "new_string": "a = 2"})
    assert cards.diff(edit).splitlines()[:2] == ["--- a/Users/me/app/a.py", "+++ b/Users/me/app/a.py"]


def test_editor_context_in_a_prompt_reads_as_chips_not_tags(qapp):
    """What the IDE and the harness put into a prompt (<ide_opened_file>, <ide_selection>, a system reminder)
    is a line of small labels in the reader and in the exports; the words the user typed follow."""
    import orjson

    from sessionscope.export.render import describe
    from sessionscope.gui.reader.reader_cards import _body
    from sessionscope.history.read_models import EventView
    text = ("<ide_opened_file>The user opened the file /Users/me/app/src/a.py in the IDE. This may or may not be "
            "related to the current task.</ide_opened_file><ide_selection>The user selected the lines 3 to 9 from "
            "/Users/me/app/b.py:\ndef b(): ...\n</ide_selection>\n<system-reminder>Do not edit c.py</system-reminder>"
            "why does **b** fail?")
    body = _body(text, dark=False)
    assert "opened a.py" in body and "selection: b.py:3–9" in body and "system reminder" in body
    assert "ide_opened_file" not in body and "ide_selection" not in body and "system-reminder" not in body
    assert "<strong>b</strong>" in body  # the prompt itself, as Markdown
    e = EventView(id="p", session_id="s", parent_id=None, seq=1, depth=0, ts=1.7e9, kind="message", role="user",
                  text=text, payload=orjson.dumps({}).decode(), tokens_in=0, tokens_out=0, sidechain=False,
                  agent_id=None, hash="")
    item = describe(e)
    assert item.text.startswith("[opened a.py] [selection: b.py:3–9] [system reminder]\n\nwhy does **b** fail?")


def test_the_timeline_and_the_tree_say_a_tool_call_as_the_reader_does(reader, qtbot):
    from sessionscope.history.tree import TreeInput, _label
    window, _r, _t = reader
    model = window.branch.timeline_model
    loaded_rows = [model.index(i, 3).data() for i in range(model.rowCount()) if model.event_at(i) is not None]
    assert any(text.startswith("Bash: pytest -q") for text in loaded_rows)  # not `Bash {"command": …}`
    assert not any(text.startswith("Bash {") for text in loaded_rows)
    node = TreeInput("n", None, 1, "tool_call", "assistant", 'Bash {"command":"bd show spotter-fum"}')
    assert _label(node) == "Bash: bd show spotter-fum"


def test_a_session_with_no_conversation_empties_every_pane(window, qtbot, tmp_path):
    """A session of subagent work alone (no line of the main conversation): the timeline says so, and the vital
    signs, the branch tree and the detail do not go on showing the session opened before it."""
    from sessionscope.sources.claude_code import import_paths
    project = tmp_path / "claude" / "projects" / "-work-app"
    qtbot.waitUntil(lambda: window.branch.tree.tree_model.layout_ is not None and bool(window.branch.vitals_strip.signs)
                    and window.branch.detail.current_event is not None, timeout=10000)  # the demo's session, whole
    orphan = Transcript(session_id="0f0e0d0c-0000-4000-8000-00000000abcd")
    orphan.user("look for races in the login tests", parent=None)
    orphan.assistant("none found")
    for line in orphan.lines:
        line.update(isSidechain=True, agentId="a9f3c2e1")
    orphan.write(project, "agent-a9f3c2e1.jsonl")
    import_paths(window.store, [project])
    window.sessions.model.reload()
    qtbot.waitUntil(lambda: window.sessions.model.row_of(orphan.session_id) >= 0, timeout=10000)
    with qtbot.waitSignal(window.branch.sig_ready, timeout=10000):
        window.open_session(orphan.session_id)
    assert window.branch.session.id == orphan.session_id
    assert window.branch.timeline_model.rowCount() == 0
    assert "no conversation" in window.branch.timeline_label.text()
    assert window.branch.tree.tree_model.layout_ is None
    assert window.branch.detail.current_event is None
    assert not window.branch.vitals_strip.signs


def test_letters_typed_while_reading_find_and_never_act(reader, qtbot):
    """#60: typing "Mobile schema" with the reader focused took the session's star away (S); P and N pin and note
    the same way. A character typed in the reader goes to the find box; no one-key action fires."""
    window, r, _t = reader
    session = window.session
    starred, pins = session.starred, set(window.branch.timeline_model.pinned)
    r.setFocus()
    qtbot.waitUntil(r.hasFocus, timeout=2000)
    busy = []
    window.actions_.sig_busy.connect(busy.append)
    qtbot.keyClicks(r, "s")  # (the first letter moves the focus to the find box; the rest is typed there)
    qtbot.keyClicks(window.branch.find_edit, "pn")
    qtbot.wait(300)
    assert window.branch.find_edit.text() == "spn" and window.branch.find_edit.hasFocus()
    assert busy == [] and window.session.starred == starred and set(window.branch.timeline_model.pinned) == pins
    window.qactions["session.star"].trigger()  # the action itself still works, from its menu or button
    qtbot.waitUntil(lambda: window.session.starred != starred, timeout=5000)


def test_ctrl_l_in_reading_mode_shows_the_list_before_its_filter(reader, qtbot):
    """#60: Ctrl+L in reading mode typed into the hidden filter, whose list then switched the session under the
    reader. Now the list comes back first, its filter focused."""
    window, _r, _t = reader
    window.qactions["view.reading"].trigger()
    assert window.layout_.reading and not window.sessions.isVisible()
    window.qactions["view.filter"].trigger()
    assert not window.layout_.reading and window.sessions.isVisible()
    qtbot.waitUntil(window.sessions.filter.hasFocus, timeout=2000)


def test_parallel_subagents_are_named_by_the_task_that_spawned_each(qapp):
    """Two Task calls side by side: each run takes the name of the call whose prompt it starts with."""
    import json

    from sessionscope.gui.reader.reader_cards import _spawned_as
    from sessionscope.history.read_models import EventView

    def event(i, kind, payload=None, text="", side=False):
        return EventView(f"e{i}", "s", None, i, 0, 0.0, kind, "assistant", text, json.dumps(payload or {}), 0, 0,
                         side, "a1" if side else None, "")

    def task(i, kind, what, prompt):
        return event(i, "tool_call", {"message": {"content": [{"type": "tool_use", "id": f"t{i}", "name": "Task", "input": {
            "subagent_type": kind, "description": what, "prompt": prompt}}]}})
    events = {e.id: e for e in (task(0, "Explore", "map the cookie code", "find where cookies are read"),
                                task(1, "general-purpose", "race hunt", "look for races in tests/"))}
    first = event(2, "message", text="find where cookies are read", side=True)
    events[first.id] = first
    assert _spawned_as(first, events, ["e0", "e1", "e2"], 2) == "Explore · map the cookie code"
    other = event(3, "message", text="something else", side=True)
    assert _spawned_as(other, events | {"e3": other}, ["e0", "e1", "e3"], 2) == "general-purpose · race hunt"


def test_background_passes_wait_while_the_reader_or_the_list_scrolls(reader, qtbot):
    """A scroll step holds the background passes (the live states' pass over every session) at their next step: each
    paint of a scrolled view waits for Python's lock behind a worker running Python otherwise (#61)."""
    import time

    from sessionscope.gui.jobs import workers
    window, r, _t = reader
    qtbot.waitUntil(lambda: workers.quiet_for(0.0), timeout=5000)
    for scroll in (lambda: r.scroll_by(40), lambda: r.verticalScrollBar().setValue(1),
                   lambda: window.sessions.view.verticalScrollBar().valueChanged.emit(3),
                   lambda: window.branch.tree.verticalScrollBar().valueChanged.emit(2)):
        qtbot.waitUntil(lambda: workers.quiet_for(0.0), timeout=5000)
        scroll()
        assert not workers.quiet_for(0.0)
        t = time.monotonic()
        workers.yield_to_urgent()  # (a pass's step, here: the bound is the hold's, not `most`)
        assert 0.1 <= time.monotonic() - t < 0.9
        assert workers.quiet_for(0.0)
