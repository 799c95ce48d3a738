"""The bundle's entry point (PyInstaller runs a script, not a console_scripts entry)."""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["--sessionscope-reader"]:  # a big import's reader process (sessionscope.sources.claude_code.reader)
        from sessionscope.sources.claude_code.reader import main as reader_main

        sys.exit(reader_main())
    if sys.argv[1:2] == ["--sessionscope-worker"]:  # the window's import or embedding process (sessionscope.gui.jobs.child)
        import importlib

        from sessionscope.gui.jobs.child import WORKERS

        if sys.argv[2] not in WORKERS:
            sys.exit(f"no such worker: {sys.argv[2]}")
        sys.exit(importlib.import_module(sys.argv[2]).main(sys.argv[3:]))
    from sessionscope.cli import main  # (`hook` goes straight to sessionscope.live.hook)

    sys.exit(main())
