"""A loopback stand-in for the Hugging Face Hub's file endpoint (`/{repo}/resolve/{revision}/{file}`), serving
a model folder, so the real client (huggingface_hub's hf_hub_download, with its cache and resume) fetches from
it: `HF_ENDPOINT=hub.url`. Serves byte ranges (a resumed fetch) and can pause mid-file (a cancel test)."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class Hub:
    def __init__(self, repo: str, folder: Path, chunk: int = 1024):
        self.repo, self.folder, self.chunk = repo, Path(folder), chunk
        self.gets: list[tuple[str, str | None]] = []  # (file, Range header) of every GET
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _file(self) -> Path | None:
                prefix = f"/{hub.repo}/resolve/"
                if not self.path.startswith(prefix):
                    return None
                name = self.path[len(prefix):].split("/", 1)[-1].split("?")[0]
                path = hub.folder / name
                return path if path.is_file() else None

            def _head(self, path: Path | None, body_len: int | None = None, status: int = 200, extra=()):
                if path is None:
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = path.read_bytes()
                self.send_response(status)
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("ETag", '"' + hashlib.sha256(data).hexdigest() + '"')
                self.send_header("Content-Length", str(len(data) if body_len is None else body_len))
                self.send_header("Accept-Ranges", "bytes")
                for k, v in extra:
                    self.send_header(k, v)
                self.end_headers()

            def do_HEAD(self):
                self._head(self._file())

            def do_GET(self):
                path = self._file()
                rng = self.headers.get("Range")
                if path is None:
                    self._head(None)
                    return
                hub.gets.append((path.name, rng))
                data = path.read_bytes()
                start = int(rng.split("=")[1].split("-")[0]) if rng else 0
                if start >= len(data) and rng:
                    self._head(path, 0, 416, [("Content-Range", f"bytes */{len(data)}")])
                    return
                body = data[start:]
                if rng:
                    self._head(path, len(body), 206, [("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")])
                else:
                    self._head(path)
                for i in range(0, len(body), hub.chunk):
                    try:
                        self.wfile.write(body[i:i + hub.chunk])
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):
                        return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "Hub":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
