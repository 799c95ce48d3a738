"""The manual's pictures: Home, the list, reading mode, the usage dashboard, Compare, Needs You, a run from the
window and Fork and Explore, and an HTML export of the same session, each at 1366×768 and 1920×1080, light and dark:

    python -m tests.screenshots OUT [--corpus ../shared/corpus] [--chromium /usr/bin/chromium]

Imports the corpus into a fresh store in OUT, picks its longest Claude Code session (a note is put on its first
edit, whose diff the reader opens), draws the window offscreen (its own settings, in a scratch folder) and the
export in headless Chromium; Compare and Needs You are drawn over the demo store (its forks, a session waiting);
and writes
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
    """The picture in 256 colours: pngquant where it is installed, else Qt's own palette (a window's few colours
    survive either; a fifth of the size)."""
    if shutil.which("pngquant"):
        subprocess.run(["pngquant", "--force", "--skip-if-larger", "--quality", "70-95", "--output", str(path),
                        str(path)], check=False)
        return
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage
    image = QImage(str(path))
    flags = Qt.ImageConversionFlag.ThresholdDither | Qt.ImageConversionFlag.AvoidDither
    image.convertToFormat(QImage.Format.Format_Indexed8, flags).save(str(path), "PNG", 9)


def _window(app, store, width: int, height: int, sid: str):
    """A new window at width × height over `store`, a new user's settings, the browser shown, `sid` listed."""
    from PySide6.QtCore import QSettings

    from sessionscope.gui.window.main_window import MainWindow
    QSettings().clear()
    QSettings().setValue("view/home_at_start", False)
    w = MainWindow()
    w.resize(width, height)
    w.show()
    w.set_store(store, first_run=False)
    _wait(app, lambda: w.sessions.model.row_of(sid) >= 0)
    return w


def _shot(app, widget, path: Path) -> Path:
    """`widget` drawn to `path` once the window has settled."""
    _settle(app, 1.0)
    widget.grab().save(str(path))
    return path


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
            written.append(_shot(app, w, out / f"home-{width}-{look}.png"))
            _wait(app, lambda: w.sessions.model.row_of(sid) >= 0)
            w.open_session(sid)
            _wait(app, lambda: w.session is not None and w.session.id == sid and w.branch.timeline_model.all_ids)
            _settle(app, 1.5)
            for name, grab in (("list", w.grab), ("reading", None), ("usage", None)):
                if name == "reading":
                    w.layout_.set_reading(True)
                    r = w.branch.reader
                    _open_first_edit(app, w)
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


def _open_first_edit(app, w) -> None:
    """The reader at the branch's first edit, opened: its diff, and the note on it."""
    tm, r = w.branch.timeline_model, w.branch.reader
    edit = next((eid for eid in tm.all_ids if (e := w.store.event(eid)) is not None and e.kind == "tool_call"
                 and (e.text or "").startswith(("Edit", "MultiEdit", "Write"))), None)
    _wait(app, lambda: bool(r.cards))
    if edit is None:
        return
    r.opened.add(edit)
    r.docs.clear()
    r.heights.clear()
    card = r.card_for(edit)
    if card > 3:
        r.top, r.offset = card - 3, 0  # (a few cards above it: what led to the edit)
        r._clamp()
    r.viewport().update()


def demo_shots(out: Path) -> list[Path]:
    """Compare (the demo's fork beside its origin) and Needs You (a session waiting for an answer), over the demo
    store, at each size and theme."""
    import tempfile

    from sessionscope import open_store
    from sessionscope.gui.window import theme
    from sessionscope.gui.window.app import make_app
    from sessionscope.store.demo import build_demo

    app = make_app()
    store = open_store(Path(tempfile.mkdtemp(prefix="sessionscope-demo-")) / "demo.db")
    build_demo(store)
    rows = store.sessions(limit=100)
    main = next(r for r in rows if r.title == "Fix the flaky login test")
    fork = next(r for r in rows if r.forked_from_session == main.id)
    waiting = [r for r in rows if r.source_kind == "native" and r.id not in (main.id, fork.id)][:2]
    for r in waiting:
        store.append(r.id, "message", role="assistant", text="Both are in. Shall I open the pull request now, or "
                     "run the whole suite once more first?")
    written = []
    for look in THEMES:
        theme.apply(look)
        for width, height in SIZES:
            w = _window(app, store, width, height, fork.id)
            w.openers.open_compare((main.id, None), (fork.id, None))
            view = w.openers.compare_view
            _wait(app, lambda: view.result is not None)
            view.resize(width, height)
            written.append(_shot(app, view, out / f"compare-{width}-{look}.png"))
            view.close()
            w.live.refresh()
            _wait(app, lambda: any(st.state == "waiting" for st in w.live.states.values()))
            w.openers.show_needs_you()
            needs = w.openers.needs_you_view
            _wait(app, lambda: bool(needs.items))
            needs.resize(min(760, width), min(700, height))
            written.append(_shot(app, needs, out / f"needs-you-{width}-{look}.png"))
            needs.close()
            w.close()
            _settle(app, 0.3)
    store.close()
    return written


def run_shots(out: Path) -> list[Path]:
    """A Claude Code session run on from the window (the run panel asking about a Bash call, the reply streamed) and
    Fork and Explore's two paths after their runs, by the `claude` claude-agent-sdk bundles against the tests' loopback
    Messages API in a scratch HOME (skipped where the bundled CLI is missing)."""
    try:
        import claude_agent_sdk
    except ImportError:
        return []
    if not (Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude").is_file():
        return []

    from sessionscope import open_store
    from sessionscope.gui.window import theme
    from sessionscope.gui.window.app import make_app
    from sessionscope.sources.claude_code import import_paths
    from tests.messages_api import Script, first_session, offline_env, serve, text, tool

    app = make_app()
    scratch = Path(tempfile.mkdtemp(prefix="sessionscope-run-"))
    home, work = scratch / "home", scratch / "shop"
    home.mkdir()
    work.mkdir()
    cached = text("With a cache: the prices are read once per request and kept for 60 s, so the cart page makes "
                  "one query instead of one per line.")
    joined = text("Without a cache: the cart's lines are read in one query with their prices joined, which is as "
                  "fast here and never stale.")
    rounds = [[tool("Bash", {"command": "python -m pytest tests/test_checkout.py -q", "description": "run the tests"},
                    "I'll run the checkout tests first to see what fails."),
               text("All 14 checkout tests pass now. The rounding bug was in `cart.total()`: it rounded each line "
                    "before summing; it now sums in cents and rounds once."),
               cached, joined] for _ in range(len(THEMES) * len(SIZES))]
    # (the explore view's two paths run at once and ask in either order: each gets the answer to its own prompt)
    script = Script([text("Hello! What shall we work on?"), *[r for one in rounds for r in one]],
                    by_prompt={"Cache the prices for a minute.": cached,
                               "No cache: read the lines with their prices in one query.": joined})
    written: list[Path] = []
    saved = {k: os.environ.get(k) for k in ("HOME", "CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                                            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_AUTOUPDATER")}
    with serve(script) as url:
        os.environ.update(offline_env(home, url))
        try:
            sid = first_session(work)
            store = open_store(scratch / "store.db")
            import_paths(store, [home / ".claude" / "projects"])
            for look in THEMES:
                theme.apply(look)
                for width, height in SIZES:
                    written += _run_round(app, store, sid, out, look, width, height)
            store.close()
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    return written


def _run_round(app, store, sid, out, look, width, height) -> list[Path]:
    w = _window(app, store, width, height, sid)
    w.open_session(sid)
    _wait(app, lambda: w.session is not None and w.session.id == sid)
    panel = w.branch.run_panel
    panel.prompt.setPlainText("The checkout total is off by a cent on some carts: find out why and fix it.")
    panel.run_button.click()
    _wait(app, lambda: panel.ask_box.isVisible())
    written = [_shot(app, w, out / f"run-{width}-{look}.png")]
    panel.ask_box.allow_once.click()
    _wait(app, lambda: panel.running is None)
    reply = next(e for e in reversed(store.branch_view(sid)) if e.kind == "message" and e.role == "assistant")
    w.openers.explore(store.session(sid), reply)
    view = w.openers.explore_view
    view.columns[0].prompt.setPlainText("Cache the prices for a minute.")
    view.columns[1].prompt.setPlainText("No cache: read the lines with their prices in one query.")
    view.columns[1].model_box.setCurrentIndex(3)
    view.run_button.click()
    _wait(app, lambda: all(c.changes is not None for c in view.columns))
    _wait(app, lambda: w.openers.compare_view is not None)
    w.openers.compare_view.close()
    view.resize(min(1280, width), min(760, height))
    written.append(_shot(app, view, out / f"explore-{width}-{look}.png"))
    view.close()
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
    edit = next((e for e in store.events(sid) if e.kind == "tool_call" and (e.text or "").startswith(("Edit", "Write"))),
                None)
    if edit is not None:
        from sessionscope import ops
        ops.note_add(store, sid, "Kept: this is **the** change to look at first; the rest follows from it.", edit.id)
    written = (window_shots(store, sid, args.out) + demo_shots(args.out) + run_shots(args.out)
               + export_shots(store, sid, args.out, args.chromium))
    for path in written:
        _squeeze(path)
        print(path, file=sys.stderr)
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
