"""#59: the audit entries of ops. An import the user asked for is recorded once, always (even with nothing new to
read, and across several tools); the watcher's passes only when they read something. A mark (star, pin, share, a
note) and its entry are one transaction."""

from __future__ import annotations

import json

from sessionscope import ops
from tests.sources.claude_factory import Transcript


def _imports(store) -> list[dict]:
    return [e for e in store.audit_log(limit=1000) if e["action"] == "import"]


def _home(tmp_path):
    t = Transcript()
    t.user("list the files")
    t.assistant("Here they are.")
    t.write(tmp_path / "claude" / "-work-app")
    gemini = tmp_path / "gemini" / "chats"
    gemini.mkdir(parents=True)
    (gemini / "session-1.json").write_text(json.dumps({
        "sessionId": "5f0d7a8e-1111-4222-8333-444455556666", "projectHash": "ab" * 32,
        "startTime": "2026-03-01T10:00:00.000Z", "lastUpdated": "2026-03-01T10:01:00.000Z",
        "messages": [{"id": "m1", "timestamp": "2026-03-01T10:00:00.000Z", "type": "user", "content": "hello"},
                     {"id": "m2", "timestamp": "2026-03-01T10:00:05.000Z", "type": "gemini", "content": "hi"}]}))
    return [tmp_path / "claude", gemini]


def test_a_users_import_is_one_entry_and_always_there(store, tmp_path):
    places = _home(tmp_path)
    report = ops.import_paths(store, places, actor="cli")
    assert report.files_read == 2 and len(report.sessions) == 2  # two tools' files
    first = _imports(store)
    assert len(first) == 1  # one entry for the import, not one per tool
    assert first[0]["detail"]["files_read"] == 2 and first[0]["detail"]["paths"] == [str(p) for p in places]
    assert "cli" in first[0]["actor"]
    ops.import_paths(store, places, actor="cli")  # nothing new: recorded all the same
    again = _imports(store)
    assert len(again) == 2 and again[0]["detail"]["files_read"] == 0 and again[0]["outcome"] == "ok"


def test_the_watchers_pass_is_recorded_only_when_it_reads(store, tmp_path):
    places = _home(tmp_path)
    ops.import_paths(store, places, watcher=True, actor="app")
    assert len(_imports(store)) == 2  # each tool that read something, as before
    ops.import_paths(store, places, watcher=True, actor="app")
    assert len(_imports(store)) == 2  # a pass that found nothing new: no entry every few seconds


def test_a_failed_import_is_recorded_as_failed(store, tmp_path, monkeypatch):
    from sessionscope.sources import importing

    def broken(*_a, **_k):
        raise OSError("the disk went away")
    monkeypatch.setattr(importing, "import_paths", broken)
    try:
        ops.import_paths(store, [tmp_path], actor="cli")
    except OSError:
        pass
    entry = _imports(store)[0]
    assert entry["outcome"] == "error" and "the disk went away" in entry["detail"]["error"]


def test_a_mark_and_its_entry_are_one_transaction(store, monkeypatch):
    """#59: star, pin, share and notes write the change and its audit entry together: an entry that cannot be
    written takes the change back with it (they were two transactions: a star could stand unrecorded)."""
    import pytest

    from sessionscope.errors import StoreUnavailable
    from sessionscope.safety import audit
    s = store.open_session(title="marked")
    e = store.append(s.id, "message", role="user", text="pin me")
    real = audit._record

    def refusing(conn, action, *a, **k):
        if action in ("star", "pin", "note.add", "team.share"):
            raise StoreUnavailable("the audit log could not be written")
        return real(conn, action, *a, **k)
    monkeypatch.setattr(audit, "_record", refusing)
    for attempt in (lambda: ops.star(store, s.id), lambda: ops.pin(store, s.id, e.id),
                    lambda: ops.note_add(store, s.id, "a note"), lambda: ops.share(store, s.id)):
        with pytest.raises(StoreUnavailable):
            attempt()
    monkeypatch.setattr(audit, "_record", real)
    after = store.session(s.id)
    assert not after.starred and not after.shared and store.pins(s.id) == [] and store.notes(s.id) == []


def test_no_session_chosen_is_a_refusal_in_words():
    """ops.check with no session says so (mypy found it raising AttributeError on None's status instead)."""
    import pytest

    from sessionscope.errors import Refused
    with pytest.raises(Refused, match="cannot archive: no session is chosen"):
        ops.check(None, "archive")
