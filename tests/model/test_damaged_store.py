"""A damaged store (#29 items 18, 19): bytes of the file flipped, a row's text made invalid UTF-8, a payload or
a kept file's bytes edited. `verify` names what is damaged and goes on past it; reading shows the rest (the
damaged row marked) instead of failing every row; SQLite's integrity check is part of verify."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from sessionscope import open_store
from sessionscope.store import payloads
from tests.conftest import REPO

pytestmark = pytest.mark.sqlite_only  # bytes of a SQLite file; PostgreSQL checks its own pages


def _store(path, sessions=3, events=30):
    store = open_store(path)
    ids = []
    for n in range(sessions):
        sid = store.open_session(title=f"session {n}").id
        for i in range(events):
            store.append(sid, "tool_result", role="tool", text=f"output {i}", payload={"output": "x" * 3000 + str(i)})
        ids.append(sid)
    return store, ids


def _cli(path, *args):
    return subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(path), *args], cwd=REPO,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)


def test_a_title_that_is_not_utf8_is_one_marked_row_and_verify_names_its_session(tmp_path):
    store, ids = _store(tmp_path / "s.db")
    store.close()
    con = sqlite3.connect(tmp_path / "s.db")
    con.execute("UPDATE session SET title = CAST(X'626164fffe' AS TEXT) WHERE id = ?", (ids[1],))
    payloads.register_sql(con)  # (an UPDATE of the event table compiles its generated `text`: migration 0028)
    con.execute("UPDATE event SET text_kept = CAST(X'ff' AS TEXT) WHERE session_id = ? AND seq = 7", (ids[2],))
    con.commit()
    con.close()
    listed = _cli(tmp_path / "s.db", "list")
    assert listed.returncode == 0, listed.stderr
    assert "session 0" in listed.stdout and "⚠ damaged" in listed.stdout
    with open_store(tmp_path / "s.db") as again:
        assert len(again.sessions()) == 3 and again.session(ids[1]).title.startswith("⚠ damaged")
        assert len(again.events(ids[2])) == 30
    verified = _cli(tmp_path / "s.db", "--json", "verify")
    assert verified.returncode == 1
    report = {s["session_id"]: s for s in json.loads(verified.stdout)["sessions"]}
    assert report[ids[0]]["ok"] and not report[ids[2]]["ok"] and report[ids[2]]["broken_seq"] == 7


def test_a_payload_that_no_longer_decompresses_is_named_by_verify_and_shown_as_damaged(tmp_path):
    store, ids = _store(tmp_path / "s.db")
    store.close()
    con = sqlite3.connect(tmp_path / "s.db")
    payloads.register_sql(con)  # (an UPDATE of the event table compiles its generated `text`: migration 0028)
    # a compressed payload (as the importers store big tool output) whose frame was damaged
    con.execute("UPDATE event SET payload_kept = ? WHERE session_id = ? AND seq = 5",
                (b"\x28\xb5\x2f\xfd" + b"\x00" * 40, ids[0]))
    con.commit()
    con.close()
    shown = _cli(tmp_path / "s.db", "--json", "show", ids[0])
    assert shown.returncode == 0, shown.stderr
    assert "damaged in the store" in json.dumps(json.loads(shown.stdout)["events"][4]["payload"])
    report = json.loads(_cli(tmp_path / "s.db", "--json", "verify").stdout)
    bad = [s for s in report["sessions"] if not s["ok"]]
    assert [(s["session_id"], s["broken_seq"]) for s in bad] == [(ids[0], 5)]


def test_flipped_pages_are_found_by_sqlites_check_and_verify_goes_on(tmp_path):
    store, ids = _store(tmp_path / "s.db", sessions=4, events=60)
    store.close()
    path = tmp_path / "s.db"
    data = bytearray(path.read_bytes())
    page = 4096
    for at in range(len(data) // 2 // page * page, len(data) // 2 // page * page + 3 * page, 97):
        data[at] ^= 0x5A  # three pages in the middle of the file
    path.write_bytes(bytes(data))
    out = _cli(path, "--json", "verify")
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    if out.stdout:
        report = json.loads(out.stdout)
        assert not report["ok"] and (report["problem"] or any(not s["ok"] for s in report["sessions"]))
    else:  # the damage took the catalogue itself: one line that says the store is damaged
        assert "damaged" in out.stderr or "malformed" in out.stderr, out.stderr


def test_a_kept_file_edited_in_the_store_is_named_by_verify_and_restore_says_damaged(store, tmp_path, monkeypatch):
    from sessionscope.history import file_restore  # noqa: F401 (the restore below goes through it)
    from sessionscope.sources.claude_code import checkpoints, import_paths
    from tests.sources.checkpoint_home import build
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    home = build(tmp_path)
    import_paths(store, [home.claude / "projects"])
    sid = home.t.session_id
    import shutil
    shutil.rmtree(home.claude / "file-history")  # only the store's copy is left
    with store.reader() as conn:
        h = conn.exec_driver_sql("SELECT blob_hash FROM checkpoint_backup ORDER BY backup_name LIMIT 1").scalar()
    with store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE file_blob SET data = ? WHERE hash = ?", (b"\x28\xb5\x2f\xfd" + os.urandom(20), h))
    damaged = store.verify_blobs()
    assert [d["hash"] for d in damaged] == [h] and damaged[0]["sessions"] == [sid]
    plan = checkpoints.restore_plan(store, sid, home.prompts["p1"])
    assert any(c.action == "unavailable" and c.source.startswith("damaged") for c in plan.changes)


def _flipped(tmp_path):
    store, ids = _store(tmp_path / "s.db", sessions=4, events=60)
    store.close()
    path = tmp_path / "s.db"
    data = bytearray(path.read_bytes())
    start = len(data) // 2 // 4096 * 4096
    for at in range(start, start + 3 * 4096, 97):
        data[at] ^= 0x5A
    path.write_bytes(bytes(data))
    return path, ids


def test_an_import_into_a_damaged_file_is_refused_and_repair_rebuilds_what_it_can(tmp_path):
    from tests.sources.claude_factory import Transcript
    path, ids = _flipped(tmp_path)
    project = tmp_path / "projects" / "-w"
    t = Transcript(cwd="/w")
    t.user("a transcript to import")
    t.write(project)
    refused = _cli(path, "import", str(tmp_path / "projects"))
    assert refused.returncode == 1 and "damaged" in refused.stderr and "sessionscope repair" in refused.stderr
    before = path.read_bytes()
    repaired = _cli(path, "--json", "repair", "--yes")
    assert "Traceback" not in repaired.stderr, repaired.stderr
    report = json.loads(repaired.stdout)
    assert report["copied"]["session"] == 4 and report["copied"]["event"] >= 200
    assert open(report["kept_damaged"], "rb").read() == before  # the damaged file is kept as it was
    assert _cli(path, "import", str(tmp_path / "projects")).returncode == 0  # a sound store takes writes again
    with open_store(path) as store:
        assert store.integrity() == [] and len(store.sessions()) == 5
        broken = {r.session_id for r in store.verify() if not r.ok}
        assert broken == set(report["broken_sessions"])  # the report says exactly which chains lost events


def test_a_title_with_a_replacement_character_of_its_own_is_not_called_damaged(tmp_path):
    store, ids = _store(tmp_path / "s.db", sessions=1, events=1)
    store.rename(ids[0], "bad bytes were replaced at import: \ufffd")
    assert not store.session(ids[0]).title.startswith("⚠") and not store.sessions()[0].title.startswith("⚠")
    store.close()
    assert "⚠ damaged" not in _cli(tmp_path / "s.db", "list").stdout


def test_repair_rebuilds_broken_chains_from_the_files_on_disk_and_leaves_no_orphan(tmp_path):
    """#58 item 19: after damage, `repair` left sessions with broken chains although every file was still on disk
    (and the next import read "0 of 84 files": they stayed broken), and events whose session row was lost."""
    from sessionscope import ops
    from sessionscope.safety.repair import repair
    from sessionscope.sources.claude_code import import_paths
    from tests.sources.claude_factory import Transcript
    project = tmp_path / "projects" / "-w"
    transcripts = []
    for n in range(3):
        t = Transcript(cwd="/w")
        for i in range(6):
            t.user(f"prompt {n}.{i}")
            t.assistant(f"reply {n}.{i}")
        t.write(project)
        transcripts.append(t)
    path = tmp_path / "s.db"
    with open_store(path) as store:
        import_paths(store, [project])
        native = store.open_session(title="typed here").id
        store.append(native, "message", role="user", text="no file of any tool holds this")
        store.append(native, "message", role="user", text="nor this")
        ops.rename(store, transcripts[0].session_id, "my own title")
    damaged, lost_row = transcripts[0].session_id, transcripts[1].session_id
    con = sqlite3.connect(path)
    con.execute("DELETE FROM event WHERE session_id = ? AND seq IN (3, 4)", (damaged,))  # rows the damage took
    con.execute("DELETE FROM event WHERE session_id = ? AND seq = 1", (native,))
    con.execute("DELETE FROM session WHERE id = ?", (lost_row,))  # its events left without their session
    con.commit()
    con.close()
    report = repair(str(path))
    assert report.broken_sessions == [native]  # no file can give it back: said
    with open_store(path) as store:
        broken = {r.session_id for r in store.verify() if not r.ok}
        assert broken == {native}
        for t in transcripts:
            assert [e.text for e in store.branch_view(t.session_id)] == \
                [x for i in range(6) for x in (f"prompt {transcripts.index(t)}.{i}", f"reply {transcripts.index(t)}.{i}")]
        assert store.session(damaged).title == "my own title"  # the row kept: what the user set stays
        with store.reader() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM event WHERE session_id NOT IN (SELECT id FROM session)"
                                        ).scalar() == 0
    with open_store(path) as store:
        assert import_paths(store, [project]).events_added == 0  # whole already: nothing left for a later import


def test_damage_met_on_sqlites_own_connection_is_said_as_damage(tmp_path):
    """The small writes run on SQLite's own connection (db.driver), whose errors are sqlite3's, without SQLAlchemy's
    `orig`: a malformed page met there is the same "store is damaged" advice, not an AttributeError (mypy found it)."""
    from sessionscope.errors import StoreUnavailable
    store = open_store(tmp_path / "s.db")

    def damaged(conn):
        raise sqlite3.DatabaseError("database disk image is malformed")
    with pytest.raises(StoreUnavailable, match="damaged.*malformed"):
        store.write(damaged)
    store.close()
