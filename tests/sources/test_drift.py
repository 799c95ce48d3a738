"""Schema drift is reported, never silent (#36 item 7): what a reader met and did not understand is listed with
the tool, the version that wrote it and the shape, from a real import (the lines kept whole, the document parts
said as not known), in the model, the CLI and File ▸ Import Problems…; what was understood is kept."""

from __future__ import annotations

import json
import subprocess
import sys

import orjson

from sessionscope.insight.drift import drift, shape_of
from sessionscope.sources.importing import import_paths
from tests.conftest import REPO

from .claude_factory import Transcript
from .codex_factory import Rollout


def _home(tmp_path):
    r = Rollout("019b0000-0000-7000-8000-0000000000d1")
    r.lines[0]["payload"]["cli_version"] = "0.999.0"
    r.turn("Ship it", "Shipped")
    for _ in range(2):  # a response item of a kind newer than this reader
        r.add("response_item", {"type": "hologram_call", "call_id": "h1", "projection": "3d"})
    codex = r.write(tmp_path / "codex")
    t = Transcript()
    t.user("hello")
    t.assistant("hi")
    claude = t.write(tmp_path / "claude")
    with open(claude, "a", encoding="utf-8") as fh:  # a line type Claude Code may write one day, in its own version
        fh.write(orjson.dumps({"type": "telepathy", "subtype": "ping", "version": "9.9.9", "uuid": "u-x",
                               "sessionId": t.session_id, "timestamp": "2026-03-01T10:00:00Z"}).decode() + "\n")
    crush = tmp_path / "proj" / ".crush"
    crush.mkdir(parents=True)
    import sqlite3
    db = sqlite3.connect(crush / "crush.db")
    db.executescript("""
        CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY, version_id INTEGER, is_applied INTEGER, tstamp TEXT);
        CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT, message_count INTEGER,
          prompt_tokens INTEGER, completion_tokens INTEGER, cost REAL, updated_at INTEGER, created_at INTEGER,
          summary_message_id TEXT);
        CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT, role TEXT, parts TEXT, model TEXT,
          created_at INTEGER, updated_at INTEGER, finished_at INTEGER, provider TEXT);
    """)
    db.execute("INSERT INTO sessions VALUES ('s1', NULL, 'Fix the login', 2, 10, 5, 0.01, 1772400000, 1772400000, NULL)")
    db.execute("INSERT INTO messages VALUES ('m1', 's1', 'user', ?, '', 1772400000, 1772400000, NULL, '')",
               (json.dumps([{"type": "text", "data": {"text": "Fix the login"}}]),))
    db.execute("INSERT INTO messages VALUES ('m2', 's1', 'assistant', ?, 'gpt-5', 1772400001, 1772400001, 1772400002, 'x')",
               (json.dumps([{"type": "text", "data": {"text": "Done"}}, {"type": "quantum_part", "data": {}},
                            {"type": "finish", "data": {"reason": "end_turn"}}]),))
    db.commit()
    db.close()
    return codex, claude, tmp_path / "proj"


def test_what_was_not_understood_is_listed_by_tool_version_and_shape(store, tmp_path):
    codex, claude, crush = _home(tmp_path)
    report = import_paths(store, [codex, claude, crush])
    rows = {(d.tool, d.version, d.shape): d for d in drift(store)}
    hologram = rows[("codex", "0.999.0", "response_item/hologram_call")]
    assert (hologram.lines, hologram.sessions, hologram.kept) == (2, 1, "line")
    assert hologram.example == "019b0000-0000-7000-8000-0000000000d1" and hologram.label == "Codex CLI"
    assert rows[("claude_code", "9.9.9", "telepathy/ping")].lines == 1  # the line's own version
    part = next(d for d in rows.values() if d.tool == "crush")
    assert part.kept == "file" and "'quantum_part'" in part.shape and part.example.startswith(str(crush))
    assert not part.shape.startswith("message ")  # where it was is the example; the shape is what
    # what was understood around them is kept
    assert "Shipped" in [e.text for e in store.events("019b0000-0000-7000-8000-0000000000d1")]
    crush_session = next(sid for sid in report.sessions if store.session(sid).source_kind == "crush")
    assert [e.text for e in store.branch(crush_session) if e.kind == "message"] == ["Fix the login", "Done"]
    # the drift list comes first by how often it was met
    assert list(rows.values())[0] is hologram


def test_shapes_are_named_from_what_the_line_holds():
    assert shape_of('{"type": "event_msg", "payload": {"type": "new_thing"}}') == ("event_msg/new_thing", "")
    assert shape_of('{"type": "x", "subtype": "y", "version": "2.1.400"}') == ("x/y", "2.1.400")
    assert shape_of('{"zeta": 1, "alpha": 2}') == ("(no type: keys alpha, zeta)", "")
    assert shape_of("[1, 2]") == ("(a JSON list, not an object)", "")
    assert shape_of("{not json") == ("(not JSON)", "")


def test_the_cli_lists_drift_and_says_when_there_is_none(store, tmp_path):
    db = tmp_path / "cli.db"
    run = [sys.executable, "-m", "sessionscope.cli", "--store", str(db)]
    empty = subprocess.run([*run, "drift"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert empty.returncode == 0 and "every line and part read was understood" in empty.stdout
    codex, _claude, _crush = _home(tmp_path)
    subprocess.run([*run, "import", str(codex)], capture_output=True, text=True, cwd=REPO, timeout=120, check=True)
    listed = subprocess.run([*run, "drift"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert "Codex CLI" in listed.stdout and "0.999.0" in listed.stdout and "response_item/hologram_call" in listed.stdout
    as_json = json.loads(subprocess.run([*run, "drift", "--json"], capture_output=True, text=True, cwd=REPO,
                                        timeout=120).stdout)
    assert as_json[0]["shape"] == "response_item/hologram_call" and as_json[0]["lines"] == 2
