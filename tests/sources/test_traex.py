"""TraeX (TRAE CLI 2.0) named as itself (#64 item 1): a fork of Codex that writes Codex's rollouts under
`~/.trae/cli/`; read by Codex's reader, listed as TraeX, resumed with `traex resume`. The real rollout is
agentsview's deidentified TraeX capture (tests/sources/public/SOURCES.md): a subagent's thread, whose parent
thread is not in it."""

from __future__ import annotations

import shutil
from pathlib import Path

from sessionscope import sources
from sessionscope.sources import importing

from .codex_factory import Rollout

PUBLIC = Path(__file__).parent / "public" / "traex"
MAIN = "019fbc4a-48b9-7472-a0da-6d92901383db"  # the thread that spawned the public subagent rollout


def _home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    day = home / ".trae" / "cli" / "sessions" / "2026" / "08" / "01"
    day.mkdir(parents=True)
    for f in PUBLIC.glob("*.jsonl"):
        shutil.copy(f, day)
    codex = home / ".codex" / "sessions" / "2026" / "02" / "23"
    Rollout("019a0000-0000-7000-8000-00000000c0de").write(codex)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("TRAEX_HOME", raising=False)
    return home


def test_traex_rollouts_are_traex_sessions_read_as_codex_reads_them(store, tmp_path, monkeypatch):
    home = _home(tmp_path, monkeypatch)
    assert sources.of("traex").default_roots() == [home / ".trae" / "cli" / "sessions"]
    report = sources.of("traex").import_paths(store, sources.of("traex").default_roots())
    assert report.files_read == 1 and report.bad_lines == 0 and not report.problems, report.problems
    (s,) = store.sessions()
    assert (s.source_kind, s.tool_id) == ("traex", MAIN)  # the subagent's run, in its parent thread's session
    assert (s.tokens_in, s.tokens_out) == (4200, 180)
    run = [(e.kind, e.text) for e in store.events(s.id) if e.sidechain and e.kind != "meta"]
    assert run[0] == ("message", "Explore the parser package.")
    assert ("tool_call", 'exec_command {"cmd":"ls internal/parser"}') in run
    assert run[-1] == ("message", "The provider facade owns discovery and parsing.")
    assert sources.of("traex").resume_command(s) == ["traex", "resume", MAIN]
    # the same rollout given by hand is TraeX's by where it lies; Codex's own stay Codex's
    report = importing.import_paths(store, [home])
    assert sorted(store.session(x).source_kind for x in report.sessions) == ["codex", "traex"]
