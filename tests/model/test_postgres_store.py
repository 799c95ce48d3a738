"""The store on a real PostgreSQL server (tests/postgres.py): the same answers as SQLite for the same
import, PostgreSQL's own text search, and writers on several processes at once."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
import sqlalchemy as sa

from sessionscope import open_store
from sessionscope.history.read_models import MARK_END, MARK_START
from sessionscope.sources.claude_code import import_paths
from sessionscope.store.schema import EVENT
from tests.conftest import REPO
from tests.sources.claude_factory import Transcript


def _home(root, sessions: int = 3):
    for n in range(sessions):
        t = Transcript(cwd=f"/work/app{n}")
        t.user(f"fix the flaky login test number {n}")
        call = t.assistant(tool=("Bash", {"command": "pytest tests/test_login.py"}))
        t.tool_result(call, "collected 12 items\n" + "tests/test_login.py::test_session_cookie FAILED\n" * 40)
        t.assistant(f"The cookie expires too early; patched it in attempt {n}.")
        t.user("thanks, ship it")
        t.write(root / "projects" / f"-work-app{n}")
    return root / "projects"


def _snapshot(store):
    with store.reader() as conn:  # through the table's types: SQLite keeps big payloads compressed
        events = conn.execute(sa.select(EVENT.c.id, EVENT.c.session_id, EVENT.c.seq, EVENT.c.hash, EVENT.c.payload)).all()
    return [s.id for s in store.sessions()], sorted(tuple(e) for e in events)


def test_postgresql_store_answers_as_sqlite_does(pg_store, tmp_path):
    home = _home(tmp_path)
    lite = open_store(tmp_path / "lite.db")
    for store in (pg_store, lite):
        report = import_paths(store, [home])
        assert report.events_added > 0 and not report.problems
    assert _snapshot(pg_store) == _snapshot(lite)  # same sessions, ids, order, hashes, payloads
    sid = pg_store.sessions()[0].id
    assert [e.id for e in pg_store.branch(sid)] == [e.id for e in lite.branch(sid)]
    assert pg_store.facts_at(pg_store.session(sid).head_event_id) == lite.facts_at(lite.session(sid).head_event_id)
    assert all(r.ok for r in pg_store.verify())
    with pg_store.reader() as conn:  # a small import leaves the planner's statistics to autovacuum
        assert conn.execute(sa.text("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'event'")).scalar() is None

    # text search: every word must match, newest first, a prefix, one session, snippets marked
    hits = pg_store.search("flaky login")
    assert len(hits) == 3 and [h.ts for h in hits] == sorted((h.ts for h in hits), reverse=True)
    assert f"{MARK_START}flaky{MARK_END}" in hits[0].snippet and f"{MARK_START}login{MARK_END}" in hits[0].snippet
    assert {h.event_id for h in hits} == {h.event_id for h in lite.search("flaky login")}
    assert {h.event_id for h in pg_store.search("cook*")} == {h.event_id for h in lite.search("cook*")}
    assert len(pg_store.search("cookie", session_id=sid)) == 2  # its tool result and its reply
    assert pg_store.search("test_session_cookie")  # tool output is searchable too
    assert pg_store.search("flaky & | ! :*") and not pg_store.search("zebracorn")  # never tsquery syntax
    lite.close()


def test_writers_on_several_machines_neither_lose_nor_double_an_event(postgres_server, tmp_path):
    """Four processes import into one PostgreSQL store at once: two the same home, two homes of their own,
as three people."""
    url = postgres_server.fresh_database()
    shared, own_a, own_b = _home(tmp_path / "shared", 4), _home(tmp_path / "a", 2), _home(tmp_path / "b", 2)
    cli = [sys.executable, "-m", "sessionscope.cli", "--store", url, "import"]
    runs = [subprocess.Popen([*cli, str(home)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "LOGNAME": user})
            for home, user in ((shared, "carol"), (shared, "carol"), (own_a, "alice"), (own_b, "bob"))]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
    store = open_store(url)
    alone = open_store(tmp_path / "alone.db")
    for home in (shared, own_a, own_b):
        import_paths(alone, [home])
    assert _snapshot(store) == _snapshot(alone)  # every event once, each chain as one import makes it
    assert all(r.ok for r in store.verify())
    # each session says who brought it in, and the list filters by person
    host = socket.gethostname()
    mine = {user: {s.id for s in store.sessions(person=f"{user}@{host}")} for user in ("alice", "bob", "carol")}
    assert [len(mine[u]) for u in ("alice", "bob", "carol")] == [2, 2, 4]
    assert store.session_counts()["by_person"] == {f"alice@{host}": 2, f"bob@{host}": 2, f"carol@{host}": 4}
    store.close()
    alone.close()


@pytest.mark.parametrize("command", [["list"], ["search", "flaky"], ["verify"]])
def test_the_command_line_takes_a_postgresql_url(postgres_server, tmp_path, command):
    url = postgres_server.fresh_database()
    home = _home(tmp_path, 1)
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", url, "import", str(home)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", url, *command],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert {"list": "fix the flaky login", "search": "flaky", "verify": "intact"}[command[0]] in run.stdout


def test_a_big_import_refreshes_the_planner_statistics(pg_store, tmp_path, monkeypatch):
    """Without statistics a search for a rare word walks the newest rows instead of asking the index."""
    from sessionscope.store import db
    monkeypatch.setattr(db, "ANALYZE_AFTER", 10)
    import_paths(pg_store, [_home(tmp_path, 3)])
    with pg_store.reader() as conn:
        analysed = conn.execute(sa.text("SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL")).scalars()
        assert {"event", "session"} <= set(analysed)


def test_actions_and_exports_on_postgresql(pg_store, tmp_path):
    """Fork, append, archive, export and delete act on a PostgreSQL store as on SQLite."""
    from sessionscope.export import jsonl as jsonl_export
    from sessionscope.export.core import ExportRequest
    from sessionscope.ops import export

    import_paths(pg_store, [_home(tmp_path, 2)])
    s = pg_store.sessions()[0]
    first = pg_store.branch(s.id)[0]
    fork = pg_store.fork(s.id, first.id, title="try another way").session
    pg_store.append(fork.id, "message", role="user", text="what if we mock the clock")
    assert [e.id for e in pg_store.branch(fork.id)][:1] == [first.id]  # the shared prefix, not copied
    assert pg_store.search("mock clock")[0].session_id == fork.id
    assert pg_store.archive(fork.id).session.status == "archived"
    export(pg_store, ExportRequest("html", (s.id,)), tmp_path / "s.html")
    assert "flaky login" in (tmp_path / "s.html").read_text()
    export(pg_store, ExportRequest("jsonl", (s.id,)), tmp_path / "s.jsonl")
    lite = open_store(tmp_path / "lite.db")
    jsonl_export.import_file(lite, tmp_path / "s.jsonl")  # a team store's session taken home
    assert [e.hash for e in lite.branch(s.id)] == [e.hash for e in pg_store.branch(s.id)]
    assert lite.session(s.id).imported_by == s.imported_by  # who first brought it in travels with it
    lite.close()
    pg_store.delete(fork.id)  # (a session others fork from is refused first)
    pg_store.delete(s.id)
    assert s.id not in {x.id for x in pg_store.sessions(include_archived=True)}
    assert not pg_store.search("flaky login", session_id=s.id)
    assert all(r.ok for r in pg_store.verify())


def test_a_cache_write_takes_the_write_lock_or_gives_way(pg_store):
    """Cache writes (the outline a reader walked) take the writers' lock too: two windows' workers
    storing the same session's outline at once collided on its key before. While an import holds
    the lock, a cache write gives way at once instead of waiting it out."""
    import threading

    from sessionscope.history import outline
    from sessionscope.store import db

    s = pg_store.open_session()
    for i in range(5):
        pg_store.append(s.id, "message", text=f"m{i}")
    with pg_store.reader() as conn:
        _entries, walked = outline.head_entries(conn, s.id)
    errors: list[BaseException] = []

    def store_it():
        try:
            for _ in range(20):
                db.try_write(pg_store.engine, outline.store_entries, s.id, *walked, wait_s=5)
        except BaseException as exc:  # noqa: BLE001 - the test reports whatever escaped
            errors.append(exc)
    threads = [threading.Thread(target=store_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with pg_store.reader() as conn:
        assert outline.cached_entries(conn, s.id, walked[0], walked[1]) is not None

    with db.write_connection(pg_store.engine):  # an import holding the lock
        assert db.try_write(pg_store.engine, outline.store_entries, s.id, *walked, wait_s=0.05) is None
