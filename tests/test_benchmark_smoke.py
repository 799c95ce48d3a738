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
