"""HTML: one self-contained file, readable offline, safe to open.

Safety does not rest on one thing: every piece of transcript text goes through
html.escape (pygments escapes what it highlights), its control and bidi characters
shown as escapes first; transcript text never becomes a link or an attribute; the file carries no script at all, and its
Content-Security-Policy forbids scripts, network requests and frames, so even a
mistake in escaping could not run anything or call home. Long output folds with
<details> (no script needed). Light and dark follow the reader's system.
"""

from __future__ import annotations

import html
from typing import IO

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from sessionscope.export.core import EventStream
from sessionscope.export.render import Item, steps, titled_lineage, tool_name, when
from sessionscope.history.addresses import link
from sessionscope.history.richtext import markdown_html
from sessionscope.safety.untrusted import printable

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
FOLD_LINES, FOLD_CHARS = 12, 1500  # longer output starts folded
HIGHLIGHT_MAX = 200_000  # characters: beyond this, plain (pygments would take seconds)

_PAGE_CSS = """
:root { color-scheme: light dark; --bg:#fdfdfc; --fg:#1f2328; --muted:#656d76; --line:#d8dee4;
  --user:#e8f1ff; --asst:#f6f8fa; --tool:#fbf7ee; --err:#fdecec; --sub:#f3f0fb; --mark:#b35900; }
@media (prefers-color-scheme: dark) { :root { --bg:#15181c; --fg:#e6edf3; --muted:#9198a1; --line:#30363d;
  --user:#172a45; --asst:#1c2128; --tool:#262116; --err:#3a1d1d; --sub:#231d33; --mark:#f0a35e; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 62rem; padding: 1.5rem; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin: 2rem 0 .5rem; } h1:first-child { margin-top: 0; }
.meta { color: var(--muted); font-size: .9rem; margin: 0 0 1rem; padding: 0; list-style: none; }
.meta li { display: inline-block; margin-right: 1.2rem; }
nav.toc { border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem; margin-bottom: 1.5rem; }
.ev { border: 1px solid var(--line); border-radius: 6px; margin: .6rem 0; padding: .5rem .8rem; }
.ev.prompt { background: var(--user); } .ev.reply, .ev.thinking { background: var(--asst); }
.ev.tool_call, .ev.tool_result { background: var(--tool); } .ev.error { background: var(--err); }
.ev.thinking .text { font-style: italic; color: var(--muted); }
.ev.compaction { border-style: dashed; }
.note { border: 1px solid #d9b600; border-radius: 6px; margin: .4rem 0 .6rem 2rem; padding: .4rem .8rem;
        background: #fff6cc; color: #3a3000; }
@media (prefers-color-scheme: dark) { .note { background: #3a3210; color: #f5e8b8; border-color: #8a7410; } }
.pair { border: 1px solid var(--line); border-radius: 6px; margin: .6rem 0; background: var(--tool); }
.pair > .ev { border: 0; border-radius: 0; margin: 0; }
.pair > .ev + .ev { border-top: 1px dashed var(--line); }
.head { font-size: .8rem; color: var(--muted); margin-bottom: .25rem; }
.head b { color: var(--fg); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.md { overflow-wrap: anywhere; } .md p { margin: .3rem 0; }
.md code { background-color: rgba(127, 127, 127, .18) !important; color: inherit; }  /* light and dark alike */
pre { margin: .3rem 0; padding: .5rem; overflow-x: auto; border-radius: 4px; font-size: 13px;
  background: rgba(127,127,127,.08); white-space: pre-wrap; overflow-wrap: anywhere; }
details > summary { cursor: pointer; color: var(--muted); font-size: .85rem; }
.subagent { border-left: 3px solid #8b6fd6; background: var(--sub); margin: .6rem 0 .6rem 1.2rem; padding: .2rem .8rem; }
.mark { color: var(--mark); font-size: .85rem; margin: .2rem 0 .6rem; }
.boundary { text-align: center; color: var(--mark); font-size: .85rem; margin: 1rem 0; }
"""


def _styles() -> str:
    light = HtmlFormatter(style="friendly").get_style_defs(".hl")
    try:
        dark = HtmlFormatter(style="github-dark").get_style_defs(".hl")
    except ClassNotFound:
        dark = HtmlFormatter(style="monokai").get_style_defs(".hl")
    # the dark theme's own background would fight ours: keep the pre's
    dark = "\n".join(line for line in dark.splitlines() if not line.startswith(".hl { background"))
    return f"{_PAGE_CSS}\n{light}\n.hl {{ background: transparent; }}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}"


_FORMATTER = HtmlFormatter(cssclass="hl", wrapcode=True)


def _esc(text: str) -> str:
    """Transcript text for the page: a terminal's escapes (OSC titles, clipboard writes, clear-screen) and bidi
    overrides shown as visible escapes, as the command line shows them (untrusted.printable), then HTML-escaped."""
    return html.escape(printable(text, keep_newlines=True, keep_tabs=True))


def code_html(code: str, language: str) -> str:
    """Highlighted code (pygments escapes it), or escaped plain text."""
    if language != "text" and len(code) <= HIGHLIGHT_MAX:
        try:
            return highlight(printable(code, keep_newlines=True, keep_tabs=True), get_lexer_by_name(language), _FORMATTER)
        except ClassNotFound:
            pass
    return f"<pre>{_esc(code)}</pre>"


def prose_html(text: str) -> str:
    """Prose as written, its fenced code blocks highlighted (the language named after the fence)."""
    parts = text.split("```")
    if len(parts) < 3:
        return f'<div class="text">{_esc(text)}</div>'
    out = []
    for i, part in enumerate(parts):
        if i % 2 and i < len(parts) - 1:  # inside a closed fence
            first, newline, code = part.partition("\n")
            named = newline and (first.strip().isidentifier() or first.strip() in ("c++", "c#"))
            language = first.strip().lower() if named else ""
            out.append(code_html(code if named or (newline and not first.strip()) else part, language or "text"))
        elif part.strip():
            prefix = "```" if i % 2 else ""  # an unclosed fence stays text
            out.append(f'<div class="text">{_esc(prefix + part.strip(chr(10)))}</div>')
    return "".join(out)


def _item_html(item: Item, e, tokens: str) -> str:
    cls = f"ev {item.kind}{' error' if item.error else ''}"
    out = [f'<div class="{cls}" id="e-{_esc(e.id)}"><div class="head"><b>{_esc(item.label)}</b>'
           f" · {_esc(when(e.ts))}{_esc(tokens)}</div>"]
    if item.text:
        out.append(prose_html(item.text))
    if item.code:
        body = code_html(item.code, item.language)
        lines = item.code.count("\n") + 1
        if lines > FOLD_LINES or len(item.code) > FOLD_CHARS:
            what = "output" if item.kind == "tool_result" else "input"
            out.append(f"<details><summary>{what}: {lines:,} lines, {len(item.code):,} characters</summary>"
                       f"{body}</details>")
        else:
            out.append(body)
    out.append("</div>")
    return "".join(out)


def write(store, stream: EventStream, fh: IO[str], request) -> None:
    sessions = [stream.session(p) for p in stream.parts]
    title = sessions[0].title if len(sessions) == 1 else f"{len(sessions)} sessions"
    fh.write("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
             '<meta name="viewport" content="width=device-width, initial-scale=1">'
             '<meta name="referrer" content="no-referrer">'
             f"<title>{_esc(title or 'Session')} · Sessionscope</title>"
             f"<style>{_styles()}</style></head><body>\n")
    if len(sessions) > 1:
        fh.write('<nav class="toc"><b>Sessions</b><ol>')
        for i, s in enumerate(sessions):
            fh.write(f'<li><a href="#s-{i}">{_esc(s.title or s.id[:8])}</a></li>')
        fh.write("</ol></nav>\n")
    for index, part in enumerate(stream.parts):
        _session(store, stream, fh, request, index, sessions[index])
    fh.write('<p class="meta">Exported by Sessionscope'
             f"{' · secrets redacted' if request.redact else ''}.</p></body></html>\n")


def _session(store, stream: EventStream, fh: IO[str], request, index: int, s) -> None:
    part = stream.parts[index]
    chain = titled_lineage(store, stream, part)
    fh.write(f'<section id="s-{index}"><h1>{_esc(s.title or "Untitled session")}</h1><ul class="meta">')
    meta = [("session", s.id), ("starred", "★" if s.starred else ""), ("tool", tool_name(s.source_kind)),
            ("project", s.project or s.cwd), ("model", s.model),
            ("started", when(s.created_at)), ("last activity", when(s.updated_at)),
            ("tokens", f"{s.tokens_in:,} in / {s.tokens_out:,} out" if s.tokens_in or s.tokens_out else ""),
            ("detail", request.detail)]
    if len(chain) > 1:
        meta.append(("branch", " → ".join(t or i[:8] for i, t in chain)))
    if part.head:
        meta.append(("up to", part.head))
    for k, v in meta:
        if v:
            fh.write(f"<li>{_esc(k)}: <b>{_esc(str(v))}</b></li>")
    fh.write(f'<li><a href="{_esc(link(s.id))}">open in Sessionscope</a></li></ul>\n')
    for step in steps(store, stream, index, request.detail):
        if step.what == "boundary":
            fh.write(f'<p class="boundary">— the branch continues in session {_esc(step.text[:8])} '
                     "(forked here) —</p>\n")
        elif step.what == "run_start":
            fh.write(f'<details class="subagent" open><summary>Subagent run {_esc(step.text)}</summary>\n')
        elif step.what == "run_end":
            fh.write("</details>\n")
        elif step.what == "mark":
            fh.write(f'<p class="mark">⎇ {_esc(step.text)}</p>\n')
        elif step.what == "note":
            # a note is the user's Markdown, shown as the app shows it (raw HTML in it stays text, a picture too;
            # markdown-it refuses javascript: and data: links)
            fh.write(f'<div class="note"><div class="head"><b>✍ {_esc(step.by)}</b></div>'
                     f'<div class="md">{markdown_html(step.text, images=False)}</div></div>\n')
        elif step.what == "pair_start":  # a tool call and its results: one card, as in the app
            fh.write('<div class="pair">\n')
        elif step.what == "pair_end":
            fh.write("</div>\n")
        else:
            fh.write(_item_html(step.item, step.event, step.tokens) + "\n")
    fh.write("</section>\n")
