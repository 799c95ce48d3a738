"""Every Claude Code timeline as Claude Code itself reads it (#57).

For every Claude Code transcript in ../shared/corpus (laid out as Claude Code keeps it: one file a session, named
by its id) and for generated shapes (tests/sources/claude_shapes.py: lines written out of order, parallel calls of
2–5 tools with their results in any order, hooks' attachments, compactions, inline sidechains), claude-agent-sdk's
own reader of the file (`get_session_messages`) gives a chain of messages; that chain must lie on our head branch,
uuid for uuid, in order. The one deliberate difference: our timeline runs across compactions (the SDK starts at
the last one), so what we show beyond the SDK's chain must come before a compaction boundary.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from sessionscope import open_store
from sessionscope.sources.claude_code import import_paths
from tests.sources.claude_home import UUID_RE, last_session_id
from tests.sources.claude_shapes import out_of_order_session, shape

sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk._internal import sessions as sdk_sessions  # noqa: E402

SHOWN = ("message", "tool_call", "tool_result", "thinking", "compaction_summary")


def sdk_messages(path: Path) -> list:
    """get_session_messages() of the file, as claude-agent-sdk reads it. The public call takes a session id that is
    a uuid and finds its file under CLAUDE_CONFIG_DIR; a few corpus files name theirs otherwise ("s1"), so the file
    is read by the function the public call reads every file with."""
    if UUID_RE.match(path.stem) and path.parent.parent.name == "projects":
        return sdk.get_session_messages(path.stem, directory=None)
    entries = sdk_sessions._parse_transcript_entries(path.read_text(encoding="utf-8", errors="replace"))
    return sdk_sessions._entries_to_session_messages(entries, None, 0)


def lay_out_as_claude(entry: Path, projects: Path, index: int) -> list[Path]:
    """A corpus entry as Claude Code keeps it: a project folder of `<session id>.jsonl` files. A lone file is
    named by the session its lines continue (a uuid derived from it when that is no uuid: Claude Code names every
    file by a uuid)."""
    import shutil
    project = projects / f"-conformance-{index}"
    if entry.is_dir():
        shutil.copytree(entry, project)
    else:
        project.mkdir(parents=True)
        sid = last_session_id(entry) or ""
        if not UUID_RE.match(sid):
            sid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"corpus/{entry.name}"))
        shutil.copy(entry, project / f"{sid}.jsonl")
    return sorted(p for p in project.glob("*.jsonl") if UUID_RE.match(p.stem))


def differences(store, path: Path) -> list[str]:
    """What keeps our head branch of the file's session from holding the SDK's chain, in order (empty: none)."""
    theirs = [m.uuid for m in sdk_messages(path)]
    branch = store.branch_view(path.stem) if theirs else []
    position = {e.id: k for k, e in enumerate(branch)}
    missing = [u for u in theirs if u not in position]
    if missing:
        return [f"{len(missing)} of the SDK's {len(theirs)} messages are not on our head branch ({len(branch)} "
                f"events), the first {missing[0]}"]
    where = [position[u] for u in theirs]
    if where != sorted(where):
        return ["the SDK's messages are on our head branch in another order"]
    # beyond the SDK's chain: only what came before a compaction (we keep the history it summarised)
    chain = set(theirs)
    last_compaction = max((k for k, e in enumerate(branch) if e.kind == "compaction"), default=-1)
    extra = [e for k, e in enumerate(branch) if e.kind in SHOWN and not e.sidechain and e.id not in chain
             and e.role in ("user", "assistant", "tool") and k > last_compaction and _shown_by_sdk(e)]
    return [f"our head branch shows {e.kind} {e.id} that the SDK's chain leaves out" for e in extra[:3]]


def _shown_by_sdk(event) -> bool:
    """Whether the SDK would show the line at all (it hides isMeta lines and team messages)."""
    import orjson
    line = orjson.loads(event.payload)
    return not line.get("isMeta") and not line.get("teamName")


def _import(tmp_path: Path, project: Path, name: str):
    store = open_store(tmp_path / f"{name}.db")
    report = import_paths(store, [project])
    return store, report


def test_every_corpus_session_reads_as_the_sdk_reads_it(corpus, tmp_path, monkeypatch):
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no claude-code corpus")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    failures, compared = [], 0
    for i, entry in enumerate(sorted(folder.iterdir())):
        if not (entry.is_dir() or entry.suffix == ".jsonl"):
            continue
        files = lay_out_as_claude(entry, tmp_path / "projects", i)
        store, _ = _import(tmp_path, files[0].parent if files else tmp_path, str(i))
        for f in files:
            failures += [f"{entry.name}/{f.name}: {d}" for d in differences(store, f)]
            compared += 1
        store.close()
    assert not failures, "\n".join(failures)
    assert compared >= 45


@pytest.mark.parametrize("seed", range(60))
def test_generated_shapes_read_as_the_sdk_reads_them(seed, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    t = shape(seed)
    path = t.write(tmp_path / "projects" / "-work-app")
    store, report = _import(tmp_path, path.parent, "s")
    assert differences(store, path) == []
    # what Claude Code writes normally is never reported as a problem
    assert report.problems == []


def test_lines_written_before_their_parent_keep_the_whole_session(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    t = out_of_order_session()
    path = t.write(tmp_path / "projects" / "-work-app")
    store, report = _import(tmp_path, path.parent, "s")
    assert report.problems == []
    theirs = sdk_messages(path)
    assert len(theirs) == 50
    branch = store.branch_view(path.stem)
    assert branch[0].text == "set up the project"  # the reader starts at the first prompt
    assert differences(store, path) == []
    # the HTML export starts at the first prompt too, and holds every message
    from sessionscope.export.core import ExportRequest
    from sessionscope.ops import export
    page = tmp_path / "s.html"
    export(store, ExportRequest("html", (path.stem,)), page)
    body = page.read_text(encoding="utf-8").split("<body>", 1)[1]
    assert body.index("set up the project") < body.index("step 0 done") < body.index("all done")
    # a fork at the last reply, read back by the SDK, holds every message
    from sessionscope.sources.claude_code import actions as claude_actions
    from tests.sources.claude_home import read_back
    fork = claude_actions.fork(store, path.stem, theirs[-1].uuid)
    assert [u for u, _ in read_back(sdk, path.parent / f"{fork.session.id}.jsonl", fork.session.id)] == \
        [m.uuid for m in theirs]


def _rows(store) -> tuple:
    """What a store holds of its Claude Code sessions that the order of scans must not change."""
    with store.reader() as conn:
        events = conn.exec_driver_sql("SELECT id, session_id, parent_id, seq, depth, kind, hash FROM event "
                                      "ORDER BY session_id, seq").fetchall()
        sessions = conn.exec_driver_sql("SELECT id, head_event_id, last_hash, event_count FROM session "
                                        "ORDER BY id").fetchall()
    return events, sessions


def _parent_after(lines: list[dict]) -> list[int]:
    """The places where a line's parent is written after it: where a scan can stop between the two."""
    place = {line.get("uuid"): k for k, line in enumerate(lines)}
    return [k + 1 for k, line in enumerate(lines) if place.get(line.get("parentUuid"), -1) > k]


@pytest.mark.parametrize("seed", [None, *range(0, 60, 3)])
def test_a_file_read_in_two_scans_is_stored_as_in_one(seed, tmp_path):
    """Stopped where a line waits for its parent (as the watcher does while Claude Code writes), the next scan
    links it: the same events, parents, depths, hashes and head as one scan of the whole file."""
    t = out_of_order_session() if seed is None else shape(seed)
    whole = t.write(tmp_path / "one" / "-work-app")
    once, _ = _import(tmp_path, whole.parent, "once")
    splits = _parent_after(t.lines) or [len(t.lines) // 2]
    for cut in splits:
        folder = tmp_path / f"two{cut}" / "-work-app"
        folder.mkdir(parents=True)
        path = folder / whole.name
        text = whole.read_text().splitlines(keepends=True)
        path.write_text("".join(text[:cut]))
        store, first = _import(tmp_path, folder, f"two{cut}")
        with open(path, "a") as fh:
            fh.write("".join(text[cut:]))
        second = import_paths(store, [folder])
        assert first.problems == second.problems == []
        assert _rows(store) == _rows(once), f"split before line {cut}"
        assert links_waiting(store, path.stem) == {}
        store.close()


def links_waiting(store, session_id: str) -> dict:
    import orjson
    with store.reader() as conn:
        meta = conn.exec_driver_sql("SELECT meta FROM session WHERE id = ?", (session_id,)).scalar()
    return orjson.loads(meta or "{}").get("links_waiting", {})


@pytest.mark.parametrize("seed", [None, *range(0, 60, 4)])
def test_forks_of_generated_shapes_read_back_as_fork_session(seed, tmp_path, monkeypatch):
    """A fork at every 3rd message the SDK reads (and a rewind beside it), read back by get_session_messages(),
    holds what claude-agent-sdk's fork_session keeps at the same cut: with lines written out of order, a fork at
    the last reply keeps every message; after parallel calls, every call is answered."""
    from tests.sources.claude_home import cut_matches_sdk
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    t = out_of_order_session() if seed is None else shape(seed)
    path = t.write(tmp_path / "projects" / "-work-app")
    store, _ = _import(tmp_path, path.parent, "s")
    original = sdk.get_session_messages(path.stem)
    cuts = sorted({*range(0, len(original), 3), len(original) - 1})
    for k in cuts:
        cut_matches_sdk(sdk, store, path.parent, path.stem, original, k, "fork", f"seed {seed} fork at #{k}")
    if k >= 1:
        cut_matches_sdk(sdk, store, path.parent, path.stem, original, k - 1, "rewind", f"seed {seed} rewind")


def test_a_cycle_is_cut_the_same_whichever_way_the_file_was_read(tmp_path):
    """A damaged file whose first line names its last as parent (a loop through the whole session): the link of the
    line that closes the loop is cut, as a scan that stopped before it must (the first line is stored already)."""
    t = out_of_order_session()
    t.lines[0]["parentUuid"] = t.lines[-1]["uuid"]
    whole = t.write(tmp_path / "one" / "-work-app")
    once, report = _import(tmp_path, whole.parent, "once")
    assert any("cycle" in p["problem"] for p in report.problems)
    text = whole.read_text().splitlines(keepends=True)
    for cut in range(1, len(text), 7):
        folder = tmp_path / f"two{cut}" / "-work-app"
        folder.mkdir(parents=True)
        path = folder / whole.name
        path.write_text("".join(text[:cut]))
        store, _ = _import(tmp_path, folder, f"two{cut}")
        path.write_text("".join(text))
        import_paths(store, [folder])
        assert _rows(store) == _rows(once), f"split before line {cut}"
        store.close()


def test_transcripts_todays_claude_writes_read_as_the_sdk_reads_them(tmp_path, monkeypatch):
    """Transcripts the bundled claude itself writes (2.1.3xx: its context attachments on the chain, request
    shapes and cost lines beside it; a session resumed turn by turn): our head branch holds the SDK's chain, and a
    fork at every other message reads back as fork_session's."""
    from tests.benchmarks.claude_today import write_home
    from tests.sources.claude_home import cut_matches_sdk
    written = write_home(tmp_path / "today", sessions=3, turns=2)
    if written is None:
        pytest.skip("claude-agent-sdk's bundled claude is not installed")
    projects = Path(written["projects"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(projects.parent))
    store, report = _import(tmp_path, projects, "today")
    assert report.bad_lines == 0
    files = sorted(projects.rglob("*.jsonl"))
    assert len(files) == 3 and all(differences(store, f) == [] for f in files)
    branch = store.branch_view(files[0].stem)
    assert {"context", "message", "tool_call", "tool_result"} <= {e.kind for e in branch}
    original = sdk.get_session_messages(files[0].stem)
    assert len(original) >= 8
    for k in range(1, len(original), 2):
        cut_matches_sdk(sdk, store, files[0].parent, files[0].stem, original, k, "fork", f"fork at #{k}")
