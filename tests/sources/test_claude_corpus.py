"""The real transcripts in ../shared/corpus/claude-code (skipped when the folder is absent)."""

from __future__ import annotations

import orjson
import pytest

from sessionscope import open_store
from sessionscope.sources.claude_code import import_paths, session_files
from tests.sources.claude_home import UUID_RE, cut_matches_sdk, lay_out


def _entries(corpus):
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no claude-code corpus")
    return [e for e in sorted(folder.iterdir()) if e.is_dir() or e.suffix == ".jsonl"]


def _unreadable_lines(files) -> int:
    """Lines that are not a JSON object, counted on our own: orjson, then the standard parser on the
    text with bad UTF-8 replaced (as the importer reads them); blank lines are not lines."""
    import json
    bad = 0
    for f in files:
        for raw in f.read_bytes().splitlines():
            if not raw.strip():
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                try:
                    obj = json.loads(raw.decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    obj = None
            bad += not isinstance(obj, dict)
    return bad


def test_every_corpus_file_imports(corpus, tmp_path):
    total_files = 0
    for i, entry in enumerate(_entries(corpus)):
        project = lay_out(entry, tmp_path / "projects", i)
        store = open_store(tmp_path / f"{i}.db")
        report = import_paths(store, [project])
        files = session_files(project)
        total_files += len(files)
        assert report.files_read == len(files), entry.name
        assert report.bad_lines == _unreadable_lines(files), entry.name
        assert not report.cancelled
        assert all(r.ok for r in store.verify()), entry.name
        store.close()
    assert total_files >= 70


def test_sdk_messages_appear_in_our_head_branch(corpus, tmp_path, monkeypatch):
    """get_session_messages() of claude-agent-sdk, uuid for uuid, in order, within our branch."""
    sdk = pytest.importorskip("claude_agent_sdk")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    compared = longer = 0
    for i, entry in enumerate(_entries(corpus)):
        project = lay_out(entry, tmp_path / "projects", i)
        store = open_store(tmp_path / f"{i}.db")
        import_paths(store, [project])
        for f in sorted(project.glob("*.jsonl")):
            if not UUID_RE.match(f.stem):
                continue
            theirs = [m.uuid for m in sdk.get_session_messages(f.stem)]
            ours = [e.id for e in store.branch_view(f.stem)] if theirs else []
            position = {u: k for k, u in enumerate(ours)}
            assert all(u in position for u in theirs), f"{entry.name}/{f.name}"
            assert [position[u] for u in theirs] == sorted(position[u] for u in theirs), f"{entry.name}/{f.name}"
            compared += 1
            if theirs and any(e.kind == "compaction" for e in store.branch(f.stem)):
                # the SDK starts after the last compaction; our timeline has what came before
                first = store.branch(f.stem)[0].id
                assert first not in theirs
                longer += 1
        store.close()
    assert compared >= 30 and longer >= 1


def test_forks_and_rewinds_end_where_clicked(corpus, tmp_path, monkeypatch):
    """At every 10th message the SDK reads (offset by 5 for rewinds), the new transcript read back
    by get_session_messages() holds what claude-agent-sdk's own fork_session(up_to_message_id=E)
    keeps (the same messages, order and content: the original's messages up to E, and a parallel
    call of E's reply written before the cut), plus only what the fork says it added: calls whose
    result came after the cut closed as interrupted, the rest of a thinking-only reply."""
    sdk = pytest.importorskip("claude_agent_sdk")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    checked = {"fork": 0, "rewind": 0}
    added_kinds = set()
    for i, entry in enumerate(_entries(corpus)):
        project = lay_out(entry, tmp_path / "projects", i)
        store = open_store(tmp_path / f"{i}.db")
        import_paths(store, [project])
        for f in sorted(p for p in project.glob("*.jsonl") if UUID_RE.match(p.stem)):
            original = sdk.get_session_messages(f.stem)
            for action, start in (("fork", 0), ("rewind", 5)):
                for k in range(start, len(original), 10):
                    added_kinds |= cut_matches_sdk(sdk, store, project, f.stem, original, k, action,
                                                   f"{entry.name}/{f.name} {action} at #{k}")
                    checked[action] += 1
        store.close()
    assert checked["fork"] >= 100 and checked["rewind"] >= 100
    assert added_kinds == {"tool_result", "text"}  # the corpus has cuts at tool calls
