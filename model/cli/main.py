"""`sessionscope [COMMAND]`: parse, run the command (or open the window), turn any error into one
line on stderr and an exit code."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys

from sessionscope.cli import output
from sessionscope.cli.parser import COMMANDS, SPEC, build_parser, command_word, file_arguments


def handler(command: str):
    """The function that runs `command`, as its grammar declares it (parser.SPEC: filled by build_parser)."""
    module, _, name = SPEC[command].run.partition(":")
    mod = importlib.import_module(f"{__package__}.{module}")
    return getattr(mod, name)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    word = command_word(argv)
    parser = build_parser(only=word) if word else None
    if parser is None or word not in COMMANDS:  # no command, a file to open, a mistake: the whole grammar
        parser = build_parser()
    files, argv = file_arguments(argv)
    if word and word not in COMMANDS and not files and _an_id(word) and not os.path.exists(word):
        at = argv.index(word)  # `sessionscope ID` (and a sessionscope:// link the desktop hands over): `open` it
        argv = [*argv[:at], "open", *argv[at:]]
        word, parser = "open", build_parser(only="open")
    if word and word not in COMMANDS and not files and not os.path.exists(word):
        import difflib  # a mistyped command: what it was probably meant to be, before argparse lists all 55
        near = difflib.get_close_matches(word, list(COMMANDS), n=3, cutoff=0.6)
        if near:
            print(f"sessionscope: no command {word!r}; did you mean {' or '.join(repr(n) for n in near)}? "
                  "(sessionscope --help lists them all)", file=sys.stderr)
            return output.EXIT_USAGE
    argv, excluded = _words_left_out(word, argv)
    args = parser.parse_args(argv)
    if excluded:
        args.query += excluded
    args.open_paths = files
    if files and args.command is not None:
        parser.error("files to open go alone (sessionscope FILE…), or to `sessionscope import FILE…`")
    if args.command is None:
        return open_window(args)
    try:
        run = handler(args.command)
        with (contextlib.nullcontext() if SPEC[args.command].no_store else open_store_for(args)) as store:
            return run(store, args) or output.EXIT_OK
    except KeyboardInterrupt:
        print("sessionscope: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `sessionscope show … | head`: the reader had enough, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (Python flushes stdout again at exit)
        return 141
    except Exception as exc:  # the one place a stray error becomes one line
        return output.report(exc)


def _an_id(word: str) -> bool:
    from sessionscope.history.addresses import looks_like_an_id  # (only for a word that is no command)
    return looks_like_an_id(word)


def _words_left_out(word: str | None, argv: list[str]) -> tuple[list[str], list[str]]:
    """`search rewind -fork`: a `-word` is a word the query leaves out (as its help says), not an option argparse
    does not know; taken out of argv before argparse reads it (the options `search` has are kept)."""
    if word != "search":
        return argv, []
    kept, excluded = [], []
    for arg in argv:
        if len(arg) > 1 and arg[0] == "-" and arg[1] != "-" and arg != "-h" and not arg[1:].isdigit():
            excluded.append(arg)
        else:
            kept.append(arg)
    return kept, excluded


def _check_store_path(args) -> None:
    """A `--store` file that does not exist: refused for a command that only reads (a mistyped path would
    show an empty store as if it were the user's), said on stderr when a command makes it."""
    from sessionscope.errors import InvalidInput
    from sessionscope.store.locations import sqlite_path
    if not args.store:
        return
    path = sqlite_path(args.store)
    if path is None or path.exists():
        return
    if SPEC[args.command].reads:
        raise InvalidInput(f"no store at {path} (a mistyped --store?); a command that adds to it makes a new one")
    print(f"sessionscope: note: no store was at {path}: a new, empty one is made there", file=sys.stderr)


def open_store_for(args):
    """The store, or for `list`, `show`, `search` and `usage` of a SQLite store at today's schema, a reader that needs no
    SQLAlchemy (sessionscope.store.quick): those answer in ~0.1 s instead of ~0.6 s."""
    if args.command == "usage" and args.what == "statusline":
        return _statusline_store(args)
    _check_store_path(args)
    if (args.command in ("list", "show", "usage", "search", "open")) and not getattr(args, "branch", False):
        from sessionscope.store.quick import open_reader

        reader = open_reader(args.store)
        if reader is not None:
            _warn_if_exposed(args.store)
            return reader
    from sessionscope import open_store

    store = open_store(args.store)
    _warn_if_exposed(store.url)
    return store


def _statusline_store(args):
    """The status line's store: the quick reader where it can read it, no store at all where none exists yet (the
    line still shows what Claude Code gave it; a refresh every few seconds makes no store, warns of nothing)."""
    from sessionscope.store.locations import sqlite_path
    path = sqlite_path(args.store)
    if path is not None and not path.exists():
        return contextlib.nullcontext()
    from sessionscope.store.quick import open_reader
    reader = open_reader(args.store)
    if reader is not None:
        return reader
    from sessionscope import open_store
    return open_store(args.store)


def _warn_if_exposed(location) -> None:
    from sessionscope.safety.privacy import exposure
    warning = exposure(location)
    if warning:
        print(f"sessionscope: warning: {warning}", file=sys.stderr)


def no_display() -> bool:
    """On Linux, a window needs X11 or Wayland (Qt would abort with a hint about libxcb instead);
    QT_QPA_PLATFORM (offscreen, for tests and screenshots) says otherwise."""
    import os
    return sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM") \
        and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")


def open_window(args) -> int:
    if importlib.util.find_spec("PySide6") is None:
        output.error("the window needs Qt: pip install PySide6-Essentials (the commands work without it: "
                     "sessionscope --help)")
        return output.EXIT_FAILED
    if no_display():
        output.error("no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set); "
                     "the commands need none: sessionscope --help")
        return output.EXIT_FAILED
    from sessionscope.gui.window.app import main as app_main

    return app_main(args)
