"""Qoder, read only. Qoder writes its sessions in Claude Code's transcript format: `~/.qoder/projects/<project>/
<id>.jsonl` (`~/.qoderwork/projects` for Qoder Work), or in the IDE's `SharedClientCache/cli/projects/` (flat, or a
folder a project), subagents under `<id>/subagents/agent-*.jsonl` as Claude Code keeps them. Beside each session
its `<id>-session.json` says what Claude Code's lines do not: the title Qoder shows and the folder it worked in.
The transcripts are read by Claude Code's reader, as Qoder's (claude_code.places.kind_for: by where they lie)."""

from __future__ import annotations

import os
from pathlib import Path

from sessionscope.sources.claude_code.importer import import_paths as claude_import
from sessionscope.sources.claude_code.named import name, read_meta

KIND = "qoder"


def default_roots() -> list[Path]:
    home = Path.home()
    places = [home / ".qoder" / "projects", home / ".qoderwork" / "projects",
              home / "Library" / "Application Support" / "Qoder" / "SharedClientCache" / "cli" / "projects",
              home / ".config" / "Qoder" / "SharedClientCache" / "cli" / "projects"]
    if os.environ.get("APPDATA"):
        places.append(Path(os.environ["APPDATA"]) / "Qoder" / "SharedClientCache" / "cli" / "projects")
    return [p for p in places if p.is_dir()]


def _titles(store, transcripts: list[Path]) -> None:
    found: dict[str, tuple[str, dict]] = {}
    for path in transcripts:
        if path.parent.name == "subagents":
            continue
        doc = read_meta(path.with_name(path.stem + "-session.json"))
        if doc and isinstance(doc.get("title"), str) and doc["title"].strip():
            folder = doc.get("working_dir")
            found[path.stem] = (doc["title"], {"qoder_folder": folder[:4096]} if isinstance(folder, str) else {})
    name(store, found, "qoder")


def import_paths(store, paths, *, progress=None, cancel=None, warm: bool = True, only=None):
    """Import Qoder's transcripts (Claude Code's reader, as Qoder's sources), then their titles."""
    report = claude_import(store, paths, progress=progress, cancel=cancel, warm=warm, only=only, kind=KIND)
    if not report.cancelled:
        from sessionscope.sources.claude_code.importer import session_files
        found = sorted(only) if only else [f for p in map(Path, paths)
                                           for f in (session_files(p) if p.is_dir() else [p])]
        _titles(store, found)
    return report
