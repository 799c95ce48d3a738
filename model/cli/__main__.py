"""`python -m sessionscope.cli`: the same as the `sessionscope` command."""

import sys

from sessionscope.cli import main

sys.exit(main())
