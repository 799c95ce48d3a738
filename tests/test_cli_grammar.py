"""#59: each command declares once, in its grammar, who runs it, whether it only reads or never opens the store, and
one real example; every argument says what it is. In-process: these check the declaration, not a run."""

from __future__ import annotations

import argparse
import importlib
import re
import shlex

from sessionscope.cli import parser as grammar


def _commands():
    p = grammar.build_parser()
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return p, sub


def test_every_command_runs_a_function_that_exists_and_has_an_example_that_parses():
    p, sub = _commands()
    assert set(grammar.SPEC) == set(sub.choices) and len(grammar.SPEC) >= 50
    for name, spec in grammar.SPEC.items():
        module, _, function = spec.run.partition(":")
        assert callable(getattr(importlib.import_module(f"sessionscope.cli.{module}"), function)), name
        assert not (spec.reads and spec.no_store), name
        # the example's own command line (after `$(`, before a redirection), through the real parser
        words = [m for m in re.finditer(r"(?=\bsessionscope ((?:--store \S+ )?([a-z][a-z-]*).*))", spec.example)
                 if m.group(2) in sub.choices]
        assert words, f"{name}: its example names no command: {spec.example}"
        line = re.split(r" < | \| ", words[-1].group(1).rstrip(")"))[0]
        args = p.parse_args(shlex.split(line))
        assert sub.choices[args.command] is sub.choices[name], (name, spec.example)


def test_every_argument_says_what_it_is_and_help_shows_the_example(capsys):
    p, sub = _commands()
    unexplained = []
    for name, parser in sub.choices.items():
        nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for action in parser._actions + [a for n in nested for q in n.choices.values() for a in q._actions]:
            if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) and not action.help:
                unexplained.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert unexplained == []
    try:
        p.parse_args(["fork", "--help"])
    except SystemExit:
        pass
    assert "example:\n  sessionscope fork " in capsys.readouterr().out


def test_what_only_reads_and_what_never_opens_the_store_are_declared():
    """The two lists the dispatcher once kept by hand, now read from the grammar."""
    grammar.build_parser()
    reads = {n for n, s in grammar.SPEC.items() if s.reads}
    no_store = {n for n, s in grammar.SPEC.items() if s.no_store}
    assert {"list", "show", "search", "export", "audit", "verify"} <= reads and "import" not in reads
    # (`open` reads the store itself and closes it before a window it starts opens it again)
    assert no_store == {"install-desktop", "key", "backup", "repair", "hook", "hooks", "open"}
