"""Big payloads are stored compressed on SQLite; every way of reading them gives the line back."""

from __future__ import annotations

import sqlite3

import orjson
import pytest

from sessionscope import open_store
from sessionscope.export import jsonl as jsonl_export
from sessionscope.export.core import ExportRequest
from sessionscope.ops import export
from sessionscope.sources.claude_code import import_paths
from sessionscope.store.quick import open_reader
from tests.sources.claude_factory import Transcript


def _home(tmp_path):
    t = Transcript()
    t.user("run the tests")
    call = t.assistant(tool=("Bash", {"command": "pytest -q"}))
    output = "collected 400 items\n" + "".join(f"tests/test_{i}.py::test_case PASSED\n" for i in range(400))  # ~15 KB
    t.tool_result(call, output)
    t.assistant("All 400 pass. " + "The suite is green. " * 100, msg_id="msg_long")  # a long reply: stays text
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
    stored = dict(con.execute("SELECT id, typeof(payload) FROM event WHERE session_id = ?", (t.session_id,)).fetchall())
    result_id, reply_id = t.lines[2]["uuid"], t.lines[3]["uuid"]
    assert stored[result_id] == "blob"  # the tool output, compressed
    assert stored[reply_id] == "text"  # an assistant line stays text (the branch walk reads it in SQL)
    assert stored[t.lines[0]["uuid"]] == "text"  # short
    blob = con.execute("SELECT length(payload) FROM event WHERE id = ?", (result_id,)).fetchone()[0]
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
        "SELECT typeof(payload) FROM event WHERE id = ?", (result_id,)).fetchone()[0] == "blob"
    other.close()
