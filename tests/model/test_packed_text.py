"""An event's text is stored packed like its payload on SQLite (#61): every reader, search and the text index see
the same as a store that keeps it plain, which is what each test compares with (the text written plain, as before
this change), on the corpus's real Claude Code files and on generated ones."""

from __future__ import annotations

import sqlite3

import pytest

from sessionscope import open_store, ops
from sessionscope.sources.importing import import_paths
from sessionscope.store import payloads
from sessionscope.store.quick import open_reader
from tests.model.test_payloads import _big_home

pytestmark = pytest.mark.sqlite_only  # (PostgreSQL keeps text: its big values are compressed by TOAST)

QUERIES = ("tests", "passed", "permission", "\"on to the next\"", "error OR failed", "step -session", "tool:Bash",
           "has:error", "kind:tool_result", "kind:message -next", "pytest kind:tool_call", "*ssion*", "rewnd")


def _stores(tmp_path, folder, monkeypatch) -> tuple[str, str]:
    """Two stores of `folder`: texts packed (as now) and plain (`pack_text` keeping every text as it is)."""
    packed, plain = tmp_path / "packed.db", tmp_path / "plain.db"
    with open_store(packed) as s:
        import_paths(s, [folder])
    with monkeypatch.context() as m:  # (neither packed nor kept as where its payload holds it: migration 0028)
        m.setattr(payloads, "keep_text", lambda text, payload, dictionary=None: text)
        m.setattr(payloads, "pack_text", lambda text, dictionary=None: text)  # (and as the dictionary's learning packs)
        with open_store(plain) as s:
            import_paths(s, [folder])
    return str(packed), str(plain)


def _seen(path: str) -> dict:
    """Everything a reader is given of the store: each event as the Store and the quick reader read it (whole and
    as a listing's line), each query's hits with their snippets from both."""
    out: dict = {}
    with open_store(path) as s:
        sessions = sorted(v.id for v in s.sessions(limit=10_000))
        out["events"] = {sid: [(e.id, e.text, e.payload) for e in s.events(sid)] for sid in sessions}
        out["branch"] = {sid: [(e.id, e.text) for e in s.branch(sid)] for sid in sessions}
        out["tree"] = {sid: repr(s.tree(sid)) for sid in sessions}  # (each node's label: its text's start)
        for sid in sessions[:3]:  # a pin's line shows its event's text
            ops.pin(s, sid, s.branch(sid)[-1].id, actor="test")
        out["pins"] = [(p.event_id, p.text) for p in s.pins()]
        out["store hits"] = {q: [(h.event_id, h.snippet, h.did_you_mean) for h in s.search(q, limit=100)]
                             for q in QUERIES}
        out["verified"] = all(r.ok for r in s.verify())
    out["index"] = _index(path)
    with open_reader(path) as quick:
        out["quick"] = {sid: [(e.id, e.text, e.payload) for e in quick.events(sid)] for sid in sessions}
        out["quick brief"] = {sid: [(e.id, e.text) for e in quick.events(sid, brief=True)] for sid in sessions}
        out["quick hits"] = {q: [(h.event_id, h.snippet, h.did_you_mean) for h in quick.search(q, limit=100)]
                             for q in QUERIES}
    return out


def _packed_share(path: str, refs: bool | None = None) -> float:
    """The share of events whose text the store does not keep as it is (packed, or where its payload holds it; `refs`
    True: the latter alone, False: the former alone)."""
    con = sqlite3.connect(path)
    column = "text_kept" if "text_kept" in [r[1] for r in con.execute("PRAGMA table_info(event)")] else "text"
    which = {None: "", True: f" AND substr({column}, 1, 1) = x'00'", False: f" AND substr({column}, 1, 1) != x'00'"}
    packed, total = con.execute(f"SELECT sum(typeof({column}) = 'blob'{which[refs]}), count(*) FROM event").fetchone()
    con.close()
    return packed / total


def _index(path: str) -> list[tuple]:
    """What the text index holds: each word with the events and the times it is in them (FTS5's own vocabulary)."""
    con = sqlite3.connect(path)
    con.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, event_fts, 'row')")
    words = con.execute("SELECT term, doc, cnt FROM temp.words ORDER BY term").fetchall()
    con.close()
    return words


def _indexed_again(path: str) -> list[tuple]:
    """The index made again by `index_range` (SQL reading the stored, packed texts back), as repair makes it: an
    import indexes the rows from their text in hand (`index_rows`), and both must index the same."""
    from sessionscope.recall.search import index_range
    with open_store(path) as s:
        def again(conn):
            conn.exec_driver_sql("INSERT INTO event_fts(event_fts) VALUES ('delete-all')")
            first, last = conn.exec_driver_sql("SELECT min(pk), max(pk) FROM event").one()
            index_range(conn, first, last)
        s.write(again)
    return _index(path)


def test_generated_sessions_read_and_search_as_with_plain_text(tmp_path, monkeypatch):
    made, _key = _big_home(tmp_path)  # enough lines for the tool's dictionary, then short texts packed with it
    packed, plain = _stores(tmp_path, tmp_path / "projects", monkeypatch)
    assert _packed_share(packed) > 0.05 and _packed_share(plain) == 0  # (its replies are short)
    assert _packed_share(packed, refs=True) > 0.05  # (its long texts: all where their payloads hold them)
    seen = _seen(packed)
    assert seen == _seen(plain)
    assert seen["verified"] and all(seen["store hits"][q] for q in ("tests", "tool:Bash", "has:error"))
    assert seen["store hits"] == seen["quick hits"] and seen["index"]
    assert _indexed_again(packed) == seen["index"]


def test_the_corpus_reads_and_searches_as_with_plain_text_in_less_room(corpus, tmp_path, monkeypatch):
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no Claude Code files in the corpus")
    packed, plain = _stores(tmp_path, folder, monkeypatch)
    assert _packed_share(packed) > 0.3
    seen = _seen(packed)
    assert seen == _seen(plain)
    assert _indexed_again(packed) == seen["index"]
    for path in (packed, plain):
        with sqlite3.connect(path) as con:
            payloads.register_sql(con)  # (VACUUM compiles the generated `text`: 0028)
            con.execute("VACUUM")
    text_bytes = [sqlite3.connect(p).execute("SELECT sum(length(CAST(text_kept AS BLOB))) FROM event").fetchone()[0]
                  for p in (packed, plain)]
    # (the corpus: 2.3 MB of text kept in 0.8 MB packed, in 0.2 MB once the payload holds the long ones)
    assert text_bytes[0] < text_bytes[1] / 5
    assert _packed_share(packed, refs=True) > 0.4 and _packed_share(packed, refs=False) > 0.02  # (both kinds)


def test_a_session_deleted_leaves_the_index_as_with_plain_text(tmp_path, monkeypatch):
    """Un-indexing reads the packed texts back (FTS5 deletes by the text it indexed): what is left of the index is
    what a store of plain texts keeps after the same deletion."""
    made, _key = _big_home(tmp_path, sessions=30)
    stores = _stores(tmp_path, tmp_path / "projects", monkeypatch)
    gone = made[-1].session_id
    for path in stores:
        with open_store(path) as s:
            s.delete(gone, actor="test")
            assert all(h.session_id != gone for h in s.search("passed", limit=1000)) and s.search("passed", limit=10)
    assert _packed_share(stores[0]) > 0.05
    assert _index(stores[0]) == _index(stores[1]) and _seen(stores[0]) == _seen(stores[1])


def test_the_migration_keeps_the_index_and_goes_back(tmp_path):
    """0027 points the text index at the view and indexes nothing again; going back to 0026 unpacks every text
    and points it at the table, where a connection without Sessionscope's function searches it."""
    from alembic import command
    from alembic.config import Config

    from sessionscope.store import db
    made, _key = _big_home(tmp_path, sessions=30)
    path = tmp_path / "store.db"
    with open_store(path) as s:
        import_paths(s, [tmp_path / "projects"])
        before = _index(str(path))
        want = [(h.event_id, h.snippet) for h in s.search("passed", limit=50)]
    assert want and _packed_share(str(path)) > 0.05
    cfg = Config()
    cfg.set_main_option("script_location", str(db.__file__).replace("db.py", "migrations"))
    engine = db.create_store_engine(f"sqlite:///{path}")
    with db.write_connection(engine) as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0026")
    engine.dispose()
    con = sqlite3.connect(path)  # (no plain_text here)
    assert _packed_share(str(path)) == 0 and _index(str(path)) == before
    assert "content='event'," in con.execute("SELECT sql FROM sqlite_schema WHERE name = 'event_fts'").fetchone()[0]
    found = con.execute("SELECT snippet(event_fts, 0, '[', ']', '…', 8) FROM event_fts WHERE event_fts MATCH 'passed'")
    assert len([s for (s,) in found if "[PASSED]" in s]) >= len(want)
    con.close()
    with open_store(path) as s:  # up again
        assert [(h.event_id, h.snippet) for h in s.search("passed", limit=50)] == want
