"""Full-text search, retention, and the schema version check."""

from __future__ import annotations

import sqlite3
import time

import pytest

from sessionscope import InvalidInput, SchemaTooNew, open_store, ops
from sessionscope.history.read_models import MARK_END, MARK_START
from sessionscope.safety.retention import DAY, RetentionPolicy


def test_search_returns_newest_hits_with_snippets(store):
    a = store.open_session(title="alpha")
    b = store.open_session(title="beta")
    store.append(a.id, "message", text="the deploy failed with a timeout")
    store.append(b.id, "tool_result", text="timeout while deploying; retry later")
    store.append(b.id, "message", text="nothing to see")
    hits = store.search("timeout", order="time")
    assert [h.session_title for h in hits] == ["beta", "alpha"]
    assert f"{MARK_START}timeout{MARK_END}" in hits[0].snippet
    assert [h.session_id for h in store.search("timeout", session_id=a.id)] == [a.id]
    assert store.search("deploy*")  # prefix search
    assert store.search('"quoted) AND (weird"') == []  # FTS syntax is taken literally
    with pytest.raises(InvalidInput, match="at character 1: the quote opened there is not closed"):
        store.search('"quoted) AND (weird')
    with pytest.raises(InvalidInput):
        store.search("   ")
    assert len(store.search("timeout", limit=1)) == 1


def test_retention_archives_and_purges_and_is_recorded(store):
    old = store.open_session(title="old")
    store.append(old.id, "message", ts=time.time() - 40 * DAY)
    fresh = store.open_session(title="fresh")
    store.append(fresh.id, "message")
    running = store.open_session(title="running")
    store.append(running.id, "message", ts=time.time() - 40 * DAY)
    store.report_status(running.id, "start")
    assert not store.retention_policy().enabled
    assert ops.run_retention(store) == {"archived": [], "purged": [], "skipped": []}

    ops.set_retention(store, RetentionPolicy(archive_after_days=30, purge_after_days=60))
    dry = ops.run_retention(store, dry_run=True)
    assert dry["archived"] == [old.id] and store.session(old.id).status == "active"
    result = ops.run_retention(store)
    assert result["archived"] == [old.id]
    assert result["skipped"] == [{"session": running.id, "why": "it is running"}]
    assert store.session(old.id).status == "archived"
    assert result["purged"] == []  # archived just now
    result = ops.run_retention(store, now=time.time() + 61 * DAY)
    assert old.id in result["purged"]
    assert {s.id for s in store.sessions(include_archived=True)} >= {fresh.id, running.id}
    runs = [e for e in store.audit_log() if e["action"].startswith("retention")]
    assert len(runs) == 5  # policy set, 1 off run, 1 dry run, 2 real runs


def test_store_newer_than_code_is_refused(tmp_path):
    path = tmp_path / "s.db"
    open_store(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE alembic_version SET version_num = '9999_future'")
    con.commit()
    con.close()
    with pytest.raises(SchemaTooNew, match="9999_future.*newer"):
        open_store(path)


def test_not_a_database_is_a_clear_error(tmp_path):
    from sessionscope import StoreUnavailable

    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreUnavailable, match="not a database"):
        open_store(path)


def test_migrations_match_the_models(tmp_path):
    """Alembic autogenerate finds nothing to do: the migrations build what schema.py declares."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from sessionscope.store.migrating import include_name, include_object
    from sessionscope.store.schema import SQLModel

    store = open_store(tmp_path / "s.db")
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"include_name": include_name, "include_object": include_object})
        diffs = compare_metadata(context, SQLModel.metadata)
    store.close()
    assert diffs == []


def test_store_works_on_plain_sqlalchemy_url(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'u.db'}")
    s = store.open_session()
    store.append(s.id, "message", text="hello there")
    assert store.search("hello")[0].session_id == s.id
    store.close()


def test_head_revision_is_alembics_head():
    """A new migration without HEAD_REVISION bumped would leave existing stores un-migrated (the store
    skips Alembic when a store says it is at HEAD_REVISION)."""
    from pathlib import Path

    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from sessionscope.store import migrating
    from sessionscope.store.revision import HEAD_REVISION
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrating.__file__).with_name("migrations")))
    assert ScriptDirectory.from_config(cfg).get_heads() == [HEAD_REVISION]
