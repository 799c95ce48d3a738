"""A loopback OpenAI hosted-agents API: the documented shapes of `/v1/agents/sessions` (sessions, items, turns,
subagents and their items, events in, delete), in memory, on 127.0.0.1, for the real `openai` client in tests.

It checks what the real API checks that matters here (the bearer key, the `OpenAI-Beta: agents=v1` header, the
project header when one is required), pages by id (`after`, `limit`, `order`, `has_more`), fills an item in place
while it is in progress (as the API does), and can be told to fail (`fault`, as tests/managed/api_server.py).
`turn(...)` plays a whole turn of the agent; `pending(...)` leaves a required action waiting.

    python -m tests.managed.openai_server [--port 8766]   serves a small project to try the app against
"""

from __future__ import annotations

import contextlib
import itertools
import threading

from .api_server import _Handler, serve  # noqa: F401 (serve: the same loopback server)

KEY = "sk-proj-test-loopback"
_ids = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}"


def _usage(tin: int, tout: int, cached: int = 0, reasoning: int = 0) -> dict:
    return {"input_tokens": tin, "input_tokens_details": {"cached_tokens": cached}, "output_tokens": tout,
            "output_tokens_details": {"reasoning_tokens": reasoning}, "total_tokens": tin + tout}


def _add_usage(a: dict | None, b: dict) -> dict:
    if not a:
        return {k: (dict(v) if isinstance(v, dict) else v) for k, v in b.items()}
    return _usage(a["input_tokens"] + b["input_tokens"], a["output_tokens"] + b["output_tokens"],
                  a["input_tokens_details"]["cached_tokens"] + b["input_tokens_details"]["cached_tokens"],
                  a["output_tokens_details"]["reasoning_tokens"] + b["output_tokens_details"]["reasoning_tokens"])


class Project:
    """The API's state: sessions, their items, turns and subagents, the faults to inject, the requests seen."""

    def __init__(self, clock: int = 1_790_000_000, project: str | None = None):
        self.clock = clock
        self.project = project  # when set, requests must name it (OpenAI-Project)
        self.sessions: dict[str, dict] = {}
        self.items: dict[str, list[dict]] = {}
        self.turns: dict[str, list[dict]] = {}
        self.subagents: dict[str, list[dict]] = {}
        self.sub_items: dict[str, list[dict]] = {}
        self.faults: list[list] = []
        self.raw: list[list] = []
        self.requests: list[tuple[str, str]] = []
        self.posted: list[dict] = []  # what POST …/events was sent
        self.lock = threading.RLock()

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    # -- what a test sets up ---------------------------------------------------------

    def add_session(self, *, agent: str | None = "Release helper", model: str = "gpt-5.5", status: str = "idle",
                    multi_agent: bool = False, metadata: dict | None = None) -> str:
        with self.lock:
            sid = _id("sess")
            now = self.tick()
            self.sessions[sid] = {
                "id": sid, "object": "agent.session", "created_at": now, "last_active_at": now, "status": status,
                "error": None, "metadata": metadata or {}, "required_actions": [], "usage": None, "vault_ids": [],
                "environment": {"type": "openai_hosted", "id": "env_loop01"},
                "agent": {"id": "agt_loop01", "name": agent, "model": model, "instructions": None,
                          "multi_agent": {"enabled": multi_agent}, "reasoning": {"effort": "medium"},
                          "service_tier": "auto", "text": {"verbosity": "medium"}, "tools": []},
            }
            self.items[sid], self.turns[sid], self.subagents[sid] = [], [], []
            return sid

    def start_turn(self, sid: str, text: str | None, *, subagent: str | None = None) -> str:
        """A turn begins (a user message, for the root agent): the session is in progress."""
        with self.lock:
            tid = _id("turn")
            now = self.tick()
            self.turns[sid].append({"id": tid, "object": "agent.session.turn", "session_id": sid,
                                    "agent_id": subagent or "agt_loop01", "subagent_id": subagent, "created_at": now,
                                    "started_at": now, "completed_at": None, "status": "in_progress", "error": None,
                                    "usage": None})
            if text is not None:
                self.item(sid, tid, "message", subagent=subagent, role="user", status="completed", phase=None,
                          content=[{"type": "input_text", "text": text}])
            s = self.sessions[sid]
            s["status"], s["last_active_at"] = "in_progress", now
            return tid

    def item(self, sid: str, turn: str, type_: str, *, subagent: str | None = None, **fields) -> dict:
        with self.lock:
            prefix = {"message": "msg", "function_call": "fc", "function_call_output": "fco", "reasoning": "rs",
                      "command_execution": "cmd", "mcp_call": "mcp"}.get(type_, "item")
            it = {"id": _id(prefix), "type": type_, "turn_id": turn, **fields}
            (self.sub_items[subagent] if subagent else self.items[sid]).append(it)
            self.sessions[sid]["last_active_at"] = self.tick()
            return it

    def end_turn(self, sid: str, turn: str, *, status: str = "completed", usage: dict | None = None,
                 error: dict | None = None) -> None:
        with self.lock:
            t = next(t for t in self.turns[sid] if t["id"] == turn)
            t.update(status=status, completed_at=self.tick(), usage=usage, error=error)
            s = self.sessions[sid]
            if usage:
                s["usage"] = _add_usage(s["usage"], usage)
            if not t["subagent_id"]:
                s["status"] = "failed" if status == "failed" and error and error.get("code") == "sandbox_error" else "idle"
                s["error"] = error.get("message") if error and s["status"] == "failed" else None
            s["last_active_at"] = self.clock

    def turn(self, sid: str, prompt: str, reply: str, *, usage=(1500, 120, 800)) -> str:
        """A whole turn: the prompt, a reasoning summary, a function call and its output, a command run, the answer."""
        tid = self.start_turn(sid, prompt)
        self.item(sid, tid, "reasoning", status="completed", summary=[{"type": "summary_text", "text": "Check the tags"}])
        call = self.item(sid, tid, "function_call", name="git_tags", arguments={"limit": 3}, call_id=_id("call"),
                         status="completed")
        self.item(sid, tid, "function_call_output", call_id=call["call_id"], output="v1.4.0\nv1.3.2", error=None,
                  status="completed")
        self.item(sid, tid, "command_execution", command="pytest -q", cwd="/workspace/app", duration_ms=5120,
                  exit_code=0, output="42 passed in 5.01s", status="completed")
        self.item(sid, tid, "message", role="assistant", phase="final_answer", status="completed",
                  content=[{"type": "output_text", "text": reply}])
        tin, tout, cached = usage
        self.end_turn(sid, tid, usage=_usage(tin, tout, cached, 40))
        return tid

    def add_subagent(self, sid: str, task: str, *, name: str = "scout") -> str:
        """The root agent spawns a subagent (its create_subagent_call item, then the subagent itself)."""
        with self.lock:
            root_turn = self.turns[sid][-1]["id"]
            self.item(sid, root_turn, "create_subagent_call", agent_id="agt_loop01", model="gpt-5.5-mini",
                      reasoning_effort="low", status="completed", content=[{"type": "output_text", "text": task}])
            sub = _id("agt")
            self.subagents[sid].append({"id": sub, "object": "agent.session.subagent", "session_id": sid,
                                        "parent_agent_id": "agt_loop01", "name": name, "status": "active",
                                        "opened_at": self.tick(), "closed_at": None,
                                        "instructions": [{"type": "output_text", "text": task}]})
            self.sub_items[sub] = []
            return sub

    def pending(self, sid: str, server: str = "github", tool: str = "create_issue") -> None:
        """The session waits for the user to approve an MCP call."""
        with self.lock:
            turn = self.turns[sid][-1]["id"]
            s = self.sessions[sid]
            s["status"], s["last_active_at"] = "requires_action", self.tick()
            s["required_actions"] = [{"type": "mcp_approval_request", "request_id": _id("apr"), "turn_id": turn,
                                      "request": {"type": "mcp_tool_call", "server_label": server, "name": tool,
                                                  "arguments": {"title": "Release 1.4"}, "message": "May I?"}}]

    def fault(self, path: str, status: int, headers: dict | None = None, times: int = 1, method: str | None = None,
              message: str = "injected by the test") -> None:
        self.faults.append([path, status, headers or {}, times, method, message])

    def _raw_for(self, path: str):
        return None

    # -- answering ---------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict, headers, body: dict) -> tuple[int, object, dict]:
        with self.lock:
            self.requests.append((method, path))
            if (headers.get("authorization") or "") != f"Bearer {KEY}":
                return _error(401, "invalid_api_key", "Incorrect API key provided")
            for f in self.faults:
                if path.startswith(f[0]) and f[3] > 0 and f[4] in (None, method):
                    f[3] -= 1
                    status, payload, _ = _error(f[1], "rate_limit_exceeded" if f[1] == 429 else "server_error", f[5])
                    return status, payload, f[2]
            if "agents=v1" not in (headers.get("openai-beta") or ""):
                return _error(400, "invalid_request_error", "this endpoint needs the OpenAI-Beta: agents=v1 header")
            if self.project and headers.get("openai-project") != self.project:
                return _error(403, "invalid_project", "the key's default project cannot see these sessions")
            parts = path.strip("/").split("/")[1:]  # after v1
            if parts[:2] != ["agents", "sessions"]:
                return _error(404, "not_found", f"no route {path}")
            parts = parts[2:]
            if not parts and method == "GET":
                return _page(sorted(self.sessions.values(), key=lambda s: s["created_at"]), query)
            sid = parts[0]
            s = self.sessions.get(sid)
            if s is None:
                return _error(404, "not_found", f"No session found with id '{sid}'")
            rest = parts[1:]
            if not rest and method == "GET":
                return 200, s, {}
            if not rest and method == "DELETE":
                if s["status"] == "in_progress":
                    return _error(409, "conflict", f"session {sid} is running: cancel its turn before deleting it")
                del self.sessions[sid]
                return 200, {"id": sid, "object": "agent.session.deleted", "deleted": True}, {}
            if rest == ["items"] and method == "GET":
                return _page(self.items[sid], query)
            if rest == ["turns"] and method == "GET":
                return _page(self.turns[sid], query)
            if rest == ["subagents"] and method == "GET":
                return _page(self.subagents[sid], query)
            if len(rest) == 3 and rest[0] == "subagents" and rest[2] == "items" and method == "GET":
                return _page(self.sub_items.get(rest[1], []), query)
            if rest == ["events"] and method == "POST":
                return self._events(sid, s, body)
            return _error(404, "not_found", f"no route {method} {path}")

    def _events(self, sid: str, s: dict, body: dict):
        for e in body.get("events") or []:
            self.posted.append(e)
            if e.get("type") == "agent.session.input.message":
                if s["status"] == "in_progress":
                    return _error(409, "conflict", "a turn is in progress")
                text = " ".join(c.get("text", "") for m in e.get("input") or [] for c in m.get("content") or [])
                self.start_turn(sid, text)
            elif e.get("type") == "agent.session.input.cancel":
                open_turns = [t for t in self.turns[sid] if t["status"] == "in_progress"]
                if not open_turns:
                    return _error(409, "conflict", "no turn to cancel")
                self.end_turn(sid, open_turns[-1]["id"], status="cancelled")
            else:
                return _error(400, "invalid_request_error", f"unknown event type {e.get('type')!r}")
        return 202, None, {}


def _error(status: int, code: str, message: str) -> tuple[int, dict, dict]:
    return status, {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}, {}


def _page(rows: list[dict], query: dict) -> tuple[int, dict, dict]:
    """A page by id: `order` (desc unless asked), the rows after the id `after`, `limit` of them."""
    limit = max(1, min(100, int(query.get("limit", ["20"])[0])))
    rows = rows if query.get("order", ["desc"])[0] == "asc" else list(reversed(rows))
    if "after" in query:
        ids = [r["id"] for r in rows]
        if query["after"][0] not in ids:
            return _error(400, "invalid_request_error", f"no such item {query['after'][0]!r} to list after")
        rows = rows[ids.index(query["after"][0]) + 1:]
    chunk = rows[:limit]
    return 200, {"object": "list", "data": chunk, "first_id": chunk[0]["id"] if chunk else None,
                 "last_id": chunk[-1]["id"] if chunk else None, "has_more": len(rows) > limit}, {}


def sample(p: Project) -> dict[str, str]:
    """A small project: a finished session, a multi-agent one with a subagent, one waiting on an approval, a failed
    one, one whose turn is still running."""
    a = p.add_session(metadata={"title": "Cut the 1.4 release"})
    p.turn(a, "Tag and test the 1.4 release", "Tagged v1.4.0; 42 tests passed.")
    b = p.add_session(agent="Research lead", multi_agent=True)
    tid = p.start_turn(b, "Compare three hosting options for the docs site")
    sub = p.add_subagent(b, "Price GitHub Pages, Netlify and Read the Docs for 10k visits a month")
    st = p.start_turn(b, None, subagent=sub)
    p.item(b, st, "message", subagent=sub, role="assistant", phase="final_answer", status="completed",
           content=[{"type": "output_text", "text": "Pages: free; Netlify: free tier; RTD: free for OSS"}])
    p.end_turn(b, st, usage=_usage(300, 40))
    p.item(b, tid, "wait_for_subagents_call", sender_agent_id="agt_loop01", recipient_agent_ids=[sub], status="completed")
    p.item(b, tid, "message", role="assistant", phase="final_answer", status="completed",
           content=[{"type": "output_text", "text": "All three are free at this size; Pages is simplest."}])
    p.end_turn(b, tid, usage=_usage(2000, 200, 1000))
    c = p.add_session(agent="Triage bot")
    p.start_turn(c, "File an issue for the flaky login test")
    p.pending(c)
    d = p.add_session(agent="Sandbox runner")
    dt_ = p.start_turn(d, "Build the Docker image")
    p.item(d, dt_, "command_execution", command="docker build .", cwd="/workspace", duration_ms=900, exit_code=1,
           output="permission denied", status="failed")
    p.end_turn(d, dt_, status="failed", error={"code": "sandbox_error", "message": "the sandbox stopped"})
    e = p.add_session(agent="Long runner")
    et = p.start_turn(e, "Reindex the search cluster")
    p.item(e, et, "command_execution", command="./reindex.sh", cwd="/srv", status="in_progress", output="10%")
    return {"done": a, "multi": b, "waiting": c, "failed": d, "running": e}


if __name__ == "__main__":
    import argparse
    import time
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8766)
    args = ap.parse_args()
    project = Project(clock=int(time.time()) - 3600)
    sample(project)
    with serve(project, args.port) as url:
        print(f"serving a sample project at {url}/v1 (key {KEY}); Ctrl+C stops", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
