"""Big payloads are stored compressed on SQLite; every way of reading them gives the line back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import pytest
import zstandard

from sessionscope import open_store
from sessionscope.export import jsonl as jsonl_export
from sessionscope.export.core import ExportRequest
from sessionscope.ops import export
from sessionscope.sources.claude_code import import_paths
from sessionscope.store import db, payloads
from sessionscope.store.payloads import pack, unpack
from sessionscope.store.quick import open_reader
from tests.sources.claude_factory import Transcript


def _home(tmp_path):
    t = Transcript()
    t.user("run the tests")
    call = t.assistant(tool=("Bash", {"command": "pytest -q"}))
    output = "collected 400 items\n" + "".join(f"tests/test_{i}.py::test_case PASSED\n" for i in range(400))  # ~15 KB
    t.tool_result(call, output)
    t.assistant("All 400 pass. " + "The suite is green. " * 100, msg_id="msg_long")  # a long reply
    t.user("thanks")
    path = t.write(tmp_path / "projects" / "-work-app")
    return t, path, output


@pytest.mark.sqlite_only
def test_big_payloads_are_compressed_and_read_back_verbatim(store, tmp_path):
    """SQLite only: PostgreSQL compresses big values itself (TOAST), so `pack` leaves them as text there."""
    t, path, output = _home(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    lines = path.read_text().splitlines()
    con = sqlite3.connect(tmp_path / "store.db")
    stored = dict(con.execute("SELECT id, typeof(payload_kept) FROM event WHERE session_id = ?", (t.session_id,)).fetchall())
    result_id, reply_id = t.lines[2]["uuid"], t.lines[3]["uuid"]
    assert stored[result_id] == "blob"  # the tool output, compressed
    assert stored[reply_id] == "blob"  # an assistant line too: the branch walk reads its response id from a column
    assert con.execute("SELECT response_id FROM event WHERE id = ?", (reply_id,)).fetchone()[0] == "msg_long"
    # short, and this store has no dictionary yet: not compressed, only its ids left out (the columns hold them)
    kept = con.execute("SELECT payload_kept FROM event WHERE id = ?", (t.lines[0]["uuid"],)).fetchone()[0]
    assert kept[:1] == payloads.IDS_OUT and _frame(kept) is None and t.lines[0]["uuid"].encode() not in kept
    blob = con.execute("SELECT length(payload_kept) FROM event WHERE id = ?", (result_id,)).fetchone()[0]
    assert blob < len(lines[2]) / 4

    # the full store, the quick reader, the branch, search and verify all see the text
    assert store.event(result_id).payload == lines[2]
    assert orjson.loads(store.event(result_id).payload)["toolUseResult"]["stdout"] == output
    quick = open_reader(str(tmp_path / "store.db"))
    assert {e.id: e.payload for e in quick.events(t.session_id)}[result_id] == lines[2]
    assert [e.id for e in store.branch(t.session_id)][-1] == t.lines[-1]["uuid"]
    assert store.search("collected")[0].event_id == result_id
    assert all(r.ok for r in store.verify(t.session_id))

    # exports hand the line back (Claude Code's own format: as a resumable transcript), and a JSONL
    # export imports into another store alike
    native = tmp_path / "native.jsonl"
    export(store, ExportRequest("claude", (t.session_id,)), native)
    exported = orjson.loads(native.read_text().splitlines()[2])
    assert (exported["message"], exported["toolUseResult"]) == (t.lines[2]["message"], t.lines[2]["toolUseResult"])
    export(store, ExportRequest("jsonl", (t.session_id,)), tmp_path / "all.jsonl")
    other = open_store(tmp_path / "other.db")
    jsonl_export.import_file(other, tmp_path / "all.jsonl")
    assert other.event(result_id).payload == lines[2] and all(r.ok for r in other.verify(t.session_id))
    assert sqlite3.connect(tmp_path / "other.db").execute(
        "SELECT typeof(payload_kept) FROM event WHERE id = ?", (result_id,)).fetchone()[0] == "blob"
    other.close()


def _big_home(tmp_path, sessions: int = 40):
    """Claude Code sessions enough for a dictionary (more than TRAIN_BYTES of lines), each holding a key in a
    prompt, and a failed call whose result is long (compressed)."""
    key = "sk-ant-api03-" + "Q7vX2mLp9RtY4wZs8KdF3hJc6NbV1gTe"
    made = []
    for n in range(sessions):
        t = Transcript()
        t.user(f"deploy with {key} please, session {n}")
        for i in range(30):
            call = t.assistant(tool=("Bash", {"command": f"pytest tests/test_{i}.py -q"}), msg_id=f"msg_{n}_{i}")
            t.tool_result(call, f"tests/test_{i}.py::test_{i} PASSED\n" * (1 + i % 3))
            t.assistant(f"Step {i} of session {n} passed; on to the next one.", msg_id=f"msg_{n}_{i}b")
        call = t.assistant(tool=("Bash", {"command": "make release"}), msg_id=f"msg_{n}_fail")
        failed = t.tool_result(call, "make: *** [release] Error 2\n" + "ld: symbol not found\n" * 200)
        failed["message"]["content"][0]["is_error"] = True
        t.write(tmp_path / "projects" / "-work-app")
        made.append(t)
    return made, key


@pytest.mark.sqlite_only
def test_a_tools_lines_are_compressed_with_a_dictionary_learnt_from_them(store, tmp_path):
    """SQLite only (PostgreSQL compresses big values itself). A dictionary is learnt once the store holds enough of
    the tool's lines; from then on short lines are compressed too, every reader (another process's quick reader
    too) reads them back, and the dictionary holds no key the lines held."""
    from sessionscope.store import dictionaries
    made, key = _big_home(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    con = sqlite3.connect(tmp_path / "store.db")
    (dict_id, tool, data), = con.execute("SELECT id, tool, data FROM payload_dict").fetchall()
    assert tool == "claude_code" and len(data) <= dictionaries.DICT_BYTES
    assert key.encode() not in data and key[:24].encode() not in data
    import zstandard
    framed = [zstandard.get_frame_parameters(_frame(b)).dict_id for (b,) in con.execute(
        "SELECT payload_kept FROM event WHERE typeof(payload_kept) = 'blob' AND length(payload_kept) < 4096")
        if _frame(b) is not None]
    total = con.execute("SELECT count(*) FROM event").fetchone()[0]
    # every line but the kinds SQL reads and the big ones, the first ones too (compressed again once it was learnt)
    assert set(framed) == {dict_id} and len(framed) > total / 2
    first = made[0].lines[1]["uuid"]  # the first session's first reply, stored before the dictionary was learnt
    assert zstandard.get_frame_parameters(_frame(con.execute(
        "SELECT payload_kept FROM event WHERE id = ?", (first,)).fetchone()[0])).dict_id == dict_id
    short = con.execute("SELECT id FROM event WHERE typeof(payload_kept) = 'blob' AND kind = 'message' "
                        "AND role = 'assistant' ORDER BY seq DESC LIMIT 1").fetchone()[0]
    lines = {json_line["uuid"]: line for t in made
             for json_line, line in zip(t.lines, t.text().splitlines())}
    assert len(lines[short]) < 1024 and store.event(short).payload == lines[short]
    assert all(e.payload == lines[e.id] for e in store.events(made[-1].session_id) if e.id in lines)
    assert all(r.ok for t in made for r in store.verify(t.session_id))
    # a process that never saw the dictionary reads the lines through it (the quick reader, as `show --json` does)
    import subprocess
    import sys
    shown = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "store.db"), "--json",
                            "show", made[-1].session_id], capture_output=True, text=True, check=True)
    assert [e["payload"] for e in orjson.loads(shown.stdout)["events"]] == [orjson.loads(e.payload) for e in
                                                                          store.events(made[-1].session_id)]


@pytest.mark.sqlite_only
def test_a_tools_own_big_lines_go_through_its_dictionary_and_big_tool_output_does_not(store, tmp_path):
    """SQLite only (PostgreSQL compresses big values itself). Today's Claude Code writes each session's system prompt
    and tool schemas (the request's shape, the prompt's snapshot: 30-60 KB a line), the same from session to
    session: the dictionary learns them whole and keeps each in a few per cent of its bytes, where without it they
    kept a third. Big tool output goes without (the reader process packs it ahead of the writer)."""
    from tests.benchmarks.claude_today import write_home
    written = write_home(tmp_path / "today", sessions=4, turns=2)
    if written is None:
        pytest.skip("claude-agent-sdk's bundled claude is not installed")
    import_paths(store, [Path(written["projects"])])
    con = sqlite3.connect(tmp_path / "store.db")
    (dict_id,), = con.execute("SELECT id FROM payload_dict").fetchall()
    lines = {}
    for path in Path(written["projects"]).rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            got = orjson.loads(line)
            if len(line) >= payloads.BIG_BYTES and got.get("type") in ("api-request-shape", "attachment"):
                lines.setdefault(got["type"], []).append(line)
    assert set(lines) == {"api-request-shape", "attachment"}, "the claude bundled here writes no such lines: look again"
    kept = {}
    for event_id, kind, raw in con.execute("SELECT id, kind, payload_kept FROM event"):
        size = len(store.event(event_id).payload)
        if size >= payloads.BIG_BYTES:
            kept.setdefault(kind, []).append((zstandard.get_frame_parameters(_frame(raw)).dict_id, len(raw) / size))
    assert {k for k in kept} >= {"opaque", "context"}
    assert all(d == dict_id and share < 0.1 for k in ("opaque", "context") for d, share in kept[k]), kept
    # every line reads back as written
    assert sorted(e.payload for t in store.sessions() for e in store.events(t.id) if len(e.payload) >= payloads.BIG_BYTES
                  and e.kind in ("opaque", "context")) == sorted(line for group in lines.values() for line in group)
    output = "x" * payloads.BIG_BYTES + "".join(f"tests/test_{i}.py::test_case PASSED\n" for i in range(400))
    dictionary = payloads.known(dict_id)
    assert zstandard.get_frame_parameters(payloads.pack(output, "tool_result", None, dictionary)).dict_id == 0
    assert payloads.pack_big(output, "tool_result") is not None and payloads.pack_big(output, "opaque") is None


def _a_week_passes(con) -> None:
    """The store's dictionaries made a week and a day ago (one younger than a week is not looked at again)."""
    from sessionscope.store import dictionaries
    with con:
        con.execute("UPDATE payload_dict SET made_at = made_at - ?", (dictionaries.AGAIN_AFTER_S + 86400,))


def _import_in_a_process(db_path, folder) -> None:
    import subprocess
    import sys
    subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(db_path), "import", str(folder)],
                   capture_output=True, check=True)


@pytest.mark.sqlite_only
def test_a_dictionary_is_learnt_again_once_a_tools_lines_have_moved_on(store, tmp_path):
    """SQLite only. A store that learnt its dictionary from lines of before (here the factory's, Claude Code 1.x's
    shape) learns another from today's Claude Code's lines, a week on, in the next process that writes enough of
    them, and packs what comes after with it; the lines written through either read back as written."""
    from tests.benchmarks.claude_today import write_home
    _big_home(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    written = write_home(tmp_path / "today", sessions=14, turns=1)
    if written is None:
        pytest.skip("claude-agent-sdk's bundled claude is not installed")
    con = sqlite3.connect(tmp_path / "store.db")
    _a_week_passes(con)
    before = con.execute("SELECT max(pk) FROM event").fetchone()[0]
    _import_in_a_process(tmp_path / "store.db", written["projects"])
    (old, _), (new, _) = con.execute("SELECT id, tool FROM payload_dict ORDER BY made_at").fetchall()
    used = [zstandard.get_frame_parameters(_frame(b)).dict_id for (b,) in con.execute(
        "SELECT payload_kept FROM event WHERE typeof(payload_kept) = 'blob' AND pk > ? ORDER BY pk", (before,))
        if _frame(b) is not None]
    assert used[-1] == new and used.count(new) > len(used) // 4 and old in used
    lines = [line for path in Path(written["projects"]).rglob("*.jsonl") for line in path.read_text().splitlines()]
    with_ids = {orjson.loads(line)["uuid"]: line for line in lines if '"uuid"' in line}
    assert len(with_ids) > 50 and all(store.event(uuid).payload == line for uuid, line in with_ids.items())
    shapes = {line for line in lines if '"type":"api-request-shape"' in line}
    read = {e.payload for sid in {orjson.loads(line)["sessionId"] for line in shapes} for e in store.events(sid)}
    assert len(shapes) == 14 and shapes <= read


@pytest.mark.sqlite_only
def test_a_dictionary_is_kept_while_a_tools_lines_stay_alike(store, tmp_path):
    """SQLite only. Another process that writes more lines like those the dictionary was learnt from, a week on,
    looks, and keeps none: the one it has packs them as well."""
    _big_home(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    _big_home(tmp_path / "more", sessions=60)
    con = sqlite3.connect(tmp_path / "store.db")
    _a_week_passes(con)
    _import_in_a_process(tmp_path / "store.db", tmp_path / "more" / "projects")
    assert con.execute("SELECT count(*) FROM payload_dict").fetchone()[0] == 1
    assert con.execute("SELECT count(*) FROM event").fetchone()[0] > 100 * 62


@pytest.mark.sqlite_only
def test_a_failed_call_is_found_though_its_result_is_compressed(store, tmp_path):
    """SQLite only (where payloads are compressed). `has:error` finds a failed result by its column, not by looking
    inside a payload SQL can no longer read; the Store and the quick reader alike."""
    made, _key = _big_home(tmp_path, sessions=2)
    import_paths(store, [tmp_path / "projects"])
    failed = {t.lines[-1]["uuid"] for t in made}
    con = sqlite3.connect(tmp_path / "store.db")
    assert {r[0] for r in con.execute("SELECT typeof(payload_kept) FROM event WHERE id IN (?, ?)", tuple(failed))} == {"blob"}
    assert {h.event_id for h in store.search("has:error", limit=100)} == failed
    assert {h.event_id for h in open_reader(str(tmp_path / "store.db")).search("has:error", limit=100)} == failed


@pytest.mark.sqlite_only
def test_a_store_from_before_the_dictionaries_gets_its_columns_filled(tmp_path):
    """SQLite only (the migration's Python pass reads compressed results). A store of revision 0023: assistant
    lines as text (their response id read by json_extract then), failed results compressed without a dictionary.
    Upgraded, the columns say what the payloads said: the branch and has:error as before."""
    made, _key = _big_home(tmp_path, sessions=2)
    path = tmp_path / "old.db"
    with open_store(path) as s:
        import_paths(s, [tmp_path / "projects"])
        branch = {t.session_id: [e.id for e in s.branch(t.session_id)] for t in made}
    _downgraded(path, "0028")  # (the payload a column of its own again, as the migrations from 0023 on knew it)
    con = sqlite3.connect(path)
    payloads.register_sql(con)  # (an UPDATE of the event table compiles its generated `text`: migration 0028)
    want = dict(con.execute("SELECT id, response_id FROM event WHERE response_id IS NOT NULL"))
    failed = {t.lines[-1]["uuid"] for t in made}
    assert len(want) > 100 and set(r[0] for r in con.execute("SELECT id FROM event WHERE failed")) == failed
    with con:  # back to 0023: no dictionary (their payloads as 0023 stored them), no columns
        for pk, stored in con.execute("SELECT pk, payload FROM event").fetchall():
            text = unpack(stored)
            con.execute("UPDATE event SET payload = ? WHERE pk = ?", (pack(text, "tool_result") if len(text) > 4096
                                                                   and '"tool_result"' in text else text, pk))
        con.execute("DROP TABLE payload_dict")
        con.execute("ALTER TABLE event DROP COLUMN response_id")
        con.execute("ALTER TABLE event DROP COLUMN failed")
        con.execute("UPDATE alembic_version SET version_num = '0023'")
    assert con.execute("SELECT count(*) FROM event WHERE typeof(payload) = 'blob'").fetchone()[0] >= 2
    con.close()
    with open_store(path) as s:
        assert {t.session_id: [e.id for e in s.branch(t.session_id)] for t in made} == branch
        assert {h.event_id for h in s.search("has:error", limit=100)} == failed
    con = sqlite3.connect(path)
    assert dict(con.execute("SELECT id, response_id FROM event WHERE response_id IS NOT NULL")) == want
    assert set(r[0] for r in con.execute("SELECT id FROM event WHERE failed")) == failed


def _frame(kept: bytes) -> bytes | None:
    """The zstd frame a kept payload holds (after the header of the ids it left out, if any), or None."""
    body = bytes(kept[payloads.IDS_HEAD:] if kept[:1] == payloads.IDS_OUT else kept)
    return body if body[:4] == payloads.ZSTD_MAGIC else None


def _downgraded(path, to: str) -> None:
    from alembic import command
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(db.__file__).replace("db.py", "migrations"))
    engine = db.create_store_engine(f"sqlite:///{path}")
    with db.write_connection(engine) as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, to)
    engine.dispose()
