"""`python -m sessionscope.gui.jobs.import_worker STORE PATH…`: an import in its own process (no Qt here).

The desktop app runs large imports here so parsing never holds the UI's GIL.
It prints where the store stands (its change mark), one JSON line per progress step (with the mark) and the
report last; killing it is
safe, since every batch commits together with its file offset.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from sessionscope import open_store, ops

    store = open_store(argv[0])
    last = [0.0]
    # where the store stood before the import, then with each progress line: the window lists again only
    # when it moved (a rescan that finds nothing new commits nothing, and a list of 20,000 costs ~0.5 s)
    print(json.dumps({"mark": store.change_mark()}), flush=True)

    def progress(done: int, total: int, path: str) -> None:
        import time

        now = time.monotonic()
        if now - last[0] >= 0.1 or done == total:
            last[0] = now
            print(json.dumps({"progress": [done, total, path], "mark": store.change_mark()}), flush=True)
    # read here, not in a reader process beside this one: the second core is the window's (the first run's peak
    # memory, measured where ops.import_paths says)
    report = ops.import_paths(store, argv[1:], progress=progress, actor="app", read_ahead=False)
    print(json.dumps({"report": report.as_dict()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
