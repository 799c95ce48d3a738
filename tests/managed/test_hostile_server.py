"""A hostile or broken API server (#29 items 9-13), through the real `anthropic` client on a loopback
server: pages that cycle, a retry-after of eleven days, sessions with odd values, a page that is not the
API, a gzip bomb, a body trickled a byte at a time, one huge event. Each ends as a problem line naming
the session or the URL, in bounded time and memory, and the rest of the workspace is pulled."""

from __future__ import annotations

import gzip
import json
import time

import pytest

pytest.importorskip("anthropic")

from sessionscope.sources import remote, remote_pull  # noqa: E402
from sessionscope.sources.managed_agents import events, sync  # noqa: E402

from .api_server import send_raw  # noqa: E402
from .test_managed_sync import api  # noqa: E402,F401 (the fixture)


def _page_of(rows, cursor):
    return json.dumps({"data": rows, "next_page": cursor, "prev_page": None}).encode()


def _trickle(headers: dict, pause: float):
    """An answer that sends an empty page a byte at a time, `pause` seconds apart."""
    def answer(h, q):
        body = _page_of([], None)
        h.send_response(200)
        for k, v in {"content-length": str(len(body)), **headers}.items():
            if not (k == "content-length" and "event-stream" in headers.get("content-type", "")):
                h.send_header(k, v)
        h.end_headers()
        for i in range(len(body)):
            try:
                h.wfile.write(body[i:i + 1])
                h.wfile.flush()
            except OSError:
                return  # the client gave up, as it should
            time.sleep(pause)
    return answer


def test_a_cursor_that_cycles_ends_the_listing_with_one_line(store, api):  # noqa: F811
    ws, ids, loc = api
    rows = [ws.sessions[ids["idle"]]]
    ws.hostile("/v1/sessions", lambda h, q: send_raw(h, 200, _page_of(rows, "page_again")))
    started = time.monotonic()
    report = sync(store, loc)
    assert time.monotonic() - started < 30
    assert len(report.problems) == 1 and "page cursor 'page_again' again" in report.problems[0]["problem"]
    assert sum(1 for m, p in ws.requests if p == "/v1/sessions") <= 3


def test_pages_per_listing_are_capped(store, api, monkeypatch):  # noqa: F811
    ws, ids, loc = api
    monkeypatch.setattr(remote, "MAX_PAGES", 5)
    rows = [ws.sessions[ids["idle"]]]
    ws.hostile("/v1/sessions", lambda h, q: send_raw(h, 200, _page_of(rows, f"p{q.get('page', ['0'])[0]}x")))
    report = sync(store, loc)
    assert "over 5 pages" in report.problems[0]["problem"]


def test_a_retry_after_of_eleven_days_waits_at_most_the_cap_and_says_so(store, api, monkeypatch):  # noqa: F811
    ws, ids, loc = api
    monkeypatch.setattr(remote, "MAX_WAIT_S", 0.5)
    ws.fault("/v1/sessions", 429, {"retry-after": "999999"})
    heard = []
    started = time.monotonic()
    report = sync(store, loc, notify=heard.append)
    assert time.monotonic() - started < 20
    assert not report.problems and len(report.sessions) == 5
    assert heard and "999,999 s" in heard[0] and "capped" in heard[0]


def test_odd_sessions_are_problem_lines_and_the_rest_are_pulled(store, api):  # noqa: F811
    ws, ids, loc = api
    ws.sessions[ids["idle"]]["usage"]["input_tokens"] = "abc"
    ws.sessions[ids["running"]]["title"] = ["a", "list"]
    ws.sessions["no-id"] = {k: v for k, v in ws.sessions[ids["archived"]].items() if k != "id"}
    ws.sessions["bad-id"] = dict(ws.sessions[ids["archived"]], id="../../x\x1b[2J")
    stolen = ws.events[ids["idle"]][0]
    ws.events[ids["terminated"]].append(dict(stolen))  # an event id another session has
    ws.sessions[ids["terminated"]]["updated_at"] = ws.tick()
    report = sync(store, loc)
    problems = " | ".join(p["problem"] for p in report.problems)
    assert "no id of the API's shape" in problems and "another session already has" in problems
    assert "\x1b" not in problems
    assert {ids["idle"], ids["running"], ids["terminated"]} <= report.sessions
    assert store.session(ids["running"]).title  # a title that was a list: the first prompt instead
    assert store.session(ids["idle"]).event_count > 0
    again = sync(store, loc)  # the workspace is not blocked: the next pull runs through
    assert ids["multiagent"] not in {p["path"] for p in again.problems}


@pytest.mark.parametrize("status", [200, 502])
def test_a_page_that_is_not_the_api_is_one_line_naming_the_url(store, api, status):  # noqa: F811
    ws, ids, loc = api
    page = b"<html><body><h1>502 Bad Gateway</h1>" + b"<p>nginx</p>" * 500 + b"</body></html>"
    ws.hostile("/v1/sessions", lambda h, q: send_raw(h, status, page, {"content-type": "text/html"}))
    report = sync(store, loc)
    [problem] = [p["problem"] for p in report.problems]
    assert "not the API" in problem and len(problem) < 400, problem
    assert store.count_sessions(include_archived=True) == 0


def test_a_gzip_bomb_is_refused_at_the_cap(store, api, monkeypatch):  # noqa: F811
    ws, ids, loc = api
    monkeypatch.setattr(remote, "MAX_RESPONSE_BYTES", 1 << 20)
    bomb = gzip.compress(b'{"data": ["' + b"0" * (64 << 20) + b'"]}')
    assert len(bomb) < 1 << 20
    ws.hostile(f"/v1/sessions/{ids['idle']}/events", lambda h, q: send_raw(
        h, 200, bomb, {"content-encoding": "gzip"}))
    report = sync(store, loc)
    [problem] = [p for p in report.problems]
    assert ids["idle"] in problem["path"] and "over 1 MB in one response" in problem["problem"]
    assert len(report.sessions) == 4


def test_a_body_trickled_a_byte_at_a_time_meets_the_deadline(store, api, monkeypatch):  # noqa: F811
    ws, ids, loc = api
    monkeypatch.setattr(remote, "RESPONSE_DEADLINE_S", 0.5)

    ws.hostile(f"/v1/sessions/{ids['running']}/events", _trickle({"content-type": "application/json"}, 0.05))
    started = time.monotonic()
    report = sync(store, loc)
    assert time.monotonic() - started < 30
    [problem] = report.problems
    assert ids["running"] in problem["path"] and "took over" in problem["problem"]


def test_an_event_over_the_limit_is_stored_truncated_with_a_note(store, api, monkeypatch):  # noqa: F811
    ws, ids, loc = api
    monkeypatch.setattr(events, "MAX_EVENT_CHARS", 10_000)
    ws.event(ids["idle"], "agent.message", content=[{"type": "text", "text": "big " * 20_000}])
    report = sync(store, loc)
    assert not report.problems
    big = next(e for e in store.events(ids["idle"]) if "stored truncated" in e.text)
    note = json.loads(big.payload)["sessionscope_truncated"]
    assert note["characters"] > 80_000 and len(big.payload) < 10_000


def test_a_pull_has_an_overall_deadline_and_says_what_it_left(store, api, monkeypatch):  # noqa: F811
    ws, ids, loc = api
    monkeypatch.setattr(remote_pull, "PULL_DEADLINE_S", 0.0)
    report = sync(store, loc)
    assert [p["problem"] for p in report.problems] == [
        "the pull stopped after 0 minutes; the 5 sessions it did not reach are pulled the next time"]
    monkeypatch.setattr(remote_pull, "PULL_DEADLINE_S", 60.0)
    assert len(sync(store, loc).sessions) == 5  # the next pull takes them


def test_a_body_labelled_as_a_stream_of_events_is_bounded_too(store, api, monkeypatch):  # noqa: F811
    """#58 item 13: a response labelled `content-type: text/event-stream` skipped the cap and the deadline: 600 MB
    on the session list was read whole (1.96 GB of memory)."""
    ws, ids, loc = api
    monkeypatch.setattr(remote, "MAX_RESPONSE_BYTES", 1 << 20)
    big = b'{"data": ["' + b"0" * (4 << 20) + b'"]}'
    ws.hostile(f"/v1/sessions/{ids['idle']}/events", lambda h, q: send_raw(
        h, 200, big, {"content-type": "text/event-stream"}))
    report = sync(store, loc)
    [problem] = report.problems
    assert ids["idle"] in problem["path"] and "over 1 MB in one response" in problem["problem"]
    assert len(report.sessions) == 4


def test_the_pulls_deadline_holds_inside_a_call(store, api, monkeypatch):  # noqa: F811
    """A body trickled under a stream-of-events label was still hanging at 170 s: the pull's own deadline was only
    looked at between sessions."""
    ws, ids, loc = api
    monkeypatch.setattr(remote_pull, "PULL_DEADLINE_S", 1.0)

    ws.hostile(f"/v1/sessions/{ids['running']}/events", _trickle({"content-type": "text/event-stream"}, 0.2))
    started = time.monotonic()
    report = sync(store, loc)
    assert time.monotonic() - started < 15
    assert any(ids["running"] in p["path"] and "time ran out" in p["problem"] for p in report.problems), \
        report.problems
