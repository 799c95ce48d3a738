"""A loopback server that speaks OpenAI's Responses API as the Agents SDK calls it (`POST /v1/responses`, one
answer a request): each request gets the next reply text of a script, and what was asked is kept. The SDK's real
Runner is pointed at it with OPENAI_BASE_URL."""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KEY = "sk-loopback-openai-0000000000000000"


@dataclass
class Replies:
    texts: list[str]
    requests: list[dict] = field(default_factory=list)
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def answer(self, body: dict) -> dict:
        self.requests.append(body)
        n = next(self._ids)
        said = self.texts[min(n - 1, len(self.texts) - 1)]
        return {"id": f"resp_loopback_{n:04d}", "object": "response", "created_at": 1_790_000_000 + n,
                "status": "completed", "model": body.get("model", ""), "error": None, "incomplete_details": None,
                "instructions": None, "metadata": {}, "parallel_tool_calls": True, "temperature": 1.0,
                "tool_choice": "auto", "tools": [], "top_p": 1.0,
                "output": [{"type": "message", "id": f"msg_loopback_{n:04d}", "status": "completed",
                            "role": "assistant", "content": [{"type": "output_text", "text": said, "annotations": []}]}],
                "usage": {"input_tokens": 40 * n, "output_tokens": 9, "total_tokens": 40 * n + 9,
                          "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}


@contextlib.contextmanager
def serve(replies: Replies):
    """The server on a free loopback port; yields the base URL the OpenAI client takes (…/v1)."""
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            if self.path != "/v1/responses" or self.headers.get("authorization") != f"Bearer {KEY}":
                status, answer = 404, {"error": {"message": f"no route {self.path} (or no key)", "type": "invalid"}}
            else:
                status, answer = 200, replies.answer(body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
