"""Factory Droid (#36 item 3): the session store's tree and a saved `droid exec` stream from the corpus, calls paired
with results, a failed command said, resume only for a stored session, a file appended read from where it stopped."""

from __future__ import annotations

import orjson
import pytest

from sessionscope import sources
from sessionscope.errors import Refused
from sessionscope.sources import factory_droid, importing

pytestmark = pytest.mark.sqlite_only  # a reader's test: the store's engines are tested elsewhere
SOURCE = sources.of("factory_droid")


def test_the_corpus_files(store, corpus):
    report = importing.import_paths(store, [corpus / "factory-droid"])
    assert not report.problems and len(report.sessions) == 4
    by_title = {store.session(s).title: store.session(s) for s in report.sessions}
    small = by_title["Stage0 Droid Small"]
    assert (small.source_kind, small.cwd, small.tool_id, small.meta["cli_version"]) == ("factory_droid", "/tmp",
                                                                                        "droid_s1", "0.81.0")
    events = store.branch(small.id)
    assert [(e.kind, e.text) for e in events] == [
        ("message", "Run a command"), ("tool_call", 'Execute {"command":"ls /nope"}'),
        ("tool_result", "Error: Command failed (exit code: 1)\nls: /nope: No such file or directory")]
    assert store.tool_pairs([e.id for e in events[1:]], ["tool_call", "tool_result"]) == {events[2].id: events[1].id}
    assert SOURCE.resume_command(small) == ["droid", "--resume", "droid_s1"]
    stream = by_title["Step 1"]
    assert (stream.tool_id, stream.model, stream.cwd) == ("sid_stage0_large", "droid-model", "/tmp/large")
    texts = [e.text for e in store.branch(stream.id) if e.kind != "meta"]
    assert texts == ["Step 1", "Ok", "Shell {\"command\":\"printf 'line1\\\\nline2\\\\nline3\\\\n'\"}",
                     "line1\nline2\nline3\n", "Captured multiline output."]
    with pytest.raises(Refused, match="stream"):
        SOURCE.resume_command(stream)


def test_a_stored_session_appended_to_goes_on_and_a_failed_result_is_an_error(store, tmp_path):
    folder = tmp_path / ".factory" / "sessions"
    folder.mkdir(parents=True)
    path = folder / "d-1.jsonl"
    line = lambda **kw: orjson.dumps(kw).decode() + "\n"  # noqa: E731
    path.write_text(line(type="session_start", id="d-1", title="Fix CI", cwd="/w", owner="me", version="0.90.0")
                    + line(type="message", id="a", parentId="d-1", timestamp="2026-01-01T10:00:00Z",
                           message={"role": "user", "content": [{"type": "text", "text": "Fix CI"}]})
                    + line(type="message", id="b", parentId="a", timestamp="2026-01-01T10:00:01Z",
                           message={"role": "assistant", "content": [
                               {"type": "text", "text": "Running the tests"},
                               {"type": "tool_use", "id": "t1", "name": "Execute", "input": {"command": "make test"}}]}),
                    encoding="utf-8")
    factory_droid.import_paths(store, [folder])
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line(type="message", id="c", parentId="b", timestamp="2026-01-01T10:00:02Z",
                      message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                            "content": "2 failed", "is_error": True}]}))
        fh.write(line(type="todo_state", id="d", parentId="c", timestamp="2026-01-01T10:00:03Z", todos=[]))
    report = factory_droid.import_paths(store, [folder])
    sid = next(iter(report.sessions))
    events = store.branch(sid)
    assert [e.kind for e in events] == ["message", "message", "tool_call", "tool_result"]
    kept = [e for e in store.events(sid) if e.kind == "opaque"]  # a line type not known: kept, beside the talk
    assert [e.text for e in kept] == ["todo_state"] and kept[0].parent_id == events[3].id
    assert events[3].parent_id == events[2].id and orjson.loads(events[3].payload)["is_error"] is True
    assert factory_droid.import_paths(store, [folder]).events_added == 0
