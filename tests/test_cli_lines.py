"""`show`'s lines: the shortcuts that make a 10,000-event listing fast give what the plain rules give."""

import os
import random
import time

import pytest

from sessionscope.cli import parser
from sessionscope.cli.output import _minute, one_line, when


def folded(text: str, width: int = 100) -> str:
    """The rule one_line keeps: every run of whitespace one space, cut with … past `width`."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


@pytest.mark.parametrize("text", [
    "", "a", "plain words that fit", "x" * 100, "x" * 101, "y" * 5000, " leading", "trailing ", "two  spaces",
    "line\nbreak", "tab\there", "nbsp\u00a0here", "em\u2003space", "nel\u0085here", "é" * 99 + " ",
    "w " * 50 + "\n\n\nmore", "w" * 100 + " " + "\n" * 300, "w" * 99 + " " + " " * 300 + "tail",
    "w" * 100 + "\n" + "tail", " " * 401 + "late words", "ok" + "\x1b[2J" + "ok",
])
def test_one_line_is_the_folded_text(text):
    assert one_line(text) == folded(text)


def test_one_line_on_random_texts():
    rng = random.Random(3)
    alphabet = ["a", "b", " ", " ", "\n", "\t", "\u00a0", "é", "…"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 160)))
        assert one_line(text) == folded(text), repr(text)
        assert one_line(text, 20) == folded(text, 20), repr(text)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Amsterdam", "Asia/Kolkata", "America/St_Johns", "Australia/Lord_Howe"])
def test_when_is_strftime_of_the_second(zone, monkeypatch):
    """Cached by minute; across daylight-saving changes (Lord Howe's is half an hour) and zones whose offset
    is not whole minutes (Amsterdam's local mean time before 1937: +0:19:32) the same as asking per second."""
    if not os.path.exists(f"/usr/share/zoneinfo/{zone}"):
        pytest.skip(f"no zone data for {zone}")
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    _minute.cache_clear()
    try:
        rng = random.Random(zone)
        stamps = [rng.uniform(-2.5e9, 2.5e9) for _ in range(4000)]
        stamps += [t + d for t in (1711846800, 1729990800, 1712419200) for d in range(-120, 121)]  # around changes
        for ts in stamps:
            assert when(ts) == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(ts))), ts
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
        _minute.cache_clear()


def test_a_command_builds_only_its_own_parser_and_reads_the_same():
    """`sessionscope list` builds the list command's parser alone: its help and what it parses are the whole
    grammar's, for every command (aliases too)."""
    import contextlib
    import io

    def answer(p, argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            return vars(p.parse_args(argv)), out.getvalue()
        return None, out.getvalue()
    whole = parser.build_parser()
    for name in sorted(parser.COMMANDS):
        one = parser.build_parser(only=name)
        assert answer(one, [name, "--help"]) == answer(whole, [name, "--help"]) != (None, "")
    argv = ["--store", "x.db", "list", "--limit", "3", "--json"]
    assert parser.command_word(argv) == "list"
    assert answer(parser.build_parser(only="list"), argv) == answer(whole, argv)
    assert parser.command_word(["--theme", "dark"]) is None
    assert parser.command_word(["--json", "show", "abc"]) == "show"


def test_show_escapes_a_transcripts_mark_characters(tmp_path):
    """A search hit's marks (\\x02, \\x03) are ours, drawn as bold or [brackets]; in a transcript's line shown by
    `show` they are control characters like any other, shown escaped."""
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "s.db"), *args],
                              capture_output=True, text=True, check=True).stdout
    sid = run("new", "--title", "t").strip()
    run("append", sid, "--kind", "message", "--role", "user", "--text", "before \x02hit\x03 after")
    shown = run("show", sid)
    assert "before \\x02hit\\x03 after" in shown and "[hit]" not in shown
