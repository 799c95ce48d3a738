"""The manual's pictures: Home, the list, reading mode, the usage dashboard and an HTML export of the same
session, each at 1366×768 and 1920×1080, light and dark:

    python -m tests.screenshots OUT [--corpus ../shared/corpus] [--chromium /usr/bin/chromium]

Imports the corpus into a fresh store in OUT, picks its longest Claude Code session, draws the window
offscreen (its own settings, in a scratch folder) and the export in headless Chromium, and writes
OUT/<subject>-<width>-<theme>.png, squeezed with pngquant where it is installed. Not a test: a person
looks at what it writes (and copies it to resources/screenshots/).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = ((1366, 768), (1920, 1080))
THEMES = ("light", "dark")


def _wait(app, done, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit("the window did not get there in time")
        app.processEvents()
        time.sleep(0.02)


def _settle(app, seconds: float = 0.8) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def _squeeze(path: Path) -> None:
    if shutil.which("pngquant"):
        subprocess.run(["pngquant", "--force", "--skip-if-larger", "--quality", "70-95", "--output", str(path),
                        str(path)], check=False)


def window_shots(store, sid: str, out: Path) -> list[Path]:
    """Home, the list, reading mode and usage, at each size and theme."""
    from PySide6.QtCore import QSettings

    from sessionscope.gui.window import theme
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    app = make_app()
    written = []
    for look in THEMES:
        theme.apply(look)
        for width, height in SIZES:
            QSettings().clear()  # the defaults a new user sees
            w = MainWindow()
            w.resize(width, height)
            w.show()
            w.set_store(store, first_run=False)
            _wait(app, lambda: w.pages.home.overview is not None)
            _settle(app, 1.0)
            path = out / f"home-{width}-{look}.png"
            w.grab().save(str(path))
            written.append(path)
            _wait(app, lambda: w.sessions.model.row_of(sid) >= 0)
            w.open_session(sid)
            _wait(app, lambda: w.session is not None and w.session.id == sid and w.branch.timeline_model.all_ids)
            _settle(app, 1.5)
            for name, grab in (("list", w.grab), ("reading", None), ("usage", None)):
                if name == "reading":
                    w.layout_.set_reading(True)
                    r = w.branch.reader
                    _wait(app, lambda: r.cards and r.visible() and all(r.event_id(n) in r.events
                                                                        for n, _rect in r.visible()))
                    _settle(app)
                    grab = w.grab
                elif name == "usage":
                    w.layout_.set_reading(False)
                    w.openers.show_usage()
                    u = w.openers.usage_view
                    u.resize(width, height)
                    u.range.setCurrentText("All time")  # the corpus is older than the default 30 days
                    u.by.setCurrentText("per month")
                    _wait(app, lambda: not u.totals.text().startswith(("Reading", "$0.00")))
                    _settle(app, 1.5)
                    grab = u.grab
                else:
                    _settle(app)
                path = out / f"{name}-{width}-{look}.png"
                grab().save(str(path))
                written.append(path)
            if w.openers.usage_view is not None:
                w.openers.usage_view.close()
            w.close()
            _settle(app, 0.3)
    return written


def export_shots(store, sid: str, out: Path, chromium: str) -> list[Path]:
    """The session's HTML export in headless Chromium, light and dark (the page follows the scheme)."""
    from sessionscope.export.core import ExportRequest, export

    page = out / "export.html"
    export(store, ExportRequest("html", (sid,)), page)
    written = []
    for look in THEMES:
        for width, height in SIZES:
            path = out / f"export-html-{width}-{look}.png"
            with tempfile.TemporaryDirectory() as profile:
                subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                                "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
                                *(["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] if look == "dark"
                                  else ["--blink-settings=preferredColorScheme=1"]),
                                f"--window-size={width},{height}", f"--screenshot={path}", page.as_uri()],
                               check=True, capture_output=True, timeout=120)
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    p.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = p.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="sessionscope-shots-")  # the window's settings
    args.out.mkdir(parents=True, exist_ok=True)
    from sessionscope import open_store
    from sessionscope.sources import importing

    db = args.out / "store.db"
    for stale in args.out.glob("store.db*"):
        stale.unlink()
    store = open_store(db)
    importing.import_paths(store, [args.corpus])
    sessions = [s for s in store.sessions(limit=10_000) if s.source_kind == "claude_code"]
    sid = max(sessions, key=lambda s: s.event_count).id
    written = window_shots(store, sid, args.out) + export_shots(store, sid, args.out, args.chromium)
    for path in written:
        _squeeze(path)
        print(path, file=sys.stderr)
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
