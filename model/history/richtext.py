"""Markdown and code as the HTML subset Qt's rich-text engine lays out (the reader's cards).

markdown-it-py parses (CommonMark with GitHub's tables and strikethrough; raw HTML in a
message stays text, never markup: transcripts are full of `<command-name>` and pasted
pages), pygments colours fenced code with inline styles (Qt's engine knows no
stylesheet classes worth relying on). Pure Python, no Qt: the store's layer may use it.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

HIGHLIGHT_MAX = 60_000  # characters: longer code is shown plain (pygments is ~1 MB/s)
LIGHT_STYLE, DARK_STYLE = "friendly", "monokai"
CODE_BG = {False: "#f4f5f7", True: "#23241f"}


@lru_cache(maxsize=2)
def _formatter(dark: bool):
    from pygments.formatters import HtmlFormatter
    return HtmlFormatter(style=DARK_STYLE if dark else LIGHT_STYLE, noclasses=True, nowrap=True)


@lru_cache(maxsize=64)
def _lexer(language: str):
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound
    try:
        # (ensurenl: a last line without its newline was an error token to the diff lexer, drawn in a red box or
        # on a pink ground instead of green; the newline added is stripped again below)
        return get_lexer_by_name(language, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None


def code_html(code: str, language: str = "text", dark: bool = False) -> str:
    """A code block: highlighted when the language is known and the code not huge, else escaped."""
    lexer = _lexer(language.lower()) if language and language != "text" and len(code) <= HIGHLIGHT_MAX else None
    if lexer is not None:
        from pygments import highlight
        body = highlight(code, lexer, _formatter(dark)).rstrip("\n")
    else:
        body = html.escape(code.rstrip("\n"))
    return f'<pre style="background-color:{CODE_BG[dark]}; font-family:monospace; white-space:pre-wrap">{body}</pre>'


@lru_cache(maxsize=4)
def _parser(dark: bool, images: bool = True):
    from markdown_it import MarkdownIt

    def fence(code: str, language: str, _attrs) -> str:
        return code_html(code, language.split()[0] if language else "text", dark)
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": fence})
    md.enable(["table", "strikethrough"])
    if not images:
        md.disable("image")  # ![…](url) stays text: a page opened elsewhere fetches nothing a note names
    return md


def markdown_html(text: str, dark: bool = False, images: bool = True) -> str:
    """A message's Markdown as HTML: headings, lists, tables, links, inline and fenced code (and, with `images`,
    pictures)."""
    if not text.strip():
        return ""
    out = _parser(dark, images).render(text)
    # Qt draws a bare <table> without borders or padding; code spans get the code block's background
    return (out.replace("<table>", '<table border="1" cellspacing="0" cellpadding="4" '
                                   'style="border-collapse:collapse; border-color:#999">')
               .replace("<code>", f'<code style="background-color:{CODE_BG[dark]}">'))


def plain_html(text: str) -> str:
    """Text as written (line breaks kept), escaped."""
    return html.escape(text).replace("\n", "<br>")


# what an editor or the agent's harness puts into a prompt that the user did not type (Claude Code's IDE
# context and its system reminders): shown as small labelled chips, not as raw tags
CONTEXT_TAGS = ("ide_opened_file", "ide_selection", "system-reminder")  # (claude_code.lines strips them from titles)
_CONTEXT_BLOCK = re.compile(rf"<({'|'.join(CONTEXT_TAGS)})>([\s\S]*?)</\1>\s*")
_OPENED = re.compile(r"opened the file (.+?) in the IDE")
_SELECTED = re.compile(r"selected the lines? (\d+)(?: to (\d+))? from (.+?):")


def editor_context(text: str) -> tuple[list[tuple[str, str]], str]:
    """([(a chip's label, the block's whole text)], the prompt without those blocks)."""
    if "<" not in text:
        return [], text
    chips: list[tuple[str, str]] = []
    for m in _CONTEXT_BLOCK.finditer(text):
        tag, body = m.group(1), m.group(2).strip()
        if tag == "ide_opened_file":
            found = _OPENED.search(body)
            label = f"opened {found.group(1).rsplit('/', 1)[-1]}" if found else "opened a file"
        elif tag == "ide_selection":
            found = _SELECTED.search(body)
            label = (f"selection: {found.group(3).rsplit('/', 1)[-1]}:{found.group(1)}"
                     + (f"–{found.group(2)}" if found.group(2) else "")) if found else "selection"
        else:
            label = "system reminder"
        chips.append((label, body))
    return chips, _CONTEXT_BLOCK.sub("", text) if chips else text


def chips_html(chips: list[tuple[str, str]], dark: bool = False) -> str:
    """Chips as a line of small labels (Qt's rich text: a background colour on a span)."""
    bg, fg = ("#3a3f47", "#c9d1d9") if dark else ("#e6e8eb", "#4a4f57")
    spans = " ".join(f'<span style="background-color:{bg}; color:{fg}; font-size:small">&nbsp;{html.escape(label)}'
                     "&nbsp;</span>" for label, _body in chips)
    return f'<p style="margin:0 0 4px 0">{spans}</p>'
