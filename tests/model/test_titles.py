"""A readable title from a first request (#33): the words, not what was pasted with them, cut at a sentence."""

from __future__ import annotations

import pytest

from sessionscope.history.titles import LIMIT, from_prompt

CASES = [
    ("fix the flaky login test", "fix the flaky login test"),
    ("  fix   the\nflaky test  ", "fix the flaky test"),
    # a long request: its first sentence
    ("The login test fails one run in five on CI and never locally. I think it is the cookie. Find out why and "
     "fix it without adding sleeps, then run it fifty times.",
     "The login test fails one run in five on CI and never locally."),
    # a pasted trace: the words around it
    ("why does this fail?\nTraceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
     "ValueError: bad", "why does this fail? ValueError: bad"),
    ("can you explain this log\n2026-11-02 10:00:01 INFO start\n2026-11-02 10:00:02 ERROR boom\n", "can you explain this log"),
    ("review this:\n```python\ndef f():\n    return 1\n```\nis it right?", "review this: is it right?"),
    ("<system-reminder>You are in plan mode</system-reminder>\nplan the migration", "plan the migration"),
    # only a dump: its first line
    ("2026-11-02 10:00:01 INFO start\n2026-11-02 10:00:02 ERROR boom", "2026-11-02 10:00:01 INFO start"),
    ("", ""),
]


@pytest.mark.parametrize("text,title", CASES)
def test_a_title_is_the_words_of_the_request(text, title):
    assert from_prompt(text) == title


def test_a_long_sentence_is_cut_at_a_word():
    words = "refactor " * 40
    title = from_prompt(words)
    assert len(title) <= LIMIT + 1 and title.endswith("refactor…")
    assert from_prompt("x" * 500) == "x" * LIMIT + "…"  # no word to cut at
