"""Managed-agent sessions through the real `anthropic` client, against a loopback API (api_server.py):
listing with pagination, incremental event pulls, threads, retries (429 with retry-after, 500), status
transitions, and the actions (archive, delete, send, interrupt), each refused where the API refuses."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

pytest.importorskip("anthropic")

from sessionscope import ops, sources  # noqa: E402
from sessionscope.errors import IllegalTransition, Refused  # noqa: E402
from sessionscope.sources.managed_agents import importer, location_of, sync  # noqa: E402
from sessionscope.sources.managed_agents.client import connect  # noqa: E402

from .api_server import KEY, Workspace, sample, serve  # noqa: E402

SOURCE = sources.of("managed_agents")


@pytest.fixture
def api(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    ws = Workspace()
    ids = sample(ws)
    with serve(ws) as url:
        loc = location_of(url)
        SOURCE.clients.pop(loc, None)
        yield ws, ids, loc


def requests(ws, suffix: str) -> int:
    return sum(1 for m, p in ws.requests if m == "GET" and p.endswith(suffix))


def test_sync_shows_status_usage_resources_and_events(store, api):
    ws, ids, loc = api
    report = sync(store, loc)
    assert not report.problems and report.sessions == set(ids.values())
    status = {k: store.session(v).status for k, v in ids.items()}
    assert status == {"idle": "idle", "running": "running", "terminated": "terminated", "multiagent": "idle",
                      "archived": "archived"}
    s = store.session(ids["idle"])
    assert (s.title, s.source_kind, s.agent, s.model) == ("Summarise the Q3 incident reports", "managed_agents",
                                                           "Researcher", "claude-opus-4-7")
    managed = s.meta["managed"]
    assert {r["type"] for r in managed["resources"]} == {"file", "memory_store", "github_repository"}
    assert managed["usage"]["cache_read_input_tokens"] == 900
    assert (s.tokens_in, s.tokens_out) == (1200 + 900, 80)  # input + cache reads (+ writes), the API's totals
    assert managed["stats"]["active_seconds"] == 2.5
    events = store.branch(s.id)
    assert [(e.kind, e.role) for e in events][:6] == [
        ("message", "user"), ("system", "status"), ("thinking", "assistant"), ("tool_call", "assistant"),
        ("tool_result", "tool"), ("meta", None)]
    assert events[-1].text == "idle: end_turn" and s.head_event_id == events[-1].id
    assert [e.id for e in events] == [e["id"] for e in ws.events[s.id]]  # the API's ids, in the API's order
    call, result = events[3], events[4]
    assert store.tool_pairs([call.id, result.id], ["tool_call", "tool_result"]) == {result.id: call.id}
    assert json.loads(call.payload)["input"] == {"file_path": "/mnt/data/incidents.csv"}
    # search finds what the agent said
    assert any(h.session_id == s.id for h in store.search("DNS outage"))
    # the error that ended a session is in its log
    assert any(e.role == "error" and "credit balance" in e.text for e in store.branch(ids["terminated"]))


def test_subagent_threads_are_sidechains_under_their_creation(store, api):
    ws, ids, loc = api
    sync(store, loc)
    sid = ids["multiagent"]
    thread = ws.threads[sid][0]["id"]
    events = store.events(sid)
    created = next(e for e in events if json.loads(e.payload).get("type") == "session.thread_created")
    side = [e for e in events if e.sidechain]
    assert [e.text for e in side] == ["Find three venues for 20 people", "LX Factory, Hub Criativo, Village"]
    assert all(e.agent_id == thread for e in side) and side[0].parent_id == created.id
    assert side[1].parent_id == side[0].id
    # the thread grows: only its new event is added, under its last one
    ws.event(sid, "agent.message", thread=thread, content=[{"type": "text", "text": "Booked LX Factory"}])
    report = sync(store, loc)
    assert report.events_added == 1
    new = next(e for e in store.events(sid) if e.text == "Booked LX Factory")
    assert new.parent_id == side[1].id and new.sidechain


def test_pages_and_incremental_pulls(store, api, monkeypatch):
    ws, ids, loc = api
    monkeypatch.setattr(importer, "PAGE", 2)
    first = sync(store, loc)
    assert requests(ws, "/v1/sessions") == 3  # five sessions, two a page
    assert first.events_added == sum(len(v) for v in ws.events.values()) + sum(len(v) for v in ws.thread_events.values())
    before = len(ws.requests)
    again = sync(store, loc)
    assert again.events_added == 0 and again.files_read == 0
    assert all(not p.endswith("/events") for _m, p in ws.requests[before:])  # nothing changed: no events read
    sid = ids["idle"]
    last = store.session(sid).head_event_id
    ws.event(sid, "user.message", content=[{"type": "text", "text": "And Q2?"}])
    ws.set_status(sid, "running")
    ws.reply(sid, "Q2 had one incident.")
    report = sync(store, loc)
    assert report.sessions == {sid} and report.events_added == 6  # message, running, request start and end, reply, idle
    fresh = store.branch(sid)
    texts = [e.text for e in fresh]
    assert texts.index("And Q2?") == texts.index("idle: end_turn") + 1
    assert next(e for e in fresh if e.text == "And Q2?").parent_id == last  # continues where it was
    assert len({e.id for e in store.events(sid)}) == len(store.events(sid))


def test_429_with_retry_after_is_waited_out(store, api):
    ws, ids, loc = api
    ws.fault("/v1/sessions", 429, {"retry-after": "1"})
    started = time.monotonic()
    report = sync(store, loc)
    assert time.monotonic() - started >= 1.0  # the client waited as the API asked
    assert not report.problems and len(report.sessions) == 5
    assert ws.requests[0] == ws.requests[1] == ("GET", "/v1/sessions")


def test_a_500_on_one_session_keeps_the_rest_and_the_next_sync_completes(store, api):
    ws, ids, loc = api
    bad = ids["running"]
    ws.fault(f"/v1/sessions/{bad}/events", 500, times=3)  # the first try and the client's two retries
    report = sync(store, loc)
    assert len(report.problems) == 1 and bad in report.problems[0]["path"]
    assert "HTTP 500" in report.problems[0]["problem"]
    assert bad not in report.sessions and len(report.sessions) == 4
    assert store.session(ids["idle"]).event_count > 0
    later = sync(store, loc)
    assert later.sessions == {bad} and not later.problems
    assert [e.id for e in store.branch(bad)] == [e["id"] for e in ws.events[bad]]


def test_a_whole_workspace_failing_is_one_problem(store, api):
    ws, _ids, loc = api
    ws.fault("/v1/sessions", 500, times=3)
    report = sync(store, loc)
    assert [p["problem"] for p in report.problems] == ["could not list the workspace's sessions: HTTP 500, "
                                                       "injected by the test"]
    assert store.count_sessions(include_archived=True) == 0


def test_status_rescheduling_running_idle_is_followed_and_audited(store, api):
    ws, ids, loc = api
    sid = ids["running"]
    sync(store, loc)
    for status in ("rescheduling", "running"):
        ws.set_status(sid, status)
        sync(store, loc)
        assert store.session(sid).status == status
    ws.reply(sid, "Crons moved.")
    sync(store, loc)
    assert store.session(sid).status == "idle"
    trail = [(a["detail"]["from"], a["detail"]["to"]) for a in reversed(store.audit_log(sid))
             if a["action"] == "managed.status"]
    assert trail == [(None, "running"), ("running", "rescheduling"), ("rescheduling", "running"), ("running", "idle")]
    timeline = [e.text for e in store.branch(sid) if e.role == "status"]
    assert timeline == ["running", "rescheduling", "running", "idle: end_turn"]


def test_terminated_session_takes_no_message_and_can_be_archived(store, api):
    ws, ids, loc = api
    sync(store, loc)
    sid = ids["terminated"]
    s = store.session(sid)
    assert not SOURCE.allows("send", s.status) and not SOURCE.allows("rewind", s.status)
    with pytest.raises(Refused, match="terminated"):
        ops.send(store, sid, "are you there?")
    ops.archive(store, sid)
    assert store.session(sid).status == "archived" and ws.sessions[sid]["archived_at"]
    assert not SOURCE.allows("unarchive", "archived")  # the API has no unarchive


def test_delete_is_refused_while_running_and_keeps_our_copy(store, api):
    ws, ids, loc = api
    sync(store, loc)
    running = ids["running"]
    with pytest.raises(IllegalTransition, match="running"):
        ops.delete(store, running)
    assert running in ws.sessions
    # started since our last sync: the sync before a delete sees it
    idle = ids["idle"]
    ws.set_status(idle, "running")
    with pytest.raises(IllegalTransition, match="stop the running agent first"):
        ops.delete(store, idle)
    ws.set_status(idle, "idle")
    sync(store, loc)  # (the rule reads the status last pulled: the window's pull every few seconds)
    # the API refusing anyway (started between our sync and the delete): its reason is the message
    ws.fault(f"/v1/sessions/{idle}", 400, method="DELETE", message="session is running: interrupt it first")
    with pytest.raises(Refused, match="the API refused to delete session .*: session is running: interrupt it first"):
        ops.delete(store, idle)
    assert idle in ws.sessions
    ws.event(idle, "agent.message", content=[{"type": "text", "text": "a last word"}])
    n = store.session(idle).event_count
    ops.delete(store, idle)
    assert idle not in ws.sessions
    kept = store.session(idle)
    assert kept.meta["managed"]["gone_at"] and kept.event_count == n + 1  # the last word was pulled first
    assert store.branch(idle)[-1].text == "a last word"
    assert "no longer at Anthropic" in SOURCE.delete_prompt(kept)
    sync(store, loc)  # the API no longer lists it: still kept
    assert store.session(idle).event_count == n + 1
    ops.delete(store, idle)  # the second delete removes the copy
    assert all(s.id != idle for s in store.sessions(include_archived=True))
    actions = [a["action"] for a in store.audit_log(idle)]
    assert "managed.delete" in actions and "delete" in actions


def test_a_session_deleted_elsewhere_is_kept_and_marked_gone(store, api):
    ws, ids, loc = api
    sync(store, loc)
    del ws.sessions[ids["terminated"]]
    report = sync(store, loc)
    assert ids["terminated"] in report.sessions
    s = store.session(ids["terminated"])
    assert s.meta["managed"]["gone_at"] and s.event_count > 0


def test_send_and_interrupt(store, api):
    ws, ids, loc = api
    sync(store, loc)
    sid = ids["idle"]
    assert not SOURCE.allows("interrupt", "idle")
    ch = ops.send(store, sid, "Now draft the postmortem")
    assert ch.session.status == "running"
    sent = [e for e in ws.events[sid] if e["type"] == "user.message"][-1]
    assert sent["content"] == [{"type": "text", "text": "Now draft the postmortem"}]
    assert store.session(sid).head_event_id == ws.events[sid][-1]["id"]
    assert SOURCE.allows("interrupt", "running")
    ch = ops.interrupt(store, sid)
    assert ch.session.status == "idle"
    assert [e.kind for e in store.branch(sid)][-2:] == ["interrupt", "system"]
    assert [a["action"] for a in store.audit_log(sid)][:3] == ["managed.status", "managed.interrupt",
                                                               "managed.status"]


def test_the_key_comes_from_the_keyring_and_never_reaches_the_store(store, api, monkeypatch, tmp_path):
    keyring = pytest.importorskip("keyring")
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 1
        kept: dict = {}

        def get_password(self, service, username):
            return self.kept.get((service, username))

        def set_password(self, service, username, password):
            self.kept[(service, username)] = password

        def delete_password(self, service, username):
            self.kept.pop((service, username), None)

    ws, ids, loc = api
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    old = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        with pytest.raises(Refused, match="no Anthropic API key"):
            connect(loc)
        from sessionscope.sources.managed_agents.client import key_origin, set_api_key
        set_api_key(loc, KEY)
        assert key_origin(loc) == "the system keyring"
        assert sync(store, loc).sessions
        set_api_key(loc, "sk-ant-wrong")
        with pytest.raises(Exception, match="refused the key"):
            importer._list_sessions(connect(loc), None)
        set_api_key(loc, None)
        assert key_origin(loc) == "nowhere (no key set)"
    finally:
        keyring.set_keyring(old)
    assert not _stored_anywhere(store, KEY)


def _stored_anywhere(store, text: str) -> bool:
    """Whether `text` is in the store: in the SQLite file's bytes (free pages too), or in any row of
    any table on another engine."""
    if store.engine.dialect.name == "sqlite":
        path = Path(store.engine.url.database)
        store.close()
        return text.encode() in path.read_bytes()
    with store.reader() as conn:
        return any(conn.execute(sa.text(f"SELECT 1 FROM {t} AS r WHERE CAST(r AS text) LIKE :t LIMIT 1"),
                                {"t": f"%{text}%"}).first() for t in sa.inspect(conn).get_table_names())


def test_an_unknown_status_or_event_type_loses_nothing(store, api):
    ws, ids, loc = api
    sid = ids["idle"]
    ws.sessions[sid]["status"] = "hibernating"  # a status newer than this Sessionscope
    ws.event(sid, "agent.daydream", content=[{"type": "text", "text": "a new kind of event"}])
    report = sync(store, loc)
    assert [p["problem"] for p in report.problems] == ["unknown status 'hibernating': kept as it was"]
    s = store.session(sid)
    assert s.status == "idle" and len(report.sessions) == 5
    last = store.branch(sid)[-1]
    assert (last.kind, last.text) == ("meta", "agent.daydream")
    assert json.loads(last.payload)["content"][0]["text"] == "a new kind of event"  # kept as the API sent it


def test_retention_archives_a_managed_agent_at_anthropic_as_archive_would(store, api):
    """#59: retention goes through each session's own action: an idle managed session is archived at Anthropic
    first (the API's archive called, as Archive does), a running one is left with the lifecycle's reason, and
    each archive has its own audit entry beside the run's."""
    import time

    from sessionscope.safety.retention import DAY, RetentionPolicy
    ws, ids, loc = api
    sync(store, loc)
    ops.set_retention(store, RetentionPolicy(archive_after_days=30))
    result = ops.run_retention(store, now=time.time() + 400 * DAY)
    assert ids["idle"] in result["archived"] and ws.sessions[ids["idle"]]["archived_at"]
    assert store.session(ids["idle"]).status == "archived"
    assert {"session": ids["running"], "why": "it is running"} in result["skipped"]
    assert not ws.sessions[ids["running"]].get("archived_at")
    log = store.audit_log(ids["idle"])
    assert [e["action"] for e in log][:1] == ["archive"] and log[0]["detail"].get("at") == "anthropic"
    assert store.audit_log()[0]["action"] == "retention"


def test_a_running_session_is_followed_as_the_api_streams_it(store, api):
    """Follow: the session's event stream (GET …/events/stream, the real client's Stream) pulls the session at each
    event, so what the agent does is in the store as it happens; it ends when the session goes idle, or when the
    listener stops."""
    import threading

    from sessionscope.sources.running import Quiet
    ws, ids, loc = api
    sync(store, loc)
    sid = ids["running"]
    before = store.session(sid).event_count
    quiet, result = Quiet(), {}
    follower = threading.Thread(target=lambda: result.update(added=SOURCE.follow(store, sid, quiet)))
    follower.start()
    deadline = time.monotonic() + 10
    while requests(ws, f"/v1/sessions/{sid}/events/stream") == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    ws.event(sid, "agent.message", content=[{"type": "text", "text": "Halfway: 12 of 30 reports read."}])
    deadline = time.monotonic() + 10
    while "Halfway: 12 of 30 reports read." not in [e.text for e in store.events(sid)] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert "Halfway: 12 of 30 reports read." in [e.text for e in store.events(sid)]  # in the store while it runs
    assert follower.is_alive() and store.session(sid).status == "running"
    ws.reply(sid, "All 30 read: the summary is in summary.md.")
    follower.join(10)
    assert not follower.is_alive() and result["added"] > 0 and store.session(sid).status == "idle"
    assert store.events(sid)[-1].seq > before and ("event", "session.status_idle") in quiet.steps
    # each message previewed in pieces before it was recorded (event_start, event_delta's content_delta)
    assert "".join(quiet.reply) == "Halfway: 12 of 30 reports read.All 30 read: the summary is in summary.md."

    ws.set_status(sid, "running")  # a listener that stops ends the following at the next event
    quiet = Quiet()
    follower = threading.Thread(target=lambda: SOURCE.follow(store, sid, quiet))
    follower.start()
    deadline = time.monotonic() + 10
    while requests(ws, f"/v1/sessions/{sid}/events/stream") < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    quiet.stop.set()
    ws.event(sid, "agent.message", content=[{"type": "text", "text": "still going"}])
    follower.join(10)
    assert not follower.is_alive()


def test_a_flooding_event_stream_is_cut_off(store, api, monkeypatch):
    """An event stream is untrusted too: one that sends without end is read no further than MAX_STREAM_BYTES, and
    the follow ends with one line saying so (nothing held whole in memory)."""
    import threading

    from sessionscope.sources import remote
    from sessionscope.sources.remote import ApiUnavailable
    from sessionscope.sources.running import Quiet
    ws, ids, loc = api
    sync(store, loc)
    sid = ids["running"]
    monkeypatch.setattr(remote, "MAX_STREAM_BYTES", 1 << 20)

    def flood(handler, _query) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.end_headers()
        junk = b"event: agent.message\ndata: " + b"x" * 65536  # one line that never ends
        try:
            for _ in range(200):
                handler.wfile.write(junk)
        except (BrokenPipeError, ConnectionResetError):
            pass
    ws.hostile(f"/v1/sessions/{sid}/events/stream", flood)
    with pytest.raises(ApiUnavailable, match="over 1 MB on one event stream"):
        SOURCE.follow(store, sid, Quiet())
    assert threading.active_count() < 50


def test_a_quiet_stream_ends_soon_after_its_listener_stops(store, api, monkeypatch):
    """A running agent may say nothing for minutes; a follower told to stop ends within a quiet spell, not at the
    agent's next word."""
    import threading

    from sessionscope.sources.managed_agents import source as managed
    from sessionscope.sources.running import Quiet
    ws, ids, loc = api
    sync(store, loc)
    monkeypatch.setattr(managed, "QUIET_S", 0.3)
    quiet = Quiet()
    follower = threading.Thread(target=lambda: SOURCE.follow(store, ids["running"], quiet))
    follower.start()
    time.sleep(1.0)
    assert follower.is_alive()  # listening through the quiet, again and again
    quiet.stop.set()
    follower.join(2)
    assert not follower.is_alive()
