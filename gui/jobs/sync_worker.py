"""`python -m sessionscope.gui.jobs.sync_worker STORE [--dry-run]`: a sync with the team store in its own process (no Qt).

Redacting a backlog of sessions holds Python's GIL, so the window runs it here, as it runs a big import. It pushes to
the team store the store remembers (its password from the system keyring: never on a command line). One JSON line a
step: {"progress": [events done, events total, session title]}, then {"report": …} or {"error": message}. SIGTERM
(the window's Stop) ends it after the page it is writing: each page commits by itself, and the next sync goes on
from there; the laptop's log records the run as cancelled.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time


def main(argv: list[str]) -> int:
    from sessionscope import open_store, ops
    from sessionscope.errors import SessionscopeError

    cancel = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    last = [0.0]

    def say(done: int, total: int, title: str) -> None:
        now = time.monotonic()
        if done == total or now - last[0] >= 0.1:
            last[0] = now
            print(json.dumps({"progress": [done, total, title[:200]]}), flush=True)

    with open_store(argv[0]) as store:
        try:
            report = ops.sync_now(store, dry_run="--dry-run" in argv[1:], progress=say, cancel=cancel, actor="app")
        except SessionscopeError as exc:
            print(json.dumps({"error": str(exc)}), flush=True)
            return 1
    print(json.dumps({"report": report.as_dict()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
