"""An event's payload kept without its row's ids (migration 0029, SQLite): the line its tool wrote, read back as it was
written, from every corpus file and from generated shapes; a kept payload cut or moved reads as damaged; a store from
0028 reads the same upgraded, keeps new payloads without their ids, and goes back; repaired, it keeps them."""

from __future__ import annotations

import json
import random
import sqlite3
import uuid

import pytest

from sessionscope import open_store
from sessionscope.safety.repair import repair
from sessionscope.sources.importing import import_paths
from sessionscope.store import payloads
from tests.conftest import CORPUS as SHARED
from tests.model.test_payloads import _big_home, _downgraded
from tests.model.test_text_kept_once import _read

CORPUS = SHARED / "claude-code"


def _lines(rng: random.Random, n: int):
    """Lines as tools write them (Python's and JavaScript's JSON, ASCII-escaped or not), with the row's ids where a
    Claude Code line has them, once more elsewhere, or not at all; a parent that is the event itself, or none."""
    for _ in range(n):
        ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(3)]
        if rng.random() < 0.1:
            ids[1] = ids[0]
        if rng.random() < 0.1:
            ids[1] = None
        if rng.random() < 0.05:
            ids[2] = ids[0]
        fields = {"parentUuid": ids[1], "sessionId": ids[2], "uuid": ids[0], "note": rng.choice([*ids, "none"]),
                  "text": "héllo \u2028 wörld " * rng.randint(0, 40), "n": rng.randint(0, 9)}
        if rng.random() < 0.1:
            del fields["uuid"]
        keys = list(fields)
        rng.shuffle(keys)
        line = json.dumps({k: fields[k] for k in keys}, ensure_ascii=rng.random() < 0.3,
                          separators=rng.choice([(",", ":"), (", ", ": ")]))
        yield line, tuple(ids)


def _round_trip(line: str, ids: tuple) -> bytes | str:
    kept = payloads.pack_kept(line, "message", "user", None, ids)
    read = payloads.payload_with_ids(kept, *ids) if isinstance(kept, bytes) and kept[:1] == payloads.IDS_OUT \
        else payloads.unpack(kept)
    assert read == line
    return kept


def test_a_generated_line_kept_without_its_ids_reads_back_as_written():
    rng = random.Random(29)
    without = 0
    for line, ids in _lines(rng, 5000):
        kept = _round_trip(line, ids)
        if any(v and f'"{v}"' in line for v in ids):
            assert isinstance(kept, bytes) and kept[:1] == payloads.IDS_OUT
            body = payloads.unpack(kept[payloads.IDS_HEAD:]) if kept[payloads.IDS_HEAD:][:4] == payloads.ZSTD_MAGIC \
                else kept[payloads.IDS_HEAD:].decode()
            assert len(body) < len(line)
            without += 1
    assert without > 4000


def test_every_corpus_line_reads_back_as_written():
    files = sorted(CORPUS.rglob("*.jsonl")) if CORPUS.is_dir() else []
    if not files:
        pytest.skip("no ../shared/corpus beside the repository")
    lines = without = 0
    for path in files:
        for line in path.read_text(encoding="utf-8", errors="surrogateescape").splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            ids = tuple(v if isinstance(v, str) else None for v in (obj.get("uuid"), obj.get("parentUuid"),
                                                                     obj.get("sessionId")))
            kept = _round_trip(line, ids)
            lines += 1
            without += isinstance(kept, bytes) and kept[:1] == payloads.IDS_OUT
    assert lines > 3000 and without > lines / 2


def test_a_kept_payload_cut_or_moved_reads_as_damaged():
    line = json.dumps({"uuid": "u" * 36, "parentUuid": "p" * 36, "sessionId": "s" * 36, "text": "hi"})
    ids = ("u" * 36, "p" * 36, "s" * 36)
    kept = payloads.pack_kept(line, "message", None, None, ids)
    assert payloads.payload_with_ids(kept, *ids) == line
    damaged = [kept[:5],  # the header cut short
               kept[:1] + (10_000).to_bytes(4, "little") + kept[5:],  # an id said to stand past the end
               kept[:payloads.IDS_HEAD] + b"\xff\xfe"]  # the rest no UTF-8
    for bad in damaged:
        assert payloads.payload_with_ids(bad, *ids).startswith(payloads.DAMAGED_PAYLOAD)
    assert payloads.payload_with_ids(kept, ids[0], None, ids[2]).startswith(payloads.DAMAGED_PAYLOAD)  # (no parent)


def _without_ids(path) -> int:
    with sqlite3.connect(path) as con:
        columns = [r[1] for r in con.execute("PRAGMA table_info(event)")]
        column = "payload_kept" if "payload_kept" in columns else "payload"
        return con.execute(f"SELECT count(*) FROM event WHERE substr({column}, 1, 1) = x'01'").fetchone()[0]


def _store_at_0028(tmp_path, sessions: int):
    """A store of `sessions` generated sessions, taken back to 0028; and what its readers read at head."""
    _big_home(tmp_path, sessions=sessions)
    path = tmp_path / "s.db"
    with open_store(path) as s:
        import_paths(s, [tmp_path / "projects"])
        want = _read(s)
    assert _without_ids(path) > 8 * sessions
    _downgraded(path, "0028")
    assert _without_ids(path) == 0  # (every payload written out whole again)
    return path, want


def test_a_store_from_0028_reads_the_same_upgraded_keeps_new_payloads_without_ids_and_goes_back(tmp_path):
    path, want = _store_at_0028(tmp_path, 12)
    with sqlite3.connect(path) as con:  # 0028's shape: the payload a column of its own, read without our functions
        assert "payload_kept" not in [r[1] for r in con.execute("PRAGMA table_xinfo(event)")]
        assert con.execute("SELECT count(*) FROM event WHERE payload LIKE '%sessionId%'").fetchone()[0] > 100
    with open_store(path) as s:  # up to head: nothing rewritten, the same reads; a new session's lines without ids
        assert _read(s) == want and _without_ids(path) == 0
        more = tmp_path / "more"
        _big_home(more, sessions=2)
        assert import_paths(s, [more / "projects"]).events_added > 0
        assert _without_ids(path) > 16
        assert all(r.ok for r in s.verify())


def test_a_store_from_0028_repaired_keeps_its_payloads(tmp_path):
    path, want = _store_at_0028(tmp_path, 4)
    report = repair(str(path))
    assert not report.lost
    with open_store(path) as s:
        assert _read(s) == want


def test_a_bulk_insert_does_not_put_the_ids_back_to_throw_them_away(tmp_path):
    """As for a text kept once (tests/model/test_text_kept_once.py): SQLite works out the generated `payload` of a row
    it writes; inside `payloads.inserting` the writer's connection answers NULL for it."""
    _big_home(tmp_path, sessions=1)
    path = tmp_path / "s.db"
    with open_store(path) as s:
        import_paths(s, [tmp_path / "projects"])
    writer, other = sqlite3.connect(path), sqlite3.connect(path)
    for con in (writer, other):
        payloads.register_sql(con)
    kept = "SELECT payload FROM event WHERE substr(payload_kept, 1, 1) = x'01' LIMIT 3"
    read = [p for (p,) in other.execute(kept)]
    assert len(read) == 3 and all(p.startswith("{") for p in read)
    with payloads.inserting(writer):
        assert [p for (p,) in writer.execute(kept)] == [None] * 3
        assert [p for (p,) in other.execute(kept)] == read
    assert [p for (p,) in writer.execute(kept)] == read
    writer.close()
    other.close()


@pytest.mark.parametrize("home", ["generated", "corpus"])
def test_the_usage_figures_read_from_payloads_kept_without_their_ids_equal_those_read_whole(tmp_path, home):
    """The replies the usage reports count (spend.entries) read from `payload_kept` (payloads.unpack_kept, ids left
    out) equal those read from the whole payload (`event.payload`, the ids put back): through the Store and through
    the command line's quick reader."""
    from sessionscope.insight import spend
    from sessionscope.store.quick import open_reader
    if home == "corpus" and not CORPUS.is_dir():
        pytest.skip("no ../shared/corpus beside the repository")
    if home == "generated":
        _big_home(tmp_path)
    folder = CORPUS if home == "corpus" else tmp_path / "projects"
    store = open_store(tmp_path / "s.db")
    import_paths(store, [folder])
    assert _without_ids(tmp_path / "s.db") > 0
    until = 4_000_000_000.0
    with store.reader() as conn:
        sql, params = spend.entries_query(0, until, kept=False)
        whole = spend.entries(conn.exec_driver_sql(sql, tuple(params)).all(), payloads.unpack)
    # (what only the payload tells: the model, and the cache's share of the input, the corpus's replies have)
    assert len(whole) > 50 and all(e.model for e in whole)
    assert home == "generated" or sum(e.parts[2] + e.parts[3] for e in whole) > 0
    assert store.usage_entries(0, until) == whole
    reader = open_reader(str(tmp_path / "s.db"))
    assert reader is not None
    with reader:
        assert reader.usage_entries(0, until) == whole
    store.close()
