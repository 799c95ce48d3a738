"""A loopback server that speaks Anthropic's Messages API as Claude Code calls it (`POST /v1/messages?beta=true`,
streamed as server-sent events), answering each request with the next reply of a script: text, tool calls, or a
pause (a reply held until the test lets it go, so a run can be watched or stopped midway).

The real `claude` (claude-agent-sdk's bundled CLI) is pointed at it with ANTHROPIC_BASE_URL in a scratch HOME: a
real process writes a real transcript, and its permission requests reach the SDK's `can_use_tool` for real.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEY = "sk-ant-api03-sessionscope-loopback-key-000000000000"


@dataclass
class Reply:
    """One answer: its content blocks ({"type": "text", "text": …} or {"type": "tool_use", "name": …, "input": …}),
    streamed a few characters at a time; `hold` makes the server wait for `Script.release()` before the last
    block (the run is then seen midway)."""

    blocks: list[dict]
    hold: bool = False


def text(said: str, hold: bool = False) -> Reply:
    return Reply([{"type": "text", "text": said}], hold)


def tool(name: str, given: dict, said: str = "") -> Reply:
    return Reply(([{"type": "text", "text": said}] if said else []) + [{"type": "tool_use", "name": name,
                                                                         "input": given}])


@dataclass
class Script:
    """The replies in order (the last is repeated once they run out), what each request asked, and a gate."""

    replies: list[Reply]
    requests: list[dict] = field(default_factory=list)
    # a reply for any request whose last user words hold the key, whatever its place: paths run at once (explore)
    # ask in any order, and each must get its own answer
    by_prompt: dict[str, Reply] = field(default_factory=dict)
    released: threading.Event = field(default_factory=threading.Event)
    held: threading.Event = field(default_factory=threading.Event)  # set while a reply waits at its gate
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self, body: dict) -> tuple[int, Reply]:
        with self._lock:
            self.requests.append(body)
            n = next(self._ids)
            said = _last_words(body)
            keyed = next((r for key, r in self.by_prompt.items() if key in said), None)
            return n, keyed or self.replies[min(n - 1, len(self.replies) - 1)]

    def release(self) -> None:
        self.released.set()

    def prompts(self) -> list[str]:
        """The user's words each request ended with (a tool result's turn says none): its last user message's (claude
        may send a system message after it, as the ambient context of a model it changed to)."""
        return [_last_words(body) for body in self.requests]


def _last_words(body: dict) -> str:
    """The text of a request's last user message (a tool result's turn: none)."""
    said = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    last = said[-1] if said else {}
    content = last.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
    return "\n".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def _events(n: int, reply: Reply, model: str, script: Script):
    """The server-sent events of one streamed reply."""
    msg = {"id": f"msg_loopback_{n:04d}", "type": "message", "role": "assistant", "model": model, "content": [],
           "stop_reason": None, "stop_sequence": None,
           "usage": {"input_tokens": 100 * n, "output_tokens": 1, "cache_creation_input_tokens": 0,
                     "cache_read_input_tokens": 0}}
    yield "message_start", {"type": "message_start", "message": msg}
    for i, block in enumerate(reply.blocks):
        if reply.hold and i == len(reply.blocks) - 1:
            script.held.set()
            script.released.wait(60)
            script.held.clear()
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {"type": "text", "text": ""}}
            words = block["text"]
            for k in range(0, len(words), 12):
                yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "text_delta", "text": words[k:k + 12]}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                "type": "tool_use", "id": f"toolu_loopback_{n:04d}_{i}", "name": block["name"], "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    stop = "tool_use" if any(b["type"] == "tool_use" for b in reply.blocks) else "end_turn"
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 20 + 5 * n}}
    yield "message_stop", {"type": "message_stop"}


def _handler(script: Script):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            if not self.path.startswith("/v1/messages") or self.path.startswith("/v1/messages/count_tokens"):
                return self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
            n, reply = script.next(body)
            if not body.get("stream"):
                blocks = [b if b["type"] == "text" else {**b, "id": f"toolu_loopback_{n:04d}_{i}"}
                          for i, b in enumerate(reply.blocks)]
                return self._json(200, {"id": f"msg_loopback_{n:04d}", "type": "message", "role": "assistant",
                                        "model": body.get("model", "claude"), "content": blocks,
                                        "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}})
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            try:
                for name, data in _events(n, reply, body.get("model", "claude"), script):
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client stopped listening (a run stopped)
                pass
            self.close_connection = True

        def do_GET(self):  # noqa: N802
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

        def _json(self, status: int, obj: dict) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):  # quiet: the tests read the script's requests instead
            pass

    return Handler


@contextlib.contextmanager
def serve(script: Script):
    """The server on a free loopback port while the block runs; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        script.release()
        server.shutdown()
        server.server_close()


def first_session(work) -> str:
    """A session Claude Code itself begins in `work` (its first prompt, through claude-agent-sdk's query), as a
    user's would be; the environment points `claude` at the loopback server."""
    import asyncio

    from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

    async def go() -> str:
        ended = [m async for m in query(prompt="say hello", options=ClaudeAgentOptions(cwd=str(work),
                                                                                       model="claude-sonnet-4-5"))]
        return next(m.session_id for m in ended if isinstance(m, ResultMessage))
    return asyncio.run(go())


def offline_env(home, base_url: str) -> dict[str, str]:
    """The environment (HOME and Claude Code's settings) in which `claude` runs offline against the server."""
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": KEY, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
