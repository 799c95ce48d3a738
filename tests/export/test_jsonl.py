"""The lossless JSONL export: round trip, verification on its own, safe import."""

from __future__ import annotations

import orjson
import pytest

from sessionscope import open_store
from sessionscope.errors import InvalidInput
from sessionscope.export.core import ExportRequest
from sessionscope.export.jsonl import import_file, is_export, verify_file
from sessionscope.ops import export


def _events(store, session_ids):
    return [e.as_dict() for sid in session_ids for e in store.events(sid)]


def _sessions(store, session_ids):
    keep = ("id", "tool_id", "title", "project", "cwd", "model", "status", "created_at", "updated_at",
            "tokens_in", "tokens_out", "event_count", "head_event_id", "tags", "meta", "forked_from_session",
            "forked_from_event", "source_kind")
    return [{k: getattr(store.session(s), k) for k in keep} for s in session_ids]


def test_every_session_round_trips_with_identical_events_and_chain(rich_store, tmp_path):
    store, _t = rich_store
    ids = [s.id for s in store.sessions()]
    path = tmp_path / "all.jsonl"
    report = export(store, ExportRequest("jsonl", tuple(ids)), path)
    assert report.events == sum(store.session(s).event_count for s in ids)
    assert is_export(path) and verify_file(path).ok

    other = open_store(tmp_path / "other.db")
    result = import_file(other, path)
    assert sorted(result.imported) == sorted(ids)
    assert _events(other, ids) == _events(store, ids)  # every field, hash included
    assert _sessions(other, ids) == _sessions(store, ids)
    assert all(r.ok for r in other.verify())
    # the imported sessions are browsable and searchable like the originals
    assert [e.id for e in other.branch_view(ids[0])] == [e.id for e in store.branch_view(ids[0])]
    assert {h.event_id for h in other.search("cookie")} == {h.event_id for h in store.search("cookie")}

    again = import_file(other, path)  # idempotent
    assert again.imported == [] and sorted(again.already_here) == sorted(ids)
    assert _events(other, ids) == _events(store, ids)


def test_a_fork_carries_its_origin(rich_store, tmp_path):
    store, _t = rich_store
    fork = next(s for s in store.sessions() if s.forked_from_session)
    path = tmp_path / "fork.jsonl"
    export(store, ExportRequest("jsonl", (fork.id,)), path)
    other = open_store(tmp_path / "other.db")
    assert import_file(other, path).imported == [fork.forked_from_session, fork.id]
    assert [e.id for e in other.branch(fork.id)] == [e.id for e in store.branch(fork.id)]
    assert other.facts_at(fork.head_event_id) == store.facts_at(fork.head_event_id)


def _damage(path, how):
    lines = path.read_bytes().splitlines(keepends=True)
    events = [i for i, line in enumerate(lines) if b'"type":"event"' in line]
    if how == "altered":
        i = events[3]
        obj = orjson.loads(lines[i])
        obj["text"] = obj["text"] + " (edited)"
        lines[i] = orjson.dumps(obj) + b"\n"
    elif how == "removed-middle":
        del lines[events[3]]
    elif how == "removed-end":
        del lines[events[-1]]
    elif how == "truncated":
        lines = lines[: len(lines) // 2]
    elif how == "garbage":
        lines.insert(events[2], b"{not json\n")
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize("how, says", [
    ("altered", "no longer matches its hash"),
    ("removed-middle", "events are missing before it"),
    ("removed-end", "removed from the end"),
    ("truncated", "cut off"),
    ("garbage", "not valid JSON"),
])
def test_verify_names_what_is_wrong_and_import_writes_nothing(rich_store, tmp_path, how, says):
    store, _t = rich_store
    sid = store.sessions()[0].id
    path = tmp_path / "one.jsonl"
    export(store, ExportRequest("jsonl", (sid,)), path)
    _damage(path, how)
    check = verify_file(path)
    assert not check.ok
    assert says in check.problem or any(says in s.reason for s in check.sessions)
    other = open_store(tmp_path / "other.db")
    with pytest.raises(InvalidInput, match="does not verify"):
        import_file(other, path)
    assert other.count_sessions(include_archived=True) == 0
    assert other.audit_log()[0]["outcome"] == "refused"


def test_a_different_log_under_the_same_id_is_refused(rich_store, tmp_path):
    store, _t = rich_store
    sid = store.sessions()[0].id
    path = tmp_path / "red.jsonl"
    store.append(sid, "message", role="user", text="token sk-ant-api03-" + "Q" * 40)
    export(store, ExportRequest("jsonl", (sid,), redact=True), path)
    check = verify_file(path)
    assert check.ok and check.redacted  # a redacted export carries its own, recomputed chain
    with pytest.raises(InvalidInput, match="different log"):
        import_file(store, path)
    assert all(r.ok for r in store.verify(sid))


def test_cancel_leaves_no_file(rich_store, tmp_path):
    import threading

    from sessionscope.export.core import Cancelled

    store, _t = rich_store
    cancel = threading.Event()
    path = tmp_path / "x.jsonl"
    with pytest.raises(Cancelled):
        export(store, ExportRequest("jsonl", tuple(s.id for s in store.sessions())), path,
               progress=lambda done, total, label: cancel.set(), cancel=cancel)
    assert not path.exists() and [p for p in tmp_path.iterdir() if p.name.endswith(".part")] == []
    assert store.audit_log()[0]["action"] == "export" and store.audit_log()[0]["outcome"] == "cancelled"


def test_a_session_that_went_on_after_the_export_is_already_here(rich_store, tmp_path):
    store, _t = rich_store
    sid = store.sessions()[0].id
    path = tmp_path / "then.jsonl"
    export(store, ExportRequest("jsonl", (sid,)), path)
    store.append(sid, "message", role="user", text="later")
    result = import_file(store, path)
    assert result.imported == [] and result.already_here == [sid]


def test_an_unwritable_place_is_a_clear_error_and_leaves_nothing(rich_store, tmp_path):
    store, _t = rich_store
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(InvalidInput, match="could not write"):
        export(store, ExportRequest("html", (store.sessions()[0].id,)), blocker / "out.html")
    assert store.audit_log()[0]["action"] == "export" and store.audit_log()[0]["outcome"] == "error"
    assert blocker.read_text() == "not a folder"


def test_a_star_goes_with_the_session_through_our_jsonl_and_shows_in_markdown_and_html(store, tmp_path):
    """#33: the user's star is the store's, not the tool's: an export says it and an import brings it back."""
    from sessionscope import open_store, ops
    from sessionscope.export.core import ExportRequest
    from sessionscope.export.jsonl import import_file

    starred, plain = store.open_session(title="starred").id, store.open_session(title="plain").id
    for sid in (starred, plain):
        store.append(sid, "message", role="user", text="hello")
    ops.star(store, starred)
    for fmt in ("md", "html"):
        ops.export(store, ExportRequest(fmt, (starred, plain)), tmp_path / f"x.{fmt}")
    assert (tmp_path / "x.md").read_text().count("★") == 1 and (tmp_path / "x.html").read_text().count("★") == 1
    for redact in (False, True):
        path = tmp_path / f"x{redact}.jsonl"
        ops.export(store, ExportRequest("jsonl", (starred, plain), redact=redact), path)
        with open_store(tmp_path / f"other{redact}.db") as other:
            assert sorted(import_file(other, path).imported) == sorted((starred, plain))
            assert {s.id for s in other.sessions(starred=True)} == {starred}
