"""The real transcripts in ../shared/corpus/claude-code (skipped when the folder is absent)."""

from __future__ import annotations

import pytest

from model import open_store
from model.sources.claude_code import import_paths, session_files
from tests.sources.claude_home import UUID_RE, lay_out


def _entries(corpus):
    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no claude-code corpus")
    return [e for e in sorted(folder.iterdir()) if e.is_dir() or e.suffix == ".jsonl"]


def test_every_corpus_file_imports(corpus, tmp_path):
    total_files = 0
    for i, entry in enumerate(_entries(corpus)):
        project = lay_out(entry, tmp_path / "projects", i)
        store = open_store(tmp_path / f"{i}.db")
        report = import_paths(store, [project])
        files = session_files(project)
        total_files += len(files)
        assert report.files_read == len(files), entry.name
        assert report.bad_lines >= 0 and not report.cancelled
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
