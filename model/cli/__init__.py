"""The `sessionscope` command line. It imports no Qt (only opening the window does, lazily), so a
command starts fast.

Modules depend one way: `main` parses (`parser`) and dispatches to the command modules
(`commands`, `tools`, `export`, `restore_files`), which print through `output`; nothing imports `main`.
`sessionscope hook`, which an agent runs at every step, goes straight to sessionscope.live.hook before any of them
is imported (the standard library alone: a few tens of milliseconds for the whole process).
"""

import sys


def main(argv: list[str] | None = None) -> int:
    """The console script's entry point (sessionscope.cli:main)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        from sessionscope.live.hook import run
        return run(args[1:])
    from sessionscope.cli.main import main as command_line
    return command_line(argv)
