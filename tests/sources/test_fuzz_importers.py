"""Fuzzed importers (#18 part 2), with hypothesis: real Claude Code and Codex transcripts, damaged —
truncated, bytes flipped, invalid UTF-8, NUL bytes, lines nested deep, huge lines, wrong types in
fields, duplicated and cyclic uuids, a last line without its newline.

Properties: no exception escapes an import; every line nobody touched is kept (its prompt is in the
store); and a scan of half the file, then of the whole, gives the same store as one import of the
whole (a file appended while a scan runs). The budget is bounded (a few dozen examples each)."""

from __future__ import annotations

import json
import shutil
import uuid

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sources.claude_factory import Transcript
from tests.sources.codex_factory import Rollout

BUDGET = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
OPS = ("truncate", "flip", "utf8", "nul", "deep", "huge", "wrong_type", "duplicate", "cycle", "no_newline")
ODD_VALUES = st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.booleans(), st.text(max_size=5),
                       st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(),
                                                                             max_size=2))


def _claude() -> tuple[list[bytes], list[str]]:
    t = Transcript(cwd="/work/app")
    prompts = [f"prompt number {i} about the login test" for i in range(4)]
    t.user(prompts[0])
    call = t.assistant(tool=("Bash", {"command": "pytest -q"}))
    t.tool_result(call, "1 failed")
    t.assistant("It races the cookie.")
    t.user(prompts[1])
    t.assistant("", thinking="the fixture")
    t.assistant("Fixed.")
    t.compact("Summary: fixed the cookie race.")
    t.user(prompts[2])
    t.assistant("More.")
    t.user(prompts[3])
    t.assistant("Done.")
    return [orjson.dumps(line) for line in t.lines], prompts


def _codex() -> tuple[list[bytes], list[str]]:
    r = Rollout(str(uuid.UUID(int=99)))
    prompts = [f"codex prompt {i} about the parser" for i in range(3)]
    r.turn(prompts[0], "looking", ("shell", '{"command":["bash","-lc","ls"]}', "a.py"))
    r.turn(prompts[1], "patched", ("apply_patch", "*** Begin Patch\n*** End Patch", "ok"))
    r.turn(prompts[2], "done")
    return [orjson.dumps(line) for line in r.lines], prompts


def _mutate(data, lines: list[bytes], huge: bytes, first: int = 0) -> tuple[bytes, set[int]]:
    """The damaged file and the indices of the lines it damaged (a truncation damages all after it).
    Lines before `first` are left whole: a Codex rollout's session_meta is what says which tool wrote
    it (a file whose first lines are all unreadable is read as Claude Code's until one can be read)."""
    lines = list(lines)
    touched: set[int] = set()
    extra: list[tuple[int, bytes]] = []  # lines inserted before index
    cut, newline_at_end = None, True
    for op in data.draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=4), label="ops"):
        i = data.draw(st.integers(first, len(lines) - 1), label="line")
        if op == "truncate":
            cut = (i, data.draw(st.integers(0, max(0, len(lines[i]) - 1)), label="at"))
        elif op == "flip":
            at = data.draw(st.integers(0, len(lines[i]) - 1), label="at")
            b = bytearray(lines[i])
            b[at] = data.draw(st.integers(0, 255), label="byte")
            lines[i] = bytes(b)
            touched.add(i)
        elif op == "utf8":
            lines[i] = lines[i][:-2] + b"\xff\xfe\xc3" + lines[i][-2:]
            touched.add(i)
        elif op == "nul":
            lines[i] = lines[i].replace(b'"', b'"\x00', 1)
            touched.add(i)
        elif op == "deep":
            depth = data.draw(st.sampled_from([300, 1100, 5000]), label="depth")
            extra.append((i, b'{"x":' + b"[" * depth + b"]" * depth + b"}"))
        elif op == "huge":
            extra.append((i, huge))  # a 300 KB line of the tool's own shape
        elif op == "wrong_type":
            try:
                obj = json.loads(lines[i])
            except ValueError:  # damaged already
                continue
            if isinstance(obj, dict) and obj:
                key = data.draw(st.sampled_from(sorted(obj)), label="key")
                obj[key] = data.draw(ODD_VALUES, label="value")
                inner = obj.get("message") or obj.get("payload")
                if isinstance(inner, dict) and inner:
                    inner[data.draw(st.sampled_from(sorted(inner)), label="inner")] = data.draw(ODD_VALUES)
                lines[i] = json.dumps(obj).encode()  # (a huge integer too, which orjson would refuse)
                touched.add(i)
        elif op == "duplicate":
            extra.append((i, lines[i]))
        elif op == "cycle":
            try:
                obj, later = json.loads(lines[i]), json.loads(lines[-1])
            except ValueError:  # damaged already
                continue
            if isinstance(obj, dict) and isinstance(later, dict) and "uuid" in later:
                obj["parentUuid"] = later["uuid"]  # a line whose parent comes after it (and around)
                lines[i] = json.dumps(obj).encode()
                touched.add(i)
        elif op == "no_newline":
            newline_at_end = False
    out: list[bytes] = []
    for n, line in enumerate(lines):
        out += [x for at, x in extra if at == n]
        out.append(line)
    if cut is not None:
        i, at = cut
        keep = lines[:i]
        body = b"\n".join(x for n, line in enumerate(keep) for x in [*[x for a, x in extra if a == n], line])
        body = (body + b"\n" if keep else b"") + lines[i][:at]
        touched |= set(range(i, len(lines)))
        return body, touched
    return b"\n".join(out) + (b"\n" if newline_at_end else b""), touched


def _content(store) -> tuple:
    with store.reader() as conn:
        return (conn.exec_driver_sql("SELECT id, event_count, head_event_id, last_hash FROM session ORDER BY id"
                                     ).fetchall(),
                conn.exec_driver_sql("SELECT id, session_id, parent_id, seq, hash FROM event ORDER BY id").fetchall())


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """An empty store at today's schema, copied for each example (migrating one takes longer)."""
    from sessionscope import open_store
    path = tmp_path_factory.mktemp("template") / "empty.db"
    open_store(path).close()
    return path


def _fresh(template, folder, name):
    from sessionscope import open_store
    path = folder / name
    shutil.copy(template, path)
    return open_store(path)


def _check(data, template, tmp_path, lines, prompts, file_name, huge, first=0):
    from sessionscope.sources.importing import import_paths
    body, touched = _mutate(data, lines, huge, first)
    case = tmp_path / uuid.uuid4().hex
    home = case / "projects" / "-work-app"
    home.mkdir(parents=True)
    path = home / file_name
    # appended while scans run: half the file first, then all of it
    half = data.draw(st.integers(0, len(body)), label="half")
    path.write_bytes(body[:half])
    a = _fresh(template, case, "a.db")
    import_paths(a, [case / "projects"])  # must not raise, whatever the file holds
    path.write_bytes(body)
    import_paths(a, [case / "projects"])
    b = _fresh(template, case, "b.db")
    import_paths(b, [case / "projects"])
    try:
        assert all(r.ok for r in a.verify())
        assert _content(a) == _content(b)
        texts = {e.text for s in b.sessions(include_archived=True) for e in b.events(s.id)}
        for n, prompt in enumerate(prompts):
            line = next(i for i, raw in enumerate(lines) if prompt.encode() in raw)
            if line not in touched:
                assert any(prompt in t for t in texts), (prompt, sorted(touched))
    finally:
        a.close()
        b.close()
        shutil.rmtree(case, ignore_errors=True)


@BUDGET
@given(data=st.data())
def test_claude_code_import_survives_any_damage(data, template, tmp_path):
    lines, prompts = _claude()
    huge = orjson.dumps({"type": "user", "uuid": "big", "message": {"role": "user", "content": "x" * 300_000}})
    _check(data, template, tmp_path, lines, prompts, "0f000000-0000-4000-8000-000000000001.jsonl", huge)


@BUDGET
@given(data=st.data())
def test_codex_import_survives_any_damage(data, template, tmp_path):
    lines, prompts = _codex()
    huge = orjson.dumps({"timestamp": "2026-02-23T12:00:01.000Z", "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": "x" * 300_000}]}})
    _check(data, template, tmp_path, lines, prompts,
           "rollout-2026-02-23T12-00-00-00000000-0000-0000-0000-000000000063.jsonl", huge, first=1)
