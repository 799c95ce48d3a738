"""Claude Cowork (#64 item 1): Claude Desktop's local agent mode keeps Claude Code's transcripts under
`local-agent-mode-sessions`, each beside its metadata: read by Claude Code's reader, listed as Cowork with the
title the app shows, from its default place and from a folder given by hand; a real Claude Code transcript (the
corpus's) in that layout reads as it does in Claude Code's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sessionscope import sources
from sessionscope.sources import importing

from .claude_factory import Transcript


def _cowork(root: Path, transcript_file: Path, session_id: str, title: str, name: str | None = None) -> Path:
    """A Cowork session as Claude Desktop lays it out (agentsview's cowork tests describe the layout: MIT); the
    transcript named `<session_id>.jsonl` unless `name` says otherwise."""
    ws = root / "org-1" / "ws-1"
    folder = ws / "local_7f3c2a10-0000-4000-8000-00000000c0c0"
    project = folder / ".claude" / "projects" / "-sessions-quiet-fox"
    project.mkdir(parents=True)
    shutil.copy(transcript_file, project / (name or f"{session_id}.jsonl"))
    (ws / f"{folder.name}.json").write_text(json.dumps({
        "sessionId": folder.name, "cliSessionId": session_id, "title": title,
        "userSelectedFolders": ["/Users/me/Documents/taxes"], "createdAt": 1760000000000,
        "lastActivityAt": 1760000100000}))
    return project / (name or f"{session_id}.jsonl")


def test_a_cowork_session_is_claude_codes_transcript_named_as_the_app_names_it(store, tmp_path, monkeypatch):
    t = Transcript()
    t.user("sort the receipts in this folder")
    t.assistant("Sorted 14 receipts into three folders.")
    made = t.write(tmp_path / "made")
    home = tmp_path / "home"
    root = home / ".config" / "Claude" / "local-agent-mode-sessions"
    _cowork(root, made, t.session_id, "Receipts sorted by month")
    t2 = Transcript()
    t2.user("a Claude Code session")
    t2.assistant("ok")
    t2.write(home / ".claude" / "projects" / "-work-app")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    assert sources.of("claude_cowork").default_roots() == [root]
    report = sources.of("claude_cowork").import_paths(store, [root])
    assert report.files_read == 1 and not report.problems, report.problems
    (s,) = store.sessions()
    assert (s.source_kind, s.id, s.title) == ("claude_cowork", t.session_id, "Receipts sorted by month")
    assert s.meta["cowork_folders"] == ["/Users/me/Documents/taxes"]
    assert [e.text for e in store.branch_view(s.id)] == ["sort the receipts in this folder",
                                                         "Sorted 14 receipts into three folders."]
    # a folder given by hand: each transcript is the tool's whose place it lies in
    report = importing.import_paths(store, [home])
    assert {store.session(x).source_kind for x in report.sessions} == {"claude_code", "claude_cowork"}
    assert store.session(t.session_id).title == "Receipts sorted by month"


def test_a_real_transcript_reads_the_same_as_cowork(corpus, tmp_path):
    from sessionscope import open_store
    real = sorted((corpus / "claude-code").glob("*.jsonl")) if (corpus / "claude-code").is_dir() else []
    if not real:
        pytest.skip("no Claude Code transcript in the corpus")
    source = max(real, key=lambda p: p.stat().st_size)
    first = next(json.loads(x) for x in source.read_text().splitlines() if '"sessionId"' in x)
    sid = first["sessionId"]
    with open_store(tmp_path / "a.db") as a, open_store(tmp_path / "b.db") as b:
        importing.import_paths(a, [source])
        placed = _cowork(tmp_path / "local-agent-mode-sessions", source, sid, "A real one", source.name)
        importing.import_paths(b, [placed.parents[5]])
        assert {s.source_kind for s in b.sessions()} == {"claude_cowork"}
        assert {s.id: [e.id for e in a.branch(s.id)] for s in a.sessions()} == \
            {s.id: [e.id for e in b.branch(s.id)] for s in b.sessions()}
