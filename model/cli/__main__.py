"""`python -m sessionscope.cli`: the same as the `sessionscope` command."""

import sys

from . import main

sys.exit(main())
