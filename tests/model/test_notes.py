"""Notes (#33): the user's own durable facts on a session or an event. They survive a rescan of a transcript
the tool rewrote, an archive and a write-back; search finds them (their own kind); every change is audited;
the exports write them and our JSONL carries them to another store."""

from __future__ import annotations

import pytest

from sessionscope import open_store, ops
from sessionscope.errors import InvalidInput, NotFound
from sessionscope.export.core import ExportRequest
from sessionscope.export.jsonl import import_file
from sessionscope.sources.claude_code import import_paths
from tests.sources.claude_factory import Transcript


def _claude(tmp_path) -> tuple[Transcript, object]:
    t = Transcript(cwd="/work/app")
    t.user("why does the checkout test flake?")
    t.assistant("It reads the cart before the redirect writes it.", msg_id="m1")
    folder = tmp_path / "projects" / "-work-app"
    return t, t.write(folder)


def test_notes_outlive_a_rewritten_transcript_an_archive_and_a_write_back(store, tmp_path):
    t, path = _claude(tmp_path)
    import_paths(store, [tmp_path / "projects"])
    reply = t.lines[1]["uuid"]
    on_event = ops.note_add(store, t.session_id, "Root cause: **redirect race**", reply, actor="test").detail["note"]
    on_session = ops.note_add(store, t.session_id, "Ask Dana about the cart cache").detail["note"]
    # the tool rewrites its file (a compaction, an edit by hand): the rescan reads it anew, the notes stay
    t.user("and the fix?")
    path.write_text("")
    t.write(path.parent)
    import_paths(store, [tmp_path / "projects"])
    ops.archive(store, t.session_id)
    ops.unarchive(store, t.session_id)
    path.unlink()
    ops.write_back(store, t.session_id, tmp_path / "projects" / "-work-app")
    notes = store.notes(t.session_id)
    assert [(n.id, n.event_id) for n in notes] == [(on_session["id"], None), (on_event["id"], reply)]
    hits = store.search("redirect race")
    assert hits[0].kind == "note" and hits[0].event_id == reply and hits[0].session_id == t.session_id
    assert [h.kind for h in store.search("cart cache")] == ["note"]
    ops.note_edit(store, on_event["id"], "Root cause: the redirect race; fixed by awaiting it")
    ops.note_remove(store, on_session["id"])
    assert [n.text for n in store.notes()] == ["Root cause: the redirect race; fixed by awaiting it"]
    actions = [(e["action"], e["outcome"]) for e in store.audit_log(t.session_id) if e["action"].startswith("note")]
    assert actions == [("note.rm", "ok"), ("note.edit", "ok"), ("note.add", "ok"), ("note.add", "ok")]
    removed = next(e for e in store.audit_log(t.session_id) if e["action"] == "note.rm")
    assert removed["detail"]["note"]["text"] == "Ask Dana about the cart cache"  # the log says what it was


def test_a_note_must_say_something_and_name_an_event_of_the_session(store):
    a, b = store.open_session(title="a"), store.open_session(title="b")
    theirs = store.append(b.id, "message", role="user", text="hello")
    with pytest.raises(InvalidInput, match="empty"):
        ops.note_add(store, a.id, "  ")
    with pytest.raises(Exception, match="belongs to session"):
        ops.note_add(store, a.id, "a note", theirs.id)
    with pytest.raises(NotFound):
        ops.note_edit(store, "no-such-note", "x")
    assert store.notes() == [] and store.audit_log(a.id)[0]["outcome"] == "refused"


def test_exports_write_the_notes_and_our_jsonl_carries_them(store, tmp_path):
    sid = store.open_session(title="notes travel").id
    first = store.append(sid, "message", role="user", text="plan the release")
    store.append(sid, "message", role="assistant", text="three steps")
    ops.note_add(store, sid, "We ship on **Friday**", first.id)
    ops.note_add(store, sid, "the whole session, in a line")
    for fmt in ("md", "html"):
        ops.export(store, ExportRequest(fmt, (sid,)), tmp_path / f"x.{fmt}")
    md, page = (tmp_path / "x.md").read_text(), (tmp_path / "x.html").read_text()
    assert md.index("Your note:** We ship on **Friday**") > md.index("plan the release")
    assert md.index("the whole session, in a line") < md.index("plan the release")
    assert page.count("<div class=\"note\">") == 2 and "We ship on <strong>Friday</strong>" in page  # (its Markdown, rendered)
    for redact in (False, True):
        path = tmp_path / f"x{redact}.jsonl"
        ops.export(store, ExportRequest("jsonl", (sid,), redact=redact), path)
        with open_store(tmp_path / f"other{redact}.db") as other:
            assert import_file(other, path).imported == [sid]
            assert [(n.event_id, n.text) for n in other.notes(sid)] == [
                (None, "the whole session, in a line"), (first.id, "We ship on **Friday**")]
