"""The bundle's entry point (PyInstaller runs a script, not a console_scripts entry)."""

import sys

from sessionscope.gui.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
