"""No single line can stop an import (#18 part 1): a line nested 10,000 levels deep (valid JSON), one
nested 500 deep (orjson reads it, but cannot write it back), or a shape an importer did not foresee is a
bad line or a problem of its file; the file's good lines and every other file are imported."""

from __future__ import annotations

import orjson

from sessionscope.sources.importing import import_paths
from sessionscope.sources.jsonl import ReadState, parse_line, too_deep
from tests.sources.claude_factory import Transcript

DEEP = b'{"type":"user","x":' + b'{"a":' * 10_000 + b'1' + b'}' * 10_000 + b'}'
MIDDLE = b'{"type":"assistant","x":' + b'[' * 500 + b'1' + b']' * 500 + b'}'
BAD_UTF8_DEEP = b'{"type":"user","x":"\xff",' + b'"y":' + b'[' * 3000 + b']' * 3000 + b'}'


def test_the_line_parser_refuses_what_nests_too_deeply_and_never_raises():
    state = ReadState()
    for n, raw in enumerate((DEEP, MIDDLE, BAD_UTF8_DEEP), 1):
        assert parse_line(raw + b"\n", n, 0, state) is None
    assert state.bad_lines == 3 and all("nest" in p["problem"] or "JSON" in p["problem"] for p in state.problems)
    wide = b'{"type":"user","items":[' + b",".join(b'{"a":[1]}' for _ in range(5000)) + b']}'
    line = parse_line(wide, 4, 0, state)  # many brackets, shallow: read
    assert line is not None and len(line.obj["items"]) == 5000
    assert not too_deep({"a": [[[1]]]}) and too_deep(orjson.loads(MIDDLE))


def test_a_hostile_line_is_a_bad_line_and_everything_else_imports(store, tmp_path):
    project = tmp_path / "projects" / "-work-app"
    hostile = Transcript(cwd="/work/app")
    hostile.user("before the hostile lines")
    hostile.assistant("a reply")
    good = Transcript(cwd="/work/app")
    good.user("another session")
    good.assistant("fine")
    path = hostile.write(project)
    good.write(project)
    text = path.read_bytes().split(b"\n")
    # the deep lines in the middle of the file, a good line after them
    after = Transcript(session_id=hostile.session_id, cwd="/work/app")
    after.last, after.salt = hostile.last, "after"
    after.user("after the hostile lines")
    path.write_bytes(b"\n".join(text[:1] + [DEEP, MIDDLE] + text[1:-1]) + b"\n" + after.text().encode())
    report = import_paths(store, [tmp_path / "projects"])
    assert report.bad_lines == 2
    texts = {e.text for sid in (hostile.session_id, good.session_id) for e in store.events(sid)}
    assert {"before the hostile lines", "a reply", "after the hostile lines", "another session", "fine"} <= texts
    assert all(r.ok for r in store.verify())
    # a rescan of the unchanged file adds nothing and raises nothing
    assert import_paths(store, [tmp_path / "projects"]).events_added == 0


def test_a_line_its_converter_did_not_foresee_is_a_bad_line(store, tmp_path, monkeypatch):
    from sessionscope.sources.claude_code import reader
    project = tmp_path / "projects" / "-work-app"
    t = Transcript(cwd="/work/app")
    t.user("one")
    t.user("boom")
    t.user("three")
    t.write(project)
    real = reader.convert

    def fragile(offset, raw, obj, ctx):
        if "boom" in raw:
            raise TypeError("an unforeseen shape")
        return real(offset, raw, obj, ctx)
    monkeypatch.setattr(reader, "convert", fragile)
    report = import_paths(store, [tmp_path / "projects"])
    assert report.bad_lines == 1
    assert any(p["line"] == 2 and "TypeError: an unforeseen shape" in p["problem"] for p in report.problems)
    assert [e.text for e in store.events(t.session_id) if e.kind == "message"] == ["one", "three"]


def test_a_file_its_reader_cannot_finish_is_a_problem_not_the_end_of_the_run(store, tmp_path):
    from sessionscope.sources.scan import run_import
    folder = tmp_path / "logs"
    folder.mkdir()
    for name in ("a.log", "b.log", "c.log"):
        (folder / name).write_text(name)
    read = []

    def read_file(store_, root, path, source_id, state, report, cancel):
        if path.name == "b.log":
            raise KeyError("speaker")
        read.append(path.name)
    report = run_import(store, "aider", [folder], lambda f: sorted(f.glob("*.log")), read_file)
    assert read == ["a.log", "c.log"]
    assert [p["path"] for p in report.problems] == [str(folder / "b.log")]
    assert "KeyError" in report.problems[0]["problem"] and report.files_seen == 3


def test_a_stray_first_line_does_not_decide_what_the_file_is(store, tmp_path):
    """The first line a tool recognises decides; an unknown or hostile line before it is a bad line."""
    project = tmp_path / "projects" / "-work-app"
    t = Transcript(cwd="/work/app")
    t.user("the real first prompt")
    t.assistant("a reply")
    path = t.write(project)
    path.write_bytes(b'{"x":' + b"[" * 300 + b"]" * 300 + b'}\n{"note": "stray"}\n' + path.read_bytes())
    report = import_paths(store, [tmp_path / "projects"])
    assert report.bad_lines == 1  # the deep one; the stray object is kept as an unknown line
    assert "the real first prompt" in {e.text for e in store.events(t.session_id)}
