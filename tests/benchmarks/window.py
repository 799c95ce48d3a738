"""The benchmark's steps of the window and of live states (#35), each run in a process of its own by
tests.benchmarks.steps: the window over 20,000 sessions and a 200,000-event branch, the UI during an import, a
line written or a hook's signal until its state is shown; `sessionscope hook` and the live states of a store."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.benchmarks.measure import timed


def gui_store(db: str) -> dict:
    """The GUI step's store, made in a process of its own: 20,000 sessions and one of 200,000 events, walked
    once as an import does (the window's process, measured, holds only what the app's would)."""
    import uuid

    from sessionscope import open_store
    from sessionscope.store.ingest import NewEvent, SessionInfo, ingest

    Path(db).unlink(missing_ok=True)
    store = open_store(db)
    now = time.time()
    rows = [(str(uuid.UUID(int=i + 10**6)), f"session {i}", "idle", now - i * 60, now - i * 60, 1) for i in range(20_000)]
    store.write(lambda conn: conn.exec_driver_sql(
        "INSERT OR IGNORE INTO source (id, kind, location, enabled, added_at) VALUES (1, 'native', '', 1, 0)"))
    store.write(lambda conn: conn.exec_driver_sql(
        "INSERT INTO session (id, title, status, created_at, updated_at, source_id, tool_id, project, cwd, git_branch,"
        " model, agent, status_changed_at, tokens_in, tokens_out, event_count, last_seq, last_hash, tags, meta, budget)"
        " VALUES (?, ?, ?, ?, ?, ?, NULL, '', '', '', '', '', 0, 0, 0, 0, 0, '', '[]', '{}', '{}')", rows))
    big = store.open_session(title="a very long session").id
    events, parent = [], None
    for i in range(200_000):
        eid = str(uuid.UUID(int=i + 1))
        events.append(NewEvent(eid, parent, now - 30 * 86400 + i, "message", "user" if i % 2 == 0 else "assistant",
                               text=f"turn {i}", head=True))
        parent = eid
    store.write(ingest, SessionInfo(big, 1), events)
    warm, _ = timed(lambda: store.warm([big]))  # what an import does for the sessions it touched
    store.close()
    return {"big": big, "warm": warm}


def gui(db: str, home: str) -> dict:
    """Window with 20,000 sessions; first rows of a 200,000-event timeline; UI stall during an import."""
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from sessionscope import open_store
    from sessionscope.gui.window.app import make_app
    from sessionscope.gui.window.main_window import MainWindow

    made = subprocess.run([sys.executable, "-m", "tests.benchmarks.steps", "gui_store", db], capture_output=True,
                          text=True, check=True)
    made = json.loads(made.stdout.strip().splitlines()[-1])
    big, warm = made["big"], made["warm"]
    store = open_store(db)

    import os
    import tempfile
    # the windows' settings (the list's sort, its filters) fresh, not whatever this machine's config holds; and a
    # home of no tool's: the window opens a store as a user's app opens theirs, not a first run importing whatever
    # this machine's own ~/.claude holds (a child import starting beside the rows measured); the imports measured
    # below name their folders
    # (in the run's work folder, removed with it)
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="sessionscope-bench-config-", dir=Path(db).parent)
    os.environ["HOME"] = tempfile.mkdtemp(prefix="sessionscope-bench-home-", dir=Path(db).parent)
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "GEMINI_CLI_HOME"):
        os.environ.pop(var, None)
    make_app()

    def wait_until(condition) -> None:
        """Let the event loop run, idle as in the app, until `condition` holds (checked every 5 ms).
        A busy processEvents() loop would fight the workers for the GIL and time itself, not the app."""
        loop, check = QEventLoop(), QTimer()
        check.setInterval(5)
        check.timeout.connect(lambda: condition() and loop.quit())
        check.start()
        if not condition():
            loop.exec()
        check.stop()

    from sessionscope.gui.window.lazy import load_now
    load_now()  # what the app's worker does once the store is open (app._open_store)
    t0 = time.perf_counter()
    w = MainWindow()
    w.show()
    w.set_store(store)
    wait_until(lambda: w.sessions.model.rowCount() >= 20_000)
    window = time.perf_counter() - t0

    t1 = time.perf_counter()
    w.open_session(big)
    wait_until(lambda: bool(w.session and w.session.id == big and w.branch.timeline_model.rowCount() == 200_000
                            and w.branch.timeline_model.event_at(0) is not None))
    timeline = time.perf_counter() - t1
    from sessionscope.gui.window.startup import resident_mb
    shown_rss = resident_mb() or 0.0  # (the store was made by another process: this one holds what the app's would)
    reader, reader_busy, reader_stall = _reader(w, wait_until)

    gaps, clock = [0], QElapsedTimer()
    clock.start()

    def beat():
        gaps.append(clock.restart())
    timer = QTimer()
    timer.timeout.connect(beat)
    timer.start(5)
    done = []
    w.imports.job.sig_finished.connect(done.append)
    w.imports.job.start(store, [home])
    t2 = time.perf_counter()
    wait_until(lambda: bool(done))
    import_s = time.perf_counter() - t2
    timer.stop()
    size = sum(p.stat().st_size for p in Path(home).rglob("*.jsonl")) / 1e6
    line_shown, hook_shown = _live_shown(w, store, home, db, wait_until)
    searchable = _searchable(home, db, wait_until)
    w.imports.watcher.stop()
    w.close()
    QApplication.processEvents()

    # a first run on a fresh store: how soon the list shows sessions while the import goes on
    for old in Path(db).parent.glob(Path(db).name + ".first*"):  # (a kept work folder's from a run before)
        old.unlink()
    fresh = open_store(db + ".first")
    w2 = MainWindow()
    w2.show()
    w2.set_store(fresh, first_run=False)
    finished = []
    w2.imports.job.sig_finished.connect(finished.append)
    t3 = time.perf_counter()
    w2.imports.import_first(fresh, [home])
    wait_until(lambda: w2.sessions.model.rowCount() > 0 or bool(finished))
    first_listed = time.perf_counter() - t3
    model = w2.sessions.model
    top = model.session_at(0).id if model.rowCount() else None
    wait_until(lambda: time.perf_counter() - t3 >= 2.0 or bool(finished))
    in_2s = {model.session_at(r).id for r in range(model.rowCount())}
    wait_until(lambda: bool(finished))
    first_import = time.perf_counter() - t3
    # the user's most recent sessions: the list's first ten once every session is in (its own order)
    reloaded = []
    model.sig_loaded.connect(reloaded.append)
    model.reload()
    wait_until(lambda: bool(reloaded))
    newest = [model.session_at(r).id for r in range(min(10, model.rowCount()))]
    first_rank = newest.index(top) + 1 if top in newest else None
    newest_in_2s = len(set(newest) & in_2s)
    w2.imports.watcher.stop()
    w2.close()
    QApplication.processEvents()
    return {"window": window, "timeline": timeline, "reader": reader, "reader_stall": reader_stall, "reader_busy": reader_busy,
            "stall": max(gaps) / 1000, "import_mb": size,
            "import_seconds": import_s, "warm": warm, "first_listed": first_listed, "first_import": first_import,
            "first_rank": first_rank, "newest_in_2s": newest_in_2s, "shown_rss": shown_rss,
            "line_shown": line_shown, "hook_shown": hook_shown, "searchable": searchable}


def _live_shown(w, store, home: str, db: str, wait_until) -> tuple[float, float]:
    """In the window after the import (watching the home): a prompt appended to a transcript → the session shown
    working; a hook's PermissionRequest for it (`sessionscope hook`, its process included) → shown needing approval."""
    newest = max(Path(home).rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    sid = _append_prompt(newest, "now the docs")  # the session in use: its transcript watched from here on
    wait_until(lambda: getattr(w.live.states.get(sid), "state", None) == "working"
               and str(newest) in w.imports.watcher.hot.files())
    time.sleep(1.1)  # (a line's time is whole seconds: the next one is told from this one)
    t, wall = time.perf_counter(), time.time()
    _append_prompt(newest, "and the changelog")
    wait_until(lambda: getattr(w.live.states.get(sid), "written", 0) >= int(wall))
    line_shown = time.perf_counter() - t
    t = time.perf_counter()
    subprocess.run([*_hook_argv(), "hook", "--tool", "claude", "--store", db], check=True, input=json.dumps(
        {"session_id": sid, "hook_event_name": "PermissionRequest", "tool_name": "Bash",
         "tool_input": {"command": "make docs"}}).encode())
    wait_until(lambda: getattr(w.live.states.get(sid), "state", None) == "needs_approval")
    return line_shown, time.perf_counter() - t


def _searchable(home: str, db: str, wait_until, rounds: int = 8) -> list[float]:
    """A prompt with a word of its own appended to a transcript (the session in use, then one a month old, in turn),
    until the store's text index finds the word (asked through a connection of this process's own, as
    `sessionscope search` would): seconds, each round."""
    import sqlite3
    files = sorted(Path(home).rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    took = []
    for i in range(rounds):
        word = f"zqmark{i}x{int(time.time())}"
        t = time.perf_counter()
        _append_prompt(files[-1] if i % 2 == 0 else files[i], f"look for {word} please")
        wait_until(lambda: conn.execute("SELECT 1 FROM event_fts WHERE event_fts MATCH ?", (word,)).fetchone())
        took.append(time.perf_counter() - t)
        time.sleep(0.3)
    conn.close()
    return took


def _reader(w, wait_until) -> tuple[float, float, float]:
    """The reader on the window's 200,000-event branch: seconds until its first cards are drawn with their
    text, and the longest UI stall while it scrolls (a page every 20 ms, a jump of the scroll bar every
    tenth step; the longest gap of a 5 ms heartbeat): first while the branch tree of the same 200,000
    events is still laid out on a worker (it opens with the branch), then once it is done."""
    r = w.branch.reader
    t0 = time.perf_counter()
    w.branch.set_reader(True)
    wait_until(lambda: bool(r.cards) and all(r.doc(n) is not None for n, _ in r.visible()))
    first = time.perf_counter() - t0
    busy = _scroll_stall(r, wait_until)
    wait_until(lambda: w.branch.tree.tree_model.layout_ is not None)
    calm = _scroll_stall(r, wait_until)
    w.branch.set_reader(False)
    return first, busy, calm


def _scroll_stall(r, wait_until) -> float:
    from PySide6.QtCore import QElapsedTimer, QTimer

    gaps, clock, steps = [0], QElapsedTimer(), [0]
    clock.start()
    beat = QTimer(interval=5, timeout=lambda: gaps.append(clock.restart()))

    def step():
        steps[0] += 1
        if steps[0] % 10 == 0:
            r.verticalScrollBar().setValue(steps[0] * 997 % len(r.cards))
        else:
            r.scroll_by(r.viewport().height())
    scroller = QTimer(interval=20, timeout=step)
    beat.start()
    scroller.start()
    wait_until(lambda: steps[0] >= 100)
    scroller.stop()
    beat.stop()
    return max(gaps) / 1000


def _append_prompt(path: Path, text: str) -> str:
    """A user's prompt appended to a Claude Code transcript, as the CLI writes it (now); the session's id."""
    import uuid
    last = json.loads(path.read_bytes().rstrip().rsplit(b"\n", 1)[-1])
    line = {"parentUuid": last.get("uuid"), "isSidechain": False, "userType": "external", "cwd": last.get("cwd", ""),
            "sessionId": last.get("sessionId", path.stem), "version": "2.1.39", "type": "user",
            "message": {"role": "user", "content": text}, "uuid": str(uuid.uuid4()),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    return line["sessionId"]


def _hook_argv() -> list[str]:
    """`sessionscope hook` as `hooks install` writes it: the console script beside this Python."""
    script = Path(sys.executable).with_name("sessionscope")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "sessionscope.cli"]


def live_states(db: str, work: str) -> dict:
    """Live states (#35) on the imported store: `sessionscope hook` as an agent runs it, whole process (into the
    store, and into the spool while the store is locked); the states of every session, as the window's tick decides
    them; `sessionscope status` whole process (the watched places rescanned first)."""
    import statistics

    from sessionscope import open_store
    from sessionscope.live import states as live
    payload = json.dumps({"session_id": "bench-session", "transcript_path": "/tmp/x.jsonl", "cwd": "/work/app",
                          "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "pytest -q tests/model", "description": "run the tests"}}).encode()
    argv = [*_hook_argv(), "hook", "--tool", "claude", "--store", db]

    def hook_runs(n: int) -> list[float]:
        times = []
        for _ in range(n):
            t = time.perf_counter()
            subprocess.run(argv, input=payload, capture_output=True, check=True)
            times.append(time.perf_counter() - t)
        return times
    hook_runs(2)  # (the files in the page cache, as at an agent's every step)
    direct = hook_runs(20)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    spooled = hook_runs(10)
    holder.execute("ROLLBACK")
    holder.close()
    store = open_store(db)
    sessions = store.sessions(limit=100_000)
    tick, _ = timed(lambda: live.states(store, sessions), repeat=3)
    status = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", db, "status"], capture_output=True,
                       check=True)
        status.append(time.perf_counter() - t)
    return {"hook": statistics.median(direct), "hook_max": max(direct), "hook_spooled": statistics.median(spooled),
            "sessions": len(sessions), "tick": tick, "status": min(status)}


def cold_start(db: str, runs: int = 3) -> dict:
    """The real command, as a user starts it, on the 20,000-session store: `sessionscope --startup-times` (from the
    process's start to the first paint, and to the list painted), `runs` times."""
    import os
    import re
    import tempfile
    paints, lists, rss = [], [], []
    with tempfile.TemporaryDirectory() as home:  # no tool's folders: a first run finds nothing to import
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": home, "XDG_CONFIG_HOME": f"{home}/config",
               "XDG_DATA_HOME": f"{home}/data"}
        for _ in range(runs):
            run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", db, "--startup-times"],
                                 env=env, capture_output=True, text=True, timeout=120)
            said = re.search(r"first paint (\d+) ms, ([\d,]+) sessions listed (\d+) ms(?:, (\d+) MB)?", run.stderr)
            if run.returncode != 0 or not said:
                raise SystemExit(f"--startup-times failed: {run.stderr[-2000:]}")
            paints.append(int(said.group(1)) / 1000)
            lists.append(int(said.group(3)) / 1000)
            rss.append(float(said.group(4) or 0))
            sessions = int(said.group(2).replace(",", ""))
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT count(*) FROM session").fetchone()[0]
    return {"paints": paints, "lists": lists, "rss": max(rss), "sessions": sessions, "stored": stored}
