"""The bundle's entry point (PyInstaller runs a script, not a console_scripts entry)."""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["--sessionscope-reader"]:  # a big import's reader process (sessionscope.sources.claude_code.reader)
        from sessionscope.sources.claude_code.reader import main as reader_main

        sys.exit(reader_main())
    from sessionscope.cli.main import main

    sys.exit(main())
