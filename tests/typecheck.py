"""`python -m tests.typecheck [--write-baseline]`: mypy over Sessionscope, as it is installed (sessionscope.*).

The import name maps onto the repository's fixed folders (model/ is `sessionscope`, gui/ is `sessionscope.gui`,
resources/ is `sessionscope.resources`: pyproject's package-dir), which mypy cannot follow from the checkout; so the
tree is laid out as installed, in a temporary folder of links, and mypy runs there with pyproject's [tool.mypy].

Held to no error: the operations layer, the store and the read-models (CLEAN). Every other file may have at most
the errors it had when the checker came (tests/typecheck_baseline.json): a file's count only goes down, and
`--write-baseline` records it lower once some are fixed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "tests" / "typecheck_baseline.json"
CLEAN = ("sessionscope/ops/", "sessionscope/store/", "sessionscope/history/read_models.py")


def errors() -> tuple[Counter, list[str]]:
    """mypy's errors per file (as installed: sessionscope/…), and its lines."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sessionscope"
        root.mkdir()
        for entry in (REPO / "model").iterdir():
            if entry.name != "__pycache__":
                (root / entry.name).symlink_to(entry)
        (root / "gui").symlink_to(REPO / "gui")
        (root / "resources").symlink_to(REPO / "resources")
        run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                              "--no-error-summary", "--hide-error-context", "-p", "sessionscope"],
                             cwd=tmp, capture_output=True, text=True)
    lines = [line for line in run.stdout.splitlines() if re.match(r"^sessionscope/\S+:\d+: error:", line)]
    if run.returncode not in (0, 1) or (run.returncode == 1 and not lines):
        raise SystemExit(f"mypy did not run: {run.stderr or run.stdout}")
    return Counter(line.split(":", 1)[0] for line in lines), lines


def main(argv: list[str]) -> int:
    found, lines = errors()
    if "--write-baseline" in argv:
        kept = {f: n for f, n in sorted(found.items()) if not f.startswith(CLEAN)}
        BASELINE.write_text(json.dumps(kept, indent=1) + "\n")
        print(f"baseline: {sum(kept.values())} errors in {len(kept)} files")
    allowed = json.loads(BASELINE.read_text())
    over = {f: (n, 0 if f.startswith(CLEAN) else allowed.get(f, 0)) for f, n in found.items()
            if n > (0 if f.startswith(CLEAN) else allowed.get(f, 0))}
    for line in lines:
        if line.split(":", 1)[0] in over:
            print(line)
    total, allowed_total = sum(found.values()), sum(allowed.values())
    print(f"mypy: {total} errors (at most {allowed_total} allowed, none in {', '.join(CLEAN)})")
    for f, (n, most) in sorted(over.items()):
        print(f"  {f}: {n} errors, at most {most}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
