"""Shared fixtures. Qt runs offscreen; with SESSIONSCOPE_BLOCK_QT=1 PySide6 cannot be imported."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any Qt import
# Settings and the demo store go to a scratch place, never the developer's own.
_SCRATCH = tempfile.mkdtemp(prefix="sessionscope-tests-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_SCRATCH, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_SCRATCH, "data")
# ...and no test ever reads the developer's own Claude Code history.
os.environ["HOME"] = os.path.join(_SCRATCH, "home")
os.environ.pop("CLAUDE_CONFIG_DIR", None)

if os.environ.get("SESSIONSCOPE_BLOCK_QT") == "1":
    class _BlockQt:
        """A meta-path finder that makes PySide6 unimportable (the model must not need it)."""

        def find_spec(self, name, path=None, target=None):
            if name == "PySide6" or name.startswith("PySide6."):
                raise ImportError(f"{name} is blocked: model/ must not import Qt")
            return None

    sys.meta_path.insert(0, _BlockQt())

REPO = Path(__file__).resolve().parent.parent
# the real session files (read only): $SESSIONSCOPE_CORPUS, or ../shared/corpus beside the checkout
CORPUS = Path(os.environ.get("SESSIONSCOPE_CORPUS") or REPO.parent / "shared" / "corpus")


# The store suite: its tests that take the `store` fixture run once on SQLite and once on a
# PostgreSQL server (skipped where none can start); `@pytest.mark.sqlite_only` keeps one on SQLite.
# The window's own tests do the same with the demo store they open.
STORE_SUITE = tuple(str(REPO / "tests" / d) for d in ("model", "sources", "export", "managed"))
WINDOW_ON_BOTH = (str(REPO / "tests" / "gui" / "test_window.py"),)


def pytest_configure(config):
    config.addinivalue_line("markers", "sqlite_only: a store-suite test of what only SQLite has (why, in its docstring)")


def pytest_generate_tests(metafunc):
    if metafunc.definition.get_closest_marker("sqlite_only"):
        return
    path = str(metafunc.definition.path)
    if "store" in metafunc.fixturenames and path.startswith(STORE_SUITE):
        metafunc.parametrize("store", ["sqlite", "postgresql"], indirect=True)
    elif "demo" in metafunc.fixturenames and path in WINDOW_ON_BOTH:
        metafunc.parametrize("demo", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory) -> Path:
    """A SQLite store the migrations ran on once (per worker): each test's store is a copy of it (~1.5 ms against
    ~35 ms for migrating a new file), as PostgreSQL's stores are copies of a template database."""
    from sessionscope import open_store

    path = tmp_path_factory.mktemp("template") / "store.db"
    open_store(path).close()  # (closed: its WAL checkpointed into the file, nothing beside it)
    return path


@pytest.fixture
def store(request, tmp_path):
    import shutil

    from sessionscope import open_store

    server = None
    if getattr(request, "param", "sqlite") == "postgresql":
        server = request.getfixturevalue("postgres_server")
        s = open_store(server.fresh_database(migrated=True))
    else:
        shutil.copy2(request.getfixturevalue("_sqlite_template"), tmp_path / "store.db")
        s = open_store(tmp_path / "store.db")
    yield s
    s.close()
    if server is not None:
        server.drop(s.url)


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"no corpus at {CORPUS} (set SESSIONSCOPE_CORPUS, or lay shared/corpus beside the checkout)")
    return CORPUS


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL server (tests/postgres.py); skips where none can start."""
    from tests import postgres

    server = postgres.start()
    if isinstance(server, str):
        pytest.skip(server)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def team_store(postgres_server):
    """A store the database's owner (postgres) made and turned the rules on in; three logins of the team."""
    from sessionscope import open_store

    database, names = postgres_server.team("alice", "bob", "carol", admins=("carol",))
    stores = {who: open_store(postgres_server.url(database, name)) for who, name in names.items()}
    yield postgres_server, database, names, stores
    for s in stores.values():
        s.close()


@pytest.fixture
def pg_store(postgres_server):
    """A store on a fresh database of the throwaway PostgreSQL server."""
    from sessionscope import open_store

    s = open_store(postgres_server.fresh_database())
    yield s
    s.close()
    postgres_server.drop(s.url)
