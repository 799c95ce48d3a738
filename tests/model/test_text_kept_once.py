"""An event's text kept once on SQLite (migration 0028, #61): where the payload holds it whole as a JSON string, the
row keeps where (`payloads.text_ref`) and `event.text` is generated from it. Every reader and the text index see
the text as before; test_packed_text compares a whole store with one that keeps every text plain. Here: the
reference against JSON's own reading of the line, a store upgraded from 0027 and taken back, an append, a repair."""

from __future__ import annotations

import json
import sqlite3

import orjson
import pytest

from sessionscope import open_store
from sessionscope.safety.repair import repair
from sessionscope.sources.importing import import_paths
from sessionscope.store import payloads
from tests.model.test_payloads import _big_home, _downgraded

pytestmark = pytest.mark.sqlite_only  # (PostgreSQL keeps its text column)

ODD = ["quote \" and back\\slash " * 4, "new\nline\ttab\r\x01\x1f " * 5, "é ü 日本語 🙂 " * 8, "line\u2028sep\u2029" * 9,
       "</script><!-- " * 6, "x" * 63, "y" * 64, "\u0000nul " * 20]


@pytest.mark.parametrize("text", ODD)
@pytest.mark.parametrize("dumps", [lambda o: json.dumps(o, ensure_ascii=False), lambda o: json.dumps(o),
                                   lambda o: orjson.dumps(o).decode()], ids=["utf8", "ascii-escaped", "orjson"])
def test_a_text_read_through_its_reference_is_what_json_reads_in_the_line(text, dumps):
    line = dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}, "n": 1})
    ref = payloads.text_ref(text, line)
    if ref is None:  # (kept itself: too short, or written with escapes the line does not use)
        assert len(text) < payloads.REF_MIN_CHARS or orjson.dumps(text).decode()[1:-1] not in line
        return
    assert len(ref) == 10 and ref.startswith(payloads.TEXT_REF)
    assert payloads.text_in_payload(ref, line) == json.loads(line)["message"]["content"][0]["text"] == text
    assert payloads.text_in_payload(ref, payloads.pack(line, "message")) == text  # (the payload packed: the same)


@pytest.mark.parametrize("args", [{"command": "pytest tests/model -q -k 'not slow' --maxfail=3", "timeout": 120000},
                                  {"file_path": "/home/dev/é.py", "old_string": "a\n\tb \"q\"", "new_string": "x" * 80},
                                  {"todos": [{"content": "step " * 20, "status": "pending"}]}])
def test_a_tool_calls_text_is_its_name_then_the_lines_own_input(args):
    """The converter's text of a call (sessionscope.sources.claude_code.lines.block_text) against the line as a tool
    writes it (compact JSON, as JavaScript's JSON.stringify): kept as its name, then the payload's characters."""
    from sessionscope.sources.claude_code.lines import block_text
    block = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": args}
    line = json.dumps({"type": "assistant", "message": {"content": [block]}}, ensure_ascii=False, separators=(",", ":"))
    text = block_text([block])
    ref = payloads.text_ref(text, line)
    assert ref is not None and ref.startswith(payloads.TEXT_SPLICE) and len(ref) < 24
    assert payloads.text_in_payload(ref, line) == payloads.text_in_payload(ref, payloads.pack(line, "tool_call")) == text
    assert payloads.text_in_payload(ref, line[:-40]).startswith(payloads.DAMAGED_PAYLOAD)  # (a payload cut short)


def test_no_reference_where_the_payload_does_not_hold_the_text_whole():
    assert payloads.text_ref("a" * 100, json.dumps({"t": "a" * 99})) is None
    assert payloads.text_ref("half \udc80 a pair " * 10, "anything") is None  # (no JSON string holds it)
    assert payloads.text_ref("short", json.dumps({"t": "short"})) is None


def _kept(path) -> dict:
    with sqlite3.connect(path) as con:
        columns = [r[1] for r in con.execute("PRAGMA table_info(event)")]
        column = "text_kept" if "text_kept" in columns else "text"
        return dict(con.execute(f"SELECT substr({column}, 1, 1) = x'00', count(*) FROM event GROUP BY 1"))


def _read(store) -> tuple:
    sessions = sorted(s.id for s in store.sessions(limit=1000))
    return ({sid: [(e.id, e.text, e.payload) for e in store.events(sid)] for sid in sessions},
            [(h.event_id, h.snippet) for h in store.search("passed", limit=200)], all(r.ok for r in store.verify()))


def _store_taken_back(tmp_path, sessions: int):
    """A store of `sessions` generated sessions, taken back to 0027; and what its readers read at head."""
    _big_home(tmp_path, sessions=sessions)
    path = tmp_path / "s.db"
    with open_store(path) as s:
        import_paths(s, [tmp_path / "projects"])
        want = _read(s)
    assert _kept(path).get(1, 0) > 8 * sessions  # (texts kept as where their payloads hold them)
    _downgraded(path, "0027")
    assert _kept(path).get(1, 0) == 0  # (every text written out again)
    return path, want


def test_a_store_from_0027_reads_the_same_upgraded_keeps_new_texts_once_and_goes_back(tmp_path):
    path, want = _store_taken_back(tmp_path, 12)
    with sqlite3.connect(path) as con:  # 0027's shape: a plain column, read by a connection without our functions
        assert "text_kept" not in [r[1] for r in con.execute("PRAGMA table_xinfo(event)")]
        assert con.execute("SELECT count(*) FROM event WHERE text LIKE '%passed%'").fetchone()[0] > 100
    with open_store(path) as s:  # up to head: nothing rewritten, the same reads; new lines kept once
        assert _read(s) == want and _kept(path).get(1, 0) == 0
        sid = s.open_session(title="after").id
        long = "the long reply, " * 20
        e = s.append(sid, "message", role="assistant", text=long, payload={"type": "assistant", "text": long})
        assert s.event(e.id).text == long and _kept(path).get(1, 0) == 1
        assert s.verify(sid)[0].ok and any(h.event_id == e.id for h in s.search("reply", limit=50))


def test_a_store_from_0027_repaired_keeps_its_texts(tmp_path):
    path, want = _store_taken_back(tmp_path, 4)
    report = repair(str(path))
    assert not report.lost
    with open_store(path) as s:
        assert _read(s) == want


def test_a_bulk_insert_does_not_work_out_the_texts_it_keeps_as_references(tmp_path):
    """SQLite works out a row's virtual `text` on insert to throw it away: inside `payloads.inserting` the writer's
    connection answers NULL for it, so an import decompresses no payload for it; every other connection, and the
    writer's once the insert is done, reads the text itself."""
    _big_home(tmp_path, sessions=2)
    path = tmp_path / "s.db"
    with open_store(path) as s:
        import_paths(s, [tmp_path / "projects"])
        want = _read(s)
    writer, other = sqlite3.connect(path), sqlite3.connect(path)
    for con in (writer, other):
        payloads.register_sql(con)
    referenced = "SELECT text FROM event WHERE substr(text_kept, 1, 1) = x'00' LIMIT 5"
    texts = [t for (t,) in other.execute(referenced)]
    assert len(texts) == 5 and all(texts)
    calls: list[int] = []
    real = payloads.text_in_payload
    payloads.text_in_payload = lambda *a: calls.append(1) or real(*a)  # (what the registered function calls)
    try:
        with payloads.inserting(writer):
            assert [t for (t,) in writer.execute(referenced)] == [None] * 5
            assert [t for (t,) in other.execute(referenced)] == texts
            writer.execute("INSERT INTO event (id, session_id, seq, depth, ts, kind, text_kept, payload_kept, "
                           "tokens_in, tokens_out, sidechain, hash) SELECT id || '-copy', session_id, seq + 100000, depth, "
                           "ts, kind, text_kept, payload_kept, 0, 0, 0, hash FROM event "
                           "WHERE substr(text_kept, 1, 1) = x'00'")
        assert len(calls) == 5  # (the other connection's reads alone)
        assert [t for (t,) in writer.execute(referenced)] == texts
    finally:
        payloads.text_in_payload = real
        writer.rollback()
        writer.close()
        other.close()
    with open_store(path) as s:
        assert _read(s) == want
