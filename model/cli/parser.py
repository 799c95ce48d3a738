"""The command line's parser: the top-level options, what each command declares (SPEC, filled as
sessionscope.cli.grammar's groups add their commands), and the words of argv that are files to open. Imports
nothing of the store, so `--help` and `--version` answer at once."""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass

from sessionscope.cli import grammar


class _Version(argparse.Action):
    """--version, looked up only when asked (importlib.metadata costs ~25 ms on every start)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from sessionscope.store.revision import version
        print(f"sessionscope {version()}")
        parser.exit()


COMMANDS: set[str] = set()  # filled by build_parser: a path named like a command is not a file to open


@dataclass(frozen=True)
class Command:
    """What the grammar declares of a command beside its options: who runs it and how it is used."""

    run: str  # "module:function" of sessionscope.cli, imported only when the command runs
    example: str  # one real use, shown under its --help (a test runs each through the parser)
    reads: bool = False  # only reads: a --store path with no store there is a mistake to say, not a store to make
    no_store: bool = False  # never opens the store (nor makes one): it works on files, or on a damaged one


SPEC: dict[str, Command] = {}  # filled by build_parser, with COMMANDS: every command and alias, built or not

# the top-level options that take a value: the word after them is not the command
_VALUED = ("--store", "--screenshot", "--theme")


class _Unbuilt:
    """Stands in for the parser of a command not asked for: whatever is added to it is dropped."""

    def __getattr__(self, _name):
        return self._dropped

    def _dropped(self, *_args, **_kw):
        return self


def command_word(argv: list[str]) -> str | None:
    """The word of `argv` where a command would be (the first that is neither an option nor a top-level
    option's value), or None."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--":
            return None
        elif word.startswith("-"):
            skip = word in _VALUED
        else:
            return word
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole grammar; with `only`, just that command's parser is built (the others are named in
    COMMANDS but not made: building all sixty is ~30 ms of every command's start). A word that names no
    command builds nothing, so the caller builds the whole grammar to say so."""
    # The options are accepted before and after the command; SUPPRESS keeps a
    # subcommand's unset option from overwriting one given before the command.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", metavar="URL", default=argparse.SUPPRESS,
                        help="SQLAlchemy URL or SQLite file (default: $SESSIONSCOPE_STORE or the user data dir)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON instead of text")

    p = argparse.ArgumentParser(
        prog="sessionscope", description="See, audit and steer AI-agent sessions. With no command, opens the "
        "window; `sessionscope FILE…` opens it on those files.",
        epilog="Exit codes: 0 done, 1 failed or refused, 2 a usage mistake (or an id that names nothing). "
               "With --json a command prints one JSON document, of the shape the manual gives for it (JSON output); errors go "
               "to stderr either way.")
    p.add_argument("--store", metavar="URL", default=None,
                   help="SQLAlchemy URL or SQLite file (default: $SESSIONSCOPE_STORE or the user data dir)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    p.add_argument("--demo", action="store_true", help="open the window on a demo store")
    p.add_argument("--screenshot", metavar="FILE", help="render the main window to a PNG and exit")
    p.add_argument("--startup-times", action="store_true",
                   help="open the window, print how long it took from the command to its first paint and to its "
                        "list of sessions painted, and exit")
    p.add_argument("--theme", choices=("system", "light", "dark"), default=None,
                   help="the window's look for this run (View ▸ Theme sets it for good)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def cmd(name, help_, parents=(), *, run: str, example: str, reads: bool = False, no_store: bool = False, **kw):
        for word in (name, *kw.get("aliases", ())):
            COMMANDS.add(word)
            SPEC[word] = Command(run, example, reads, no_store)
        if only is not None and only != name and only not in kw.get("aliases", ()):
            return _Unbuilt()
        # the description wrapped here, the example kept on its own line (it is copied, not read as prose)
        return sub.add_parser(name, help=help_, parents=[common, *parents], description=textwrap.fill(help_, 78),
                              epilog=f"example:\n  {example}", formatter_class=argparse.RawDescriptionHelpFormatter, **kw)

    grammar.writing(cmd, common)
    grammar.reading(cmd, common)
    grammar.acting(cmd, common)
    grammar.marking(cmd, common)
    grammar.keeping(cmd, common)
    grammar.recalling(cmd, common)
    grammar.live(cmd, common)
    grammar.bringing_in(cmd, common)
    grammar.insight(cmd, common)
    grammar.team(cmd, common)
    grammar.tools(cmd, common)

    _explain(sub)
    return p


_MEANING = {
    "session": "the session: its id, or any prefix of it that names one session",
    "sessions": "the sessions: ids or prefixes",
    "event": "the event: its id or a prefix of it (show prints both)",
    "note": "the note: its id or a prefix of it",
    "title": "the session's title", "agent": "the agent that runs it (a name you choose)",
    "project": "the project it belongs to", "cwd": "the folder it works in", "model": "the model it uses",
    "role": "who said it: user, assistant, tool or system", "text": "the text",
    "tokens_in": "the input tokens it cost", "tokens_out": "the output tokens it cost",
    "key": "the fact's name", "value": "the fact's value: JSON, or plain text",
    "status": "only sessions in this status (active, idle, paused, closed, archived, running, …)",
    "limit": "at most this many", "from_seq": "from this event number (show's first column)",
    "to_seq": "up to this event number", "since": "from this time on: ISO 8601, epoch seconds, or an age (30m, 2h, 7d)",
    "until": "up to this time: ISO 8601, epoch seconds, or an age (30m, 2h, 7d)",
    "a": "the first point: an event, or a session for its head", "b": "the second point: an event, or a session",
    "at": "the event to fork at", "to": "the event to go back to", "summary": "the summary's text",
    "format": "md, html, jsonl (verifiable, re-importable) or claude (Claude Code's own transcript)",
    "add": "add this pattern (repeatable)", "remove": "take this pattern away (repeatable)",
    "clear": "take every pattern away",
    "query": 'what to find: words, "a phrase", OR, -word, tool:, source:, project:, since:, is:starred, … (the manual: '
             "Search)",
    "state": "on or off (nothing: show the state)", "no_tool_output": "leave tools' output out of what is embedded",
    "action": "what to do", "what": "what to do", "tool": "the agent whose hook this is",
    "paths": "folders or files of transcripts (any tool's), or a PostgreSQL address",
}


def _explain(sub) -> None:
    """Every argument of every command built says what it is: its own help, or the sentence for its name."""
    for parser in {id(p): p for p in sub.choices.values()}.values():
        nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for action in parser._actions + [a for n in nested for p in n.choices.values() for a in p._actions]:
            if action.help is None and action.dest in _MEANING:
                action.help = _MEANING[action.dest]


def file_arguments(argv: list[str]) -> tuple[list[str], list[str]]:
    """`sessionscope FILE…` (what the .desktop file's `Exec=sessionscope %U` passes, as paths or file: URLs): the leading
    arguments that are existing paths, not commands, are files to open in the window."""
    import os
    if not COMMANDS:
        build_parser()
    from urllib.parse import unquote, urlsplit
    files: list[str] = []
    rest = list(argv)
    while rest and not rest[0].startswith("-") and rest[0] not in COMMANDS:
        word = rest[0]
        if word.startswith("file://"):  # the entry's `%U` may hand a local file over as a file: URL
            word = unquote(urlsplit(word).path)
        if not os.path.exists(word):
            break
        files.append(os.path.abspath(word))
        rest.pop(0)
    return files, rest
