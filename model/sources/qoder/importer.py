"""Qoder, read only. Qoder writes its sessions in Claude Code's transcript format: `~/.qoder/projects/<project>/
<id>.jsonl` (`~/.qoderwork/projects` for Qoder Work), or in the IDE's `SharedClientCache/cli/projects/` (flat, or a
folder a project), subagents under `<id>/subagents/agent-*.jsonl` as Claude Code keeps them. Beside each session
its `<id>-session.json` says what Claude Code's lines do not: the title Qoder shows and the folder it worked in.
The transcripts are read by Claude Code's reader, as Qoder's (claude_code.places.kind_for: by where they lie)."""

from __future__ import annotations

import os
from pathlib import Path

from sessionscope.sources.claude_code.named import importer, read_meta

KIND = "qoder"


def default_roots() -> list[Path]:
    home = Path.home()
    places = [home / ".qoder" / "projects", home / ".qoderwork" / "projects",
              home / "Library" / "Application Support" / "Qoder" / "SharedClientCache" / "cli" / "projects",
              home / ".config" / "Qoder" / "SharedClientCache" / "cli" / "projects"]
    if os.environ.get("APPDATA"):
        places.append(Path(os.environ["APPDATA"]) / "Qoder" / "SharedClientCache" / "cli" / "projects")
    return [p for p in places if p.is_dir()]


def titled(transcript: Path) -> tuple[str, str, dict] | None:
    """(session id, Qoder's title, its working folder) from the `<id>-session.json` beside it, or None."""
    if transcript.parent.name == "subagents":
        return None
    doc = read_meta(transcript.with_name(transcript.stem + "-session.json"))
    if not doc or not isinstance(doc.get("title"), str) or not doc["title"].strip():
        return None
    folder = doc.get("working_dir")
    return transcript.stem, doc["title"], {"qoder_folder": folder[:4096]} if isinstance(folder, str) else {}


import_paths = importer(KIND, titled, "qoder")
