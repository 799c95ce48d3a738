"""View ▸ Replay (#37 item 4): a slider over the branch shown moves the timeline's position — and with it the event,
the facts at that point — and says the time and the tokens and cost spent so far; ▶ plays it forward."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.sqlite_only


def _session(store):
    sid = store.open_session(title="replayed", model="claude-sonnet-4-5").id
    t = 1_780_000_000.0
    store.append(sid, "message", role="user", text="plan it", ts=t)
    store.append(sid, "fact.set", ts=t + 1, payload={"key": "plan", "value": "step one"})
    store.append(sid, "message", role="assistant", text="first", ts=t + 2, tokens_in=1000, tokens_out=100,
                 payload={"message": {"model": "claude-sonnet-4-5", "usage": {"input_tokens": 1000, "output_tokens": 100}}})
    store.append(sid, "message", role="user", text="go on", ts=t + 60)
    store.append(sid, "fact.set", ts=t + 61, payload={"key": "plan", "value": "step two"})
    store.append(sid, "message", role="assistant", text="second", ts=t + 62, tokens_in=3000, tokens_out=200,
                 payload={"message": {"model": "claude-sonnet-4-5", "usage": {"input_tokens": 3000, "output_tokens": 200}}})
    return sid


def test_the_slider_moves_the_timeline_facts_and_spending(window, qtbot):
    sid = _session(window.store)
    window.sessions.model.reload()
    window.open_session(sid)
    qtbot.waitUntil(lambda: window.session is not None and window.session.id == sid, timeout=10000)
    b = window.branch
    window.qactions["view.replay"].trigger()  # Ctrl+Alt+P
    bar = b.replay
    assert bar.isVisible()
    qtbot.waitUntil(lambda: bool(bar.marks), timeout=10000)
    rows = b.timeline_model.rowCount()
    assert bar.slider.maximum() == rows - 1
    # (the timeline's rows come in pages, read on a worker: asking for one that is not here yet requests it)
    qtbot.waitUntil(lambda: all(b.timeline_model.event_at(r) is not None for r in range(rows)), timeout=10000)
    texts = [b.timeline_model.event_at(r).text for r in range(rows)]
    first, second = texts.index("first"), texts.index("second")
    bar.slider.setValue(first)  # the timeline follows, and the facts at that point
    assert b.detail.current_event.text == "first"
    qtbot.waitUntil(lambda: b.detail.facts.topLevelItemCount() == 1, timeout=10000)
    assert b.detail.facts.topLevelItem(0).text(1) == "step one"
    assert "1.1k tokens so far" in bar.label.text() and "$" in bar.label.text()
    bar.slider.setValue(second)
    qtbot.waitUntil(lambda: b.detail.facts.topLevelItemCount() == 1 and
                    b.detail.facts.topLevelItem(0).text(1) == "step two", timeout=10000)
    assert "4.3k tokens so far" in bar.label.text()
    cost_first, cost_second = bar.spent_at(b.timeline_model.event_at(first).id)[1], \
        bar.spent_at(b.timeline_model.event_at(second).id)[1]
    assert 0 < cost_first < cost_second
    assert cost_second == pytest.approx(window.store.session_costs([sid])[sid])  # so far, at the end: the whole cost
    # a click in the timeline moves the slider; ▶ plays to the end and stops
    b.timeline.selectRow(0)
    assert bar.slider.value() == 0
    bar.play.setChecked(True)
    qtbot.waitUntil(lambda: not bar.play.isChecked(), timeout=10000)
    assert bar.slider.value() == rows - 1 and b.detail.current_event.text == texts[-1]
    window.qactions["view.replay"].trigger()
    assert not bar.isVisible()
