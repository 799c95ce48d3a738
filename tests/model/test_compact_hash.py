"""An event's chain hash is kept on SQLite as the 32 bytes its hex digits spell (#61): every reader, `verify`, the
quick reader and the lossless export see the same as in a store that keeps the digits as text (as every store
did before this change, and as old rows still are), on the corpus's real Claude Code files and on generated
ones; a store holding both kinds of row verifies across the boundary."""

from __future__ import annotations

import json
import sqlite3

import pytest

from sessionscope import open_store, ops
from sessionscope.export.core import ExportRequest
from sessionscope.sources.importing import import_paths
from sessionscope.store import ingest, payloads, schema
from sessionscope.store.quick import open_reader
from tests.model.test_payloads import _big_home

pytestmark = pytest.mark.sqlite_only  # (PostgreSQL keeps the digits)


def _as_text(monkeypatch) -> None:
    """Hashes written as they were before: the hex digits as text."""
    for module in (schema, ingest):
        monkeypatch.setattr(module, "compact_hash", lambda value: value)


def _seen(path) -> dict:
    out: dict = {}
    with open_store(path) as s:
        sessions = sorted(v.id for v in s.sessions(limit=10_000))
        out["events"] = {sid: [(e.id, e.seq, e.hash) for e in s.events(sid)] for sid in sessions}
        with s.reader() as conn:
            out["sessions"] = dict(conn.exec_driver_sql("SELECT id, last_hash FROM session").all())
        out["verified"] = [(r.session_id, r.ok) for r in s.verify()]
        jsonl = f"{path}.jsonl"
        ops.export(s, ExportRequest("jsonl", tuple(sessions)), jsonl, actor="test")
        with open(jsonl, encoding="utf-8") as fh:
            out["export"] = [json.loads(line).get("hash") for line in fh]
    with open_reader(str(path)) as quick:
        out["quick"] = {sid: [(e.id, e.seq, e.hash) for e in quick.events(sid)] for sid in sessions}
    return out


def _kinds(path) -> dict:
    con = sqlite3.connect(path)
    kinds = dict(con.execute("SELECT typeof(hash), count(*) FROM event GROUP BY 1").fetchall())
    con.close()
    return kinds


def _both(tmp_path, folder, monkeypatch):
    compact, text = tmp_path / "compact.db", tmp_path / "text.db"
    with open_store(compact) as s:
        import_paths(s, [folder])
    with monkeypatch.context() as m:
        _as_text(m)
        with open_store(text) as s:
            import_paths(s, [folder])
    return compact, text


def test_generated_sessions_read_verify_and_export_as_with_the_digits(tmp_path, monkeypatch):
    _big_home(tmp_path, sessions=6)
    compact, text = _both(tmp_path, tmp_path / "projects", monkeypatch)
    assert set(_kinds(compact)) == {"blob"} and set(_kinds(text)) == {"text"}
    seen = _seen(compact)
    assert seen == _seen(text)
    assert seen["verified"] and all(ok for _, ok in seen["verified"])
    assert all(len(h) == 64 for events in seen["events"].values() for _, _, h in events)
    assert seen["quick"] == {sid: events for sid, events in seen["events"].items()}


def test_the_corpus_reads_verifies_and_exports_as_with_the_digits_in_less_room(corpus, tmp_path, monkeypatch):
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no corpus")
    compact, text = _both(tmp_path, folder, monkeypatch)
    assert _seen(compact) == _seen(text)
    assert compact.stat().st_size < text.stat().st_size


def test_a_store_of_both_kinds_of_row_verifies_across_them(tmp_path, monkeypatch):
    """Rows written before (digits as text), then new ones (bytes) chained on them: one chain, verified; an event
    changed under its hash is still found."""
    path = tmp_path / "mixed.db"
    with monkeypatch.context() as m:
        _as_text(m)
        with open_store(path) as s:
            sid = s.open_session(title="before").id
            for i in range(3):
                s.append(sid, "message", role="user", text=f"before {i}")
    with open_store(path) as s:
        for i in range(3):
            s.append(sid, "message", role="user", text=f"after {i}")
        assert _kinds(path) == {"text": 3, "blob": 3}
        events = s.events(sid)
        assert [e.text for e in events] == [f"before {i}" for i in range(3)] + [f"after {i}" for i in range(3)]
        assert s.verify(sid)[0].ok
    con = sqlite3.connect(path)
    payloads.register_sql(con)  # (an UPDATE of the event table compiles its generated `text`: migration 0028)
    con.execute("UPDATE event SET tokens_in = 7 WHERE seq = 5")  # (a column the hash covers)
    con.commit()
    con.close()
    with open_store(path) as s:
        report = s.verify(sid)[0]
        assert not report.ok
