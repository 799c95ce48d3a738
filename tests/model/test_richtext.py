"""The reader's code blocks: a diff's every added and removed line in its colour, light and dark."""

from __future__ import annotations

import re

import pytest

from sessionscope.history import cards
from sessionscope.history.richtext import code_html


@pytest.mark.parametrize("dark", [False, True])
def test_every_changed_line_of_a_diff_has_its_colour(dark):
    """The last line of an Edit's diff has no newline: the diff lexer made it an error token (a red box, a pink
    ground), so a one-line change showed its header coloured and its line not."""
    from pygments.styles import get_style_by_name
    from pygments.token import Generic

    from sessionscope.history.richtext import DARK_STYLE, LIGHT_STYLE
    style = get_style_by_name(DARK_STYLE if dark else LIGHT_STYLE)
    inserted, deleted = (style.style_for_token(t)["color"].upper() for t in (Generic.Inserted, Generic.Deleted))
    call = cards.Call("Edit", {"file_path": "/src/app.py", "old_string": "x = 1\ny = 2\n", "new_string": "x = 1\ny = 3\nz = 4"})
    text = cards.diff(call)
    assert text.endswith("+z = 4")
    out = code_html(text, "diff", dark)
    for line in ("-y = 2", "+y = 3", "+z = 4"):
        colour = inserted if line[0] == "+" else deleted
        assert re.search(rf'<span style="color: #{colour}">{re.escape(line)}</span>', out), (line, out)
    assert "border" not in out and "#1E0010" not in out  # no error token left
    assert not out.endswith("\n</pre>")  # (the newline the lexer needed is not shown)
