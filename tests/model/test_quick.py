"""The standard-library reader (sessionscope.store.quick) answers as the Store does, or steps aside."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from sessionscope import open_store
from sessionscope.errors import InvalidInput, NotFound
from sessionscope.store.demo import build_demo
from sessionscope.store.quick import open_reader
from tests.conftest import REPO


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    path = tmp_path_factory.mktemp("quick") / "s.db"
    store = open_store(path)
    build_demo(store)
    a = store.open_session(session_id="abcdef12-0000-4000-8000-000000000001", title="Écrire le README",
                           project="/w/app", tags=["docs"])
    store.open_session(session_id="abcdef12-0000-4000-8000-000000000002", title="second", project="/w/other",
                       tags=["50%_x", "été", "docs-old"])
    for i in range(5):
        store.append(a.id, "message", role="user" if i % 2 == 0 else "assistant", text=f"m{i}", ts=1000.0 + i,
                     tokens_in=i)
    store.append(a.id, "tool_call", text="x", payload={"name": "Bash"})
    store.set_fact(a.id, "plan", ["one"])
    archived = store.open_session(title="old one")
    store.append(archived.id, "message", role="user", text="bye")
    store.archive(archived.id)
    reader = open_reader(str(path))
    assert reader is not None
    yield store, reader, a.id, path
    reader.conn.close()
    store.close()


FILTERS = [
    {}, {"include_archived": True}, {"status": "archived"}, {"status": "active"},
    {"source_kind": "native"}, {"source_kind": "claude_code"}, {"project": "/w/app"},
    {"text": "readme"}, {"text": "ÉCRIRE"}, {"text": "abcdef12"}, {"text": "50%_"}, {"text": "w/other"},
    *({"sort": s, "descending": d} for s in ("updated", "created", "title", "events", "tokens", "status", "project")
      for d in (True, False)),
    # a tag is matched whole: "doc" is no tag here, "docs" is not "docs-old"; LIKE's wildcards and accents are text
    {"tag": "docs"}, {"tag": "doc"}, {"tag": "docs-old"}, {"tag": "été"}, {"tag": "50%_x"}, {"tag": "50%"},
    {"limit": 2}, {"limit": 2, "offset": 1}, {"include_archived": True, "limit": 3, "sort": "title"},
]


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()) or "none")
def test_sessions_are_the_stores(stores, filters):
    store, reader, _, _ = stores
    assert reader.sessions(**filters) == store.sessions(**filters)


def test_a_tag_finds_exactly_the_sessions_carrying_it(stores):
    store, _, sid, _ = stores
    assert [s.id for s in store.sessions(tag="docs")] == [sid]
    assert store.sessions(tag="doc") == []
    assert [s.title for s in store.sessions(tag="50%_x")] == ["second"]
    counts = store.session_counts()["by_tag"]
    assert {t: counts[t] for t in ("50%_x", "docs", "docs-old", "été")} == {"50%_x": 1, "docs": 1, "docs-old": 1, "été": 1}
    assert list(counts)[:2] == ["demo", "tests"]  # the demo store's, on two sessions each: most used first


def test_one_session_its_events_and_its_ids_are_the_stores(stores):
    store, reader, sid, _ = stores
    assert reader.session(sid) == store.session(sid)
    for window in ({}, {"from_seq": 2, "to_seq": 4}, {"since": 1001.5}, {"until": 1002.0}, {"limit": 3}):
        assert reader.events(sid, **window) == store.events(sid, **window)
    ids = [s.id for s in store.sessions(include_archived=True)]
    assert reader.short_ids(ids) == store.short_ids(ids)
    assert len(reader.short_ids([sid])[sid]) > 8  # its neighbour shares the first 8 characters
    other = next(i for i in ids if not i.startswith("abcdef12"))
    for key in (sid, other[:6], other[:10]):
        assert reader.resolve_session(key) == store.resolve_session(key)
    for bad, error in (("abcdef12", InvalidInput), ("zzzz", NotFound), ("", InvalidInput)):
        with pytest.raises(error):
            reader.resolve_session(bad)
        with pytest.raises(error):
            store.resolve_session(bad)
    with pytest.raises(NotFound):
        reader.events("no-such-session")
    with pytest.raises(InvalidInput):
        reader.sessions(sort="colour")


def test_it_steps_aside_for_what_the_store_must_open(stores, tmp_path):
    _, _, _, path = stores
    assert open_reader(str(tmp_path / "not-yet.db")) is None  # the Store creates it
    assert open_reader("postgresql://localhost/team") is None
    (tmp_path / "junk.db").write_text("not a database")
    assert open_reader(str(tmp_path / "junk.db")) is None  # the Store says what is wrong with it
    older = tmp_path / "older.db"
    with sqlite3.connect(path) as live, sqlite3.connect(older) as copy:
        live.backup(copy)  # the WAL's pages too, which a file copy would miss
        copy.execute("UPDATE alembic_version SET version_num = '0002'")
    assert open_reader(str(older)) is None  # the Store migrates it first
    assert open_reader(f"sqlite:///{path}") is not None


def test_list_show_search_and_usage_import_no_sqlalchemy(stores):
    """What makes `sessionscope list`, `show`, `search` and `usage` whole-process times ~0.1 s (the benchmark's rows);
    `usage` once every session's usage is cached (the first asks the Store, which folds and keeps it)."""
    store, _, sid, path = stores
    store.usage_table(by="day")  # (the usage cache filled)
    script = ("import sys\nfrom sessionscope.cli import main\n"
              f"assert main(['--store', {str(path)!r}, 'list']) == 0\n"
              f"assert main(['--store', {str(path)!r}, 'show', {sid!r}]) == 0\n"
              f"assert main(['--store', {str(path)!r}, 'search', 'm1']) == 0\n"
              f"assert main(['--store', {str(path)!r}, 'usage', 'daily']) == 0\n"
              f"assert main(['--store', {str(path)!r}, 'usage', 'blocks']) == 0\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'sqlmodel', 'PySide6')))")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_one_read_of_every_id_shortens_as_the_neighbour_queries_do():
    """Over NEIGHBOUR_QUERIES ids `list` reads every id once: each prefix is still the shortest (≥ 8) that
    no other id starts with, ids that share long prefixes included."""
    import random

    from sessionscope.store.quick import NEIGHBOUR_QUERIES, prefixes_among
    rng = random.Random(5)
    every = sorted({"".join(rng.choice("ab0") for _ in range(12)) for _ in range(400)} | {"abab", "abababab0"})

    def shortest(full):
        n = 8
        while any(o != full and o.startswith(full[:n]) for o in every) and n < len(full):
            n += 1
        return full[:n]
    asked = every[::3] + ["zzzz-not-there"]
    assert len(asked) > NEIGHBOUR_QUERIES
    assert prefixes_among(every, asked) == {full: shortest(full) for full in asked}
