"""`python -m sessionscope.gui.import_worker STORE PATH…`: an import in its own process (no Qt here).

The desktop app runs large imports here so parsing never holds the UI's GIL.
It prints one JSON line per progress step and the report last; killing it is
safe, since every batch commits together with its file offset.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from sessionscope import open_store
    from sessionscope.sources.importing import import_paths

    store = open_store(argv[0])
    last = [0.0]

    def progress(done: int, total: int, path: str) -> None:
        import time

        now = time.monotonic()
        if now - last[0] >= 0.1 or done == total:
            last[0] = now
            print(json.dumps({"progress": [done, total, path]}), flush=True)
    report = import_paths(store, argv[1:], progress=progress)
    print(json.dumps({"report": report.as_dict()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
