"""`python -m sessionscope.gui.jobs.embed_worker STORE`: search by meaning's job in its own process (no Qt here).

Fetches the model when it is not here, then embeds every text without a vector (sessionscope.ops.embed). Tokenizing
and averaging hold Python's GIL, so the window runs it here, as it runs a big import; one JSON line per step:
{"fetch": [bytes done, bytes total, file]}, {"progress": [done, total]}, then {"done": n} or {"error": message}.
Killing it is safe: every batch commits by itself, and a cut-off fetch goes on next time.
"""

from __future__ import annotations

import json
import sys
import time


def main(argv: list[str]) -> int:
    from sessionscope import open_store, ops
    from sessionscope.errors import SessionscopeError

    last = [0.0]

    def say(key: str, *values, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - last[0] >= 0.1:
            last[0] = now
            print(json.dumps({key: list(values)}), flush=True)

    with open_store(argv[0]) as store:
        try:
            outcome = ops.embed(store, fetching=lambda d, t, name: say("fetch", d, t, name, force=d == t),
                                progress=lambda d, t: say("progress", d, t, force=d == t))
        except SessionscopeError as exc:
            print(json.dumps({"error": str(exc)}), flush=True)
            return 1
    print(json.dumps({"done": outcome.embedded}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
