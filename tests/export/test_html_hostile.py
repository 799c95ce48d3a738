"""A hostile transcript exported to HTML and opened in headless Chromium runs nothing."""

from __future__ import annotations

import html.parser
import http.server
import shutil
import subprocess
import threading

import pytest

from sessionscope.export.core import ExportRequest
from sessionscope.ops import export
from sessionscope.ops import note_add as note

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class _Beacon(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        _Beacon.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def beacon():
    """A local server a successful attack would call."""
    _Beacon.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Beacon)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", _Beacon.hits
    server.shutdown()


def _attacks(url: str) -> list[str]:
    js = f"document.body.setAttribute('data-pwned','1');fetch('{url}/js')"
    return [
        f"<script>{js}</script>",
        f"<img src=x onerror=\"{js}\">",
        f"<a href=\"javascript:{js}\">click</a>",
        f"</pre></div><script>{js}</script>",
        f"<svg onload=\"{js}\"></svg>",
        f"<iframe src=\"{url}/frame\"></iframe>",
        f"<img src=\"{url}/img\">",
        f"<meta http-equiv=\"refresh\" content=\"0;url={url}/refresh\">",
        f"<style>body{{background:url({url}/css)}}</style>",
        f"\"><script>{js}</script>",
        f"```html\n<script>{js}</script>\n```",
    ]


class _Elements(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def _hostile_export(store, tmp_path, url) -> str:
    attacks = _attacks(url)
    sid = store.open_session(title=attacks[0], cwd="/srv/<b>app</b>", model="<i>m</i>").id
    for a in attacks:
        store.append(sid, "message", role="user", text=a)
        store.append(sid, "tool_call", role="assistant", payload={"name": a, "input": {"file_path": a, "content": a}})
        store.append(sid, "tool_result", role="tool", text=a * 40, payload={"output": a * 40})  # long: folded
        store.append(sid, "message", role="assistant", text=a, event_id=f"x\"><script>{a}")
        note(store, sid, a)  # a note is Markdown, rendered: its raw HTML stays text
    note(store, sid, f"![seen]({url}/note-img) [go](javascript:fetch('{url}/note-js')) <img src={url}/note-raw>")
    path = tmp_path / "hostile.html"
    export(store, ExportRequest("html", (sid,)), path)
    return str(path)


def test_nothing_in_the_transcript_becomes_markup(store, tmp_path):
    path = _hostile_export(store, tmp_path, "http://127.0.0.1:9")
    parser = _Elements()
    parser.feed(open(path, encoding="utf-8").read())
    tags = {t for t, _ in parser.found}
    assert "script" not in tags and "img" not in tags and "iframe" not in tags and "svg" not in tags
    assert not any(t == "a" and a.get("href", "").startswith("javascript") for t, a in parser.found)
    assert not any(k.startswith("on") for _, attrs in parser.found for k in attrs)
    metas = [a for t, a in parser.found if t == "meta" and "http-equiv" in a]
    assert [m["http-equiv"] for m in metas] == ["Content-Security-Policy"]


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt install chromium)")
def test_headless_chromium_runs_nothing_and_calls_nowhere(store, tmp_path, beacon):
    url, hits = beacon
    path = _hostile_export(store, tmp_path, url)
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--disable-background-networking", "--disable-extensions",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000", "--dump-dom", f"file://{path}"],
        capture_output=True, text=True, timeout=120)
    dom = proc.stdout
    assert "</html>" in dom, proc.stderr[-2000:]
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]  # the attribute a script would set
    assert hits == []  # no script, image, frame, refresh or stylesheet reached the network
    parser = _Elements()
    parser.feed(dom)
    assert not any(t in ("script", "img", "iframe", "svg") for t, _ in parser.found)
    assert "&lt;script&gt;" in dom  # the text is there, as text


def test_a_markdown_export_renders_as_text_in_a_renderer_that_allows_html(store, tmp_path):
    """#29 item 3: CommonMark passes raw HTML through; the export's prose holds none, nor an ESC byte, while
    code spans and fences still show `<div>` as written."""
    from markdown_it import MarkdownIt

    url = "http://127.0.0.1:9"
    attacks = _attacks(url) + ["title\x1b]0;pwned\x07\x1b[2J", "keep `<div>` in code"]
    sid = store.open_session(title=attacks[0] + "\x1b[2J").id
    for a in attacks:
        store.append(sid, "message", role="user", text=a)
        store.append(sid, "tool_result", role="tool", text=a, payload={"output": a})
    path = tmp_path / "hostile.md"
    export(store, ExportRequest("md", (sid,), detail="full"), path)
    text = path.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x07" not in text and "\\e[2J" in text
    parser = _Elements()
    parser.feed(MarkdownIt("commonmark").render(text))
    tags = {t for t, _ in parser.found}
    assert not tags & {"script", "img", "iframe", "svg", "style", "meta"}, tags
    assert not any(k.startswith("on") for _, attrs in parser.found for k in attrs)
    assert "`<div>`" in text  # a code span is shown as written


def test_terminal_escapes_and_bidi_overrides_show_as_escapes_in_html(store, tmp_path):
    """#58 item 15: raw OSC titles, OSC 52 clipboard writes, clear-screen and U+202E (right-to-left override)
    reached `<title>`, `<h1>` and the body as they were; they show as visible escapes, as the command line shows
    them."""
    hostile = ["title\x1b]0;pwned\x07", "copy\x1b]52;c;cm0gLXJmIH4=\x07 this", "clear\x1b[2J\x1b[H now",
               "invoice\u202egnp.exe", "bell\x07 and reset\x1b[0m"]
    sid = store.open_session(title=hostile[0] + hostile[3], model="m\x1b[31m").id
    for h in hostile:
        store.append(sid, "message", role="user", text=h)
        store.append(sid, "tool_result", role="tool", text=f"```\n{h}\n```", payload={"output": h})
    path = tmp_path / "escapes.html"
    export(store, ExportRequest("html", (sid,), detail="full"), path)
    page = path.read_text(encoding="utf-8")
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in page, repr(raw)
    head = page.split("</head>", 1)[0]
    assert "<title>title\\e]0;pwned\\x07invoice\\u202egnp.exe" in head
    assert "\\e]52;c;cm0gLXJmIH4=\\x07" in page and "\\e[2J\\e[H" in page


def test_a_note_reads_as_in_the_app_and_the_prompt_is_yours(store, tmp_path):
    """#60: the export showed a note's Markdown raw and called the user "User" where the app says "You"."""
    sid = store.open_session(title="notes").id
    e = store.append(sid, "message", role="user", text="why does the login fail?")
    note(store, sid, "We chose **retries**, see `wait_for_cookie()`", event_id=e.id)
    path = tmp_path / "notes.html"
    export(store, ExportRequest("html", (sid,)), path)
    page = path.read_text(encoding="utf-8")
    assert "<strong>retries</strong>" in page and "<code" in page and "**retries**" not in page
    assert "<b>You</b>" in page and "<b>User</b>" not in page
