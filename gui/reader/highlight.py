"""Highlighted code for the detail panes (pygments, inline styles: QTextBrowser has no CSS classes), in the palette's
light or dark: the event's raw JSON, a checkpoint's file, a diff."""

from __future__ import annotations

import html

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer, get_lexer_by_name
from pygments.util import ClassNotFound

# light, dark palette; on the pane's own background: QTextBrowser paints a block's background line by line, so the
# style's own drew a bar behind each line (light bars on a dark pane)
_FORMATTERS = {False: HtmlFormatter(noclasses=True, style="friendly", nowrap=False, nobackground=True),
               True: HtmlFormatter(noclasses=True, style="monokai", nowrap=False, nobackground=True)}


def code_html(text: str, language: str = "json") -> str:
    """Pygments-highlighted HTML for code or JSON (inline styles: QTextBrowser has no CSS classes), in a
    style that reads on the palette's background (friendly's dark-on-light vanishes on a dark pane)."""
    from sessionscope.gui.reader.timeline_model import dark_palette
    try:
        lexer = JsonLexer() if language == "json" else get_lexer_by_name(language)
    except ClassNotFound:
        return f"<pre>{html.escape(text)}</pre>"
    return highlight(text, lexer, _FORMATTERS[dark_palette()])
