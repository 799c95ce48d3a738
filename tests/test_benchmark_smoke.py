"""The benchmark's generator makes what the importer reads (the timed run is `python -m tests.benchmarks`)."""

from __future__ import annotations

from sessionscope.sources.claude_code import import_paths
from tests.benchmarks.__main__ import parse_size
from tests.benchmarks.generate import generate


def test_generated_home_imports_cleanly(store, tmp_path):
    info = generate(tmp_path / "projects", 1_500_000, seed=3)
    again = generate(tmp_path / "again", 1_500_000, seed=3)
    assert info == again  # deterministic from the seed
    report = import_paths(store, [tmp_path / "projects"])
    assert report.bad_lines == 0 and report.events_added > 100
    kinds = {e.kind for e in store.events(info["biggest"])}
    assert {"message", "tool_call", "tool_result", "thinking", "progress", "compaction"} <= kinds
    assert any(e.sidechain for s in store.sessions() for e in store.events(s.id))
    assert parse_size("500MB") == 500_000_000 and parse_size("tiny") == 2_000_000


def test_the_team_scale_benchmark_runs(postgres_server, capsys):
    """`python -m tests.benchmarks.team_scale`, tiny: it fills a team store, measures as a member and prints its
    table (the numbers are not judged here; tests/benchmarks/RESULTS.md quotes full runs)."""
    from tests.benchmarks import team_scale
    assert team_scale.main(["--sessions", "40", "--events", "4000", "--people", "3", "--big", "1000",
                            "--appends", "5"]) == 0
    out = capsys.readouterr().out
    assert "The team store at scale: 40 sessions, 4,000 events, 3 people" in out
    assert "every chain whole" in out and "search: rare word" in out
