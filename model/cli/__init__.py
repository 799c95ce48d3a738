"""The `sessionscope` command line. It imports no Qt (only opening the window does, lazily), so a
command starts fast.

Modules depend one way: `main` parses (`parser`) and dispatches to the command modules
(`commands`, `tools`, `export`, `restore_files`), which print through `output`; nothing imports `main`.
"""

from .main import main  # noqa: F401  (the console script's entry point: sessionscope.cli:main)
