"""Qoder (#64 item 1): Claude Code's transcripts under `~/.qoder/projects` or the IDE's `SharedClientCache`, each with
Qoder's `<id>-session.json` (title, working folder) beside it: read by Claude Code's reader, listed as Qoder with
Qoder's title; a real Claude Code transcript (the corpus's) in Qoder's layout reads as it does in Claude Code's.
The layout and the metadata's fields are as kenn-io/agentsview's Qoder reader describes them (MIT)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sessionscope import sources
from sessionscope.sources import importing

from .claude_factory import Transcript


def _meta(transcript: Path, title: str) -> None:
    transcript.with_name(transcript.stem + "-session.json").write_text(json.dumps(
        {"title": title, "working_dir": "/Users/me/code/shop", "parent_session_id": "", "fork_from": ""}))


def test_qoder_sessions_are_claude_codes_transcripts_titled_as_qoder_titles_them(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    t = Transcript()
    t.user("add a checkout button")
    t.assistant("Added it to the cart page.")
    made = t.write(home / ".qoder" / "projects" / "-Users-me-code-shop")
    _meta(made, "Checkout button")
    shared = home / ".config" / "Qoder" / "SharedClientCache" / "cli" / "projects"
    t2 = Transcript()
    t2.user("explain the build")
    t2.assistant("It runs vite.")
    _meta(t2.write(shared), "Build explained")  # (the flat layout: no folder a project)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    assert sources.of("qoder").default_roots() == [home / ".qoder" / "projects", shared]
    report = sources.of("qoder").import_paths(store, sources.of("qoder").default_roots())
    assert report.files_read == 2 and not report.problems, report.problems
    titles = {s.id: (s.source_kind, s.title) for s in store.sessions()}
    assert titles == {t.session_id: ("qoder", "Checkout button"), t2.session_id: ("qoder", "Build explained")}
    assert store.session(t.session_id).meta["qoder_folder"] == "/Users/me/code/shop"
    assert [e.text for e in store.branch_view(t.session_id)] == ["add a checkout button", "Added it to the cart page."]
    # a folder given by hand: Qoder's by where it lies
    report = importing.import_paths(store, [home])
    assert {store.session(x).source_kind for x in report.sessions} == {"qoder"}


def test_a_real_transcript_reads_the_same_as_qoders(corpus, tmp_path):
    from sessionscope import open_store
    real = sorted((corpus / "claude-code").glob("*.jsonl")) if (corpus / "claude-code").is_dir() else []
    if not real:
        pytest.skip("no Claude Code transcript in the corpus")
    source = max(real, key=lambda p: p.stat().st_size)
    placed = tmp_path / ".qoder" / "projects" / "-Users-me-code-shop" / source.name
    placed.parent.mkdir(parents=True)
    shutil.copy(source, placed)
    with open_store(tmp_path / "a.db") as a, open_store(tmp_path / "b.db") as b:
        importing.import_paths(a, [source])
        importing.import_paths(b, [tmp_path / ".qoder"])
        assert {s.source_kind for s in b.sessions()} == {"qoder"}
        assert {s.id: [e.id for e in a.branch(s.id)] for s in a.sessions()} == \
            {s.id: [e.id for e in b.branch(s.id)] for s in b.sessions()}
