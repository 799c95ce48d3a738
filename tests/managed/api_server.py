"""A loopback Managed Agents API: the documented shapes of `/v1/sessions` (sessions, events, threads,
archive, delete), in memory, on 127.0.0.1, for the real `anthropic` client to talk to in tests.

It checks what the real API checks that matters here (the key, the beta header), pages with opaque
cursors (`next_page`), and can be told to fail: `fault(path, status, headers)` answers the next request
to that path with the status (a 429 with `retry-after`, a 500), as many times as asked. A user message
sent to an idle session starts it (running); `reply(...)` lets a test play the agent.

    python -m tests.managed.api_server [--port 8765]   serves a small workspace to try the app against
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

KEY = "sk-ant-test-loopback"
BETA = "managed-agents-2026-04-01"
_ids = itertools.count(1)


def iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat().replace("+00:00", "Z")


class Workspace:
    """The API's state: sessions, their events and threads, the faults to inject, the requests seen."""

    def __init__(self, clock: float = 1_790_000_000.0):
        self.clock = clock
        self.sessions: dict[str, dict] = {}
        self.events: dict[str, list[dict]] = {}
        self.threads: dict[str, list[dict]] = {}
        self.thread_events: dict[str, list[dict]] = {}
        self.faults: list[list] = []  # [path prefix, status, headers, times left, method, message]
        self.raw: list[list] = []  # [path prefix, answer(handler, query), times left]: a hostile server's answers
        self.requests: list[tuple[str, str]] = []
        self.messages: list[dict] = []  # what POST /v1/messages was sent (Summarize)
        self.message_reply = '{"title": "A loopback title", "summary": "What the loopback model says."}'
        self.lock = threading.RLock()

    def tick(self) -> str:
        self.clock += 1.0
        return iso(self.clock)

    # -- what a test sets up ---------------------------------------------------------

    def add_session(self, title: str | None = None, *, status: str = "idle", agent: str = "Researcher",
                    model: str = "claude-opus-4-7", multiagent: bool = False, resources=None) -> str:
        with self.lock:
            sid = f"sesn_{next(_ids):06d}"
            now = self.tick()
            self.sessions[sid] = {
                "id": sid, "type": "session", "title": title, "status": status, "created_at": now,
                "updated_at": now, "archived_at": None, "environment_id": "env_01", "metadata": {},
                "vault_ids": [], "outcome_evaluations": [],
                "agent": {"id": "agent_01", "type": "agent", "name": agent, "version": 3, "description": None,
                          "model": {"id": model}, "system": None, "tools": [], "skills": [], "mcp_servers": [],
                          "execution_identity": {"type": "service_account"},
                          "multiagent": {"type": "coordinator"} if multiagent else None},
                "resources": resources if resources is not None else [],
                "stats": {"active_seconds": 0.0, "duration_seconds": 0.0},
                "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
                          "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}},
            }
            self.events[sid] = []
            self.threads[sid] = []
            return sid

    def event(self, sid: str, type_: str, thread: str | None = None, **fields) -> dict:
        """Append an event as the API would record it (the session's updated_at moves)."""
        with self.lock:
            e = {"id": f"sevt_{next(_ids):06d}", "type": type_, "processed_at": self.tick(), **fields}
            (self.thread_events[thread] if thread else self.events[sid]).append(e)
            self.sessions[sid]["updated_at"] = e["processed_at"]
            if thread:
                t = next(t for t in self.threads[sid] if t["id"] == thread)
                t["updated_at"] = e["processed_at"]
            return e

    def set_status(self, sid: str, status: str) -> None:
        kind = {"running": "session.status_running", "idle": "session.status_idle",
                "rescheduling": "session.status_rescheduled", "terminated": "session.status_terminated"}[status]
        extra = {"stop_reason": {"type": "end_turn"}} if status == "idle" else {}
        with self.lock:
            self.sessions[sid]["status"] = status
            self.event(sid, kind, **extra)

    def reply(self, sid: str, text: str, *, tokens: tuple[int, int, int] = (1200, 80, 900)) -> None:
        """Play the agent: a model request, a message, back to idle; usage adds up."""
        tin, tout, cached = tokens
        with self.lock:
            start = self.event(sid, "span.model_request_start")
            self.event(sid, "span.model_request_end", model_request_start_id=start["id"], is_error=False,
                       model_usage={"input_tokens": tin, "output_tokens": tout, "cache_read_input_tokens": cached,
                                    "cache_creation_input_tokens": 0})
            self.event(sid, "agent.message", content=[{"type": "text", "text": text}])
            u = self.sessions[sid]["usage"]
            u["input_tokens"] += tin
            u["output_tokens"] += tout
            u["cache_read_input_tokens"] += cached
            self.sessions[sid]["stats"]["active_seconds"] += 2.5
            self.set_status(sid, "idle")

    def add_thread(self, sid: str, agent: str) -> str:
        with self.lock:
            tid = f"sthr_{next(_ids):06d}"
            now = self.tick()
            self.threads[sid].append({"id": tid, "type": "session_thread", "session_id": sid,
                                      "parent_thread_id": "sthr_primary", "status": "running",
                                      "agent": {"type": "agent", "name": agent}, "created_at": now,
                                      "updated_at": now, "archived_at": None})
            self.thread_events[tid] = []
            self.event(sid, "session.thread_created", session_thread_id=tid, agent_name=agent)
            return tid

    def hostile(self, path: str, answer, times: int = 1_000_000) -> None:
        """Answer GETs of `path` (a prefix) with `answer(handler, query)`, which writes the whole response
        itself: pages that cycle, a gzip bomb, a body trickled a byte at a time, an HTML error page."""
        self.raw.append([path, answer, times])

    def _raw_for(self, path: str):
        with self.lock:
            for r in self.raw:
                if path.startswith(r[0]) and r[2] > 0:
                    r[2] -= 1
                    return r[1]
        return None

    def fault(self, path: str, status: int, headers: dict | None = None, times: int = 1, method: str | None = None,
              message: str = "injected by the test") -> None:
        self.faults.append([path, status, headers or {}, times, method, message])

    # -- answering ---------------------------------------------------------------------

    def _message(self, body: dict) -> tuple[int, dict, dict]:
        if not body.get("model") or not body.get("messages") or not body.get("max_tokens"):
            return _error(400, "invalid_request_error", "model, messages and max_tokens are required")
        self.messages.append(body)
        return _message_answer(body, self.message_reply)

    def _fault_for(self, method: str, path: str):
        for f in self.faults:
            if path.startswith(f[0]) and f[3] > 0 and f[4] in (None, method):
                f[3] -= 1
                return f
        return None

    def handle(self, method: str, path: str, query: dict, headers, body: dict) -> tuple[int, dict, dict]:
        with self.lock:
            self.requests.append((method, path))
            bearer = (headers.get("authorization") or "").removeprefix("Bearer ")
            if KEY not in (headers.get("x-api-key"), bearer):  # the 2.x client sends the key as a bearer token
                return _error(401, "authentication_error", "invalid x-api-key")
            f = self._fault_for(method, path)
            if f is not None:
                kind = {429: "rate_limit_error", 400: "invalid_request_error"}.get(f[1], "api_error")
                status, payload, _ = _error(f[1], kind, f[5])
                return status, payload, f[2]
            if path == "/v1/messages" and method == "POST":  # the Messages API (no beta header): Summarize
                return self._message(body)
            if BETA not in (headers.get("anthropic-beta") or ""):
                return _error(400, "invalid_request_error", f"this endpoint needs the {BETA} beta header")
            parts = path.strip("/").split("/")[1:]  # after v1
            if parts[0] != "sessions":
                return _error(404, "not_found_error", f"no route {path}")
            if len(parts) == 1 and method == "GET":
                rows = sorted(self.sessions.values(), key=lambda s: s["created_at"], reverse=True)
                if query.get("include_archived", ["false"])[0] != "true":
                    rows = [s for s in rows if not s["archived_at"]]
                return _page(rows, query)
            sid = parts[1]
            s = self.sessions.get(sid)
            if s is None:
                return _error(404, "not_found_error", f"session {sid} not found")
            if len(parts) == 2 and method == "GET":
                return 200, s, {}
            if len(parts) == 2 and method == "DELETE":
                if s["status"] in ("running", "rescheduling"):
                    return _error(400, "invalid_request_error",
                                  f"session {sid} is {s['status']}: interrupt it, or wait until it is idle, "
                                  "before deleting it")
                del self.sessions[sid]
                return 200, {"id": sid, "type": "session_deleted"}, {}
            if parts[2:] == ["archive"] and method == "POST":
                if s["status"] in ("running", "rescheduling"):
                    return _error(400, "invalid_request_error", f"session {sid} is {s['status']}")
                s["archived_at"] = s["updated_at"] = self.tick()
                return 200, s, {}
            if parts[2:] == ["events"] and method == "GET":
                rows = self.events[sid]
                if "created_at[gte]" in query:
                    rows = [e for e in rows if e["processed_at"] >= query["created_at[gte]"][0]]
                return _page(rows, query)
            if parts[2:] == ["events"] and method == "POST":
                if s["archived_at"] or s["status"] == "terminated":
                    return _error(400, "invalid_request_error", f"session {sid} accepts no events")
                sent = []
                for e in body.get("events") or []:
                    fields = {k: v for k, v in e.items() if k != "type"}
                    sent.append(self.event(sid, e["type"], **fields))
                    if e["type"] == "user.message" and s["status"] == "idle":
                        self.set_status(sid, "running")
                    if e["type"] == "user.interrupt" and s["status"] in ("running", "rescheduling"):
                        self.set_status(sid, "idle")
                return 200, {"data": sent}, {}
            if parts[2:] == ["threads"] and method == "GET":
                return _page(self.threads[sid], query)
            if len(parts) == 5 and parts[2] == "threads" and parts[4] == "events" and method == "GET":
                return _page(self.thread_events.get(parts[3], []), query)
            return _error(404, "not_found_error", f"no route {method} {path}")


def _previews(e: dict) -> list[dict]:
    """An agent message's preview on a stream that asked for deltas: its start, then its text ten characters at a
    time (the API's BetaManagedAgentsStartEvent and BetaManagedAgentsDeltaEvent)."""
    if e["type"] != "agent.message":
        return []
    out: list[dict] = [{"type": "event_start", "event": {"id": e["id"], "type": "agent.message"}}]
    for index, block in enumerate(e.get("content") or []):
        said = block.get("text", "") if block.get("type") == "text" else ""
        for k in range(0, len(said), 10):
            out.append({"type": "event_delta", "event_id": e["id"], "delta": {
                "type": "content_delta", "index": index, "content": {"type": "text", "text": said[k:k + 10]}}})
    return out


def _message_answer(body: dict, text: str) -> tuple[int, dict, dict]:
    """A Messages API answer in the documented shape, `text` as its one text block."""
    sent = sum(len(m.get("content") or "") for m in body.get("messages") or [] if isinstance(m.get("content"), str))
    return 200, {"id": f"msg_{next(_ids):06d}", "type": "message", "role": "assistant", "model": body.get("model"),
                 "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                 "usage": {"input_tokens": sent // 4, "output_tokens": len(text) // 4}}, {}


def _error(status: int, kind: str, message: str) -> tuple[int, dict, dict]:
    return status, {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_loopback"}, {}


def send_raw(handler, status: int, body: bytes, headers: dict | None = None) -> None:
    """Write a response as given (for `Workspace.hostile` answers)."""
    handler.send_response(status)
    for k, v in {"content-type": "application/json", "content-length": str(len(body)), **(headers or {})}.items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(body)


def _page(rows: list[dict], query: dict) -> tuple[int, dict, dict]:
    """An opaque cursor page: `page` is where the last one stopped."""
    limit = int(query.get("limit", ["20"])[0])
    start = int(query["page"][0].removeprefix("page_")) if "page" in query else 0
    chunk = rows[start:start + limit]
    more = start + limit < len(rows)
    return 200, {"data": chunk, "next_page": f"page_{start + limit}" if more else None,
                 "prev_page": f"page_{max(0, start - limit)}" if start else None}, {}


class _Handler(BaseHTTPRequestHandler):
    workspace: Workspace

    def _answer(self, method: str) -> None:
        url = urlparse(self.path)
        answer = self.workspace._raw_for(url.path) if method == "GET" else None
        if answer is None and method == "GET" and url.path.startswith("/v1/sessions/") and \
                url.path.endswith("/events/stream"):
            return self._stream(url.path.split("/")[3])
        if answer is not None:
            with self.workspace.lock:
                self.workspace.requests.append((method, url.path))
            answer(self, parse_qs(url.query))
            return
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        status, payload, headers = self.workspace.handle(method, url.path, parse_qs(url.query), self.headers, body)
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, sid: str) -> None:
        """GET /v1/sessions/{id}/events/stream: the events recorded from now on, as server-sent events named by
        their type, until the session stops running (or a minute passes). With `event_deltas=agent.message`, each
        agent message is previewed first as the API does it: an `event_start`, then its text in `event_delta`
        fragments (`content_delta`), then the buffered event."""
        asked = parse_qs(urlparse(self.path).query)  # (the client sends a list as `event_deltas[]=…`)
        deltas = "agent.message" in asked.get("event_deltas", []) + asked.get("event_deltas[]", [])
        ws = self.workspace
        with ws.lock:
            ws.requests.append(("GET", self.path.split("?")[0]))
            known = sid in ws.sessions and (KEY in (self.headers.get("x-api-key"),
                                                    (self.headers.get("authorization") or "").removeprefix("Bearer ")))
            sent = len(ws.events.get(sid, []))
        if not known:
            status, payload, _ = _error(404, "not_found_error", f"session {sid} not found")
            return send_raw(self, status, json.dumps(payload).encode())
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        deadline, ping = time.monotonic() + 60, 0.0
        try:
            while time.monotonic() < deadline:
                with ws.lock:
                    fresh = ws.events[sid][sent:]
                    sent += len(fresh)
                for e in fresh:
                    for preview in (_previews(e) if deltas else []):
                        self.wfile.write(f"event: {preview['type']}\ndata: {json.dumps(preview)}\n\n".encode())
                    self.wfile.write(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode())
                    self.wfile.flush()
                    if e["type"] in ("session.status_idle", "session.status_terminated"):
                        return
                if time.monotonic() - ping > 0.5:  # a comment line: a client gone is found out at once
                    ping = time.monotonic()
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped following
            pass

    def do_GET(self):
        self._answer("GET")

    def do_POST(self):
        self._answer("POST")

    def do_DELETE(self):
        self._answer("DELETE")

    def log_message(self, *args):  # quiet: the tests read the workspace's request log instead
        pass


@contextlib.contextmanager
def serve(workspace: Workspace, port: int = 0):
    """Serve `workspace` on 127.0.0.1 (a free port unless given); yields the base URL."""
    handler = type("Handler", (_Handler,), {"workspace": workspace})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads, server.block_on_close = True, False  # (an event stream still open never holds a test)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def sample(ws: Workspace) -> dict[str, str]:
    """A small workspace: an idle session with a tool call, a running one, a terminated one, a
    multi-agent one with a subagent thread, an archived one."""
    a = ws.add_session("Summarise the Q3 incident reports", resources=[
        {"type": "file", "id": "sesrsc_01", "file_id": "file_011", "mount_path": "/mnt/data/incidents.csv",
         "created_at": iso(ws.clock), "updated_at": iso(ws.clock)},
        {"type": "memory_store", "memory_store_id": "memstore_01", "name": "team-notes", "access": "read_only",
         "mount_path": "/mnt/memory/team-notes"},
        {"type": "github_repository", "id": "sesrsc_02", "url": "https://github.com/acme/ops",
         "mount_path": "/workspace/ops", "checkout": {"type": "branch", "name": "main"},
         "created_at": iso(ws.clock), "updated_at": iso(ws.clock)}])
    ws.event(a, "user.message", content=[{"type": "text", "text": "Summarise the Q3 incident reports in /mnt/data"}])
    ws.set_status(a, "running")
    ws.event(a, "agent.thinking")
    ws.event(a, "agent.tool_use", id="toolu_01", name="read", input={"file_path": "/mnt/data/incidents.csv"})
    ws.event(a, "agent.tool_result", tool_use_id="toolu_01",
             content=[{"type": "text", "text": "date,severity,summary\n2026-07-02,high,DNS outage"}])
    ws.reply(a, "Three incidents in Q3; the worst was the July 2 DNS outage (high severity).")
    b = ws.add_session("Migrate the billing cron jobs")
    ws.event(b, "user.message", content=[{"type": "text", "text": "Move the billing crons to the new scheduler"}])
    ws.set_status(b, "running")
    ws.event(b, "agent.tool_use", id="toolu_02", name="bash", input={"command": "crontab -l"})
    c = ws.add_session("Nightly dependency audit")
    ws.event(c, "user.message", content=[{"type": "text", "text": "Audit dependencies for CVEs"}])
    ws.set_status(c, "running")
    ws.event(c, "session.error", error={"type": "billing_error", "message": "credit balance too low"})
    ws.set_status(c, "terminated")
    d = ws.add_session("Plan the offsite", agent="Coordinator", multiagent=True)
    ws.event(d, "user.message", content=[{"type": "text", "text": "Plan the team offsite in Lisbon"}])
    ws.set_status(d, "running")
    t = ws.add_thread(d, "Venue scout")
    ws.event(d, "agent.thread_message_sent", to_session_thread_id=t, to_agent_name="Venue scout",
             content=[{"type": "text", "text": "Find three venues for 20 people"}])
    ws.event(d, "user.message", thread=t, content=[{"type": "text", "text": "Find three venues for 20 people"}])
    ws.event(d, "agent.message", thread=t, content=[{"type": "text", "text": "LX Factory, Hub Criativo, Village"}])
    ws.reply(d, "Venues shortlisted: LX Factory, Hub Criativo do Beato, Village Underground.")
    e = ws.add_session("Old experiment")
    ws.event(e, "user.message", content=[{"type": "text", "text": "hello"}])
    ws.sessions[e]["archived_at"] = ws.tick()
    return {"idle": a, "running": b, "terminated": c, "multiagent": d, "archived": e}


if __name__ == "__main__":
    import argparse
    import time
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=8765)
    args = p.parse_args()
    ws = Workspace(clock=time.time() - 3600)
    sample(ws)
    with serve(ws, args.port) as url:
        print(f"serving a sample workspace at {url} (key {KEY}); Ctrl+C stops", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
