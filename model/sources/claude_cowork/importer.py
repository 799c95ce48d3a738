"""Claude Cowork, read only. Claude Desktop's local agent mode runs Claude Code for each session and keeps it under
the app's user data (`local-agent-mode-sessions/<org>/<workspace>/`): the session's metadata in
`local_<uuid>.json` (`title`, `cliSessionId`, `userSelectedFolders`, `createdAt`, `lastActivityAt`), and in the
folder `local_<uuid>/` beside it Claude Code's own `.claude/projects/<project>/<cliSessionId>.jsonl` (subagents
under it as Claude Code keeps them). The transcripts are read by Claude Code's reader, as Cowork's (claude_code
.places.kind_for: by where they lie); the title the app shows, and the folders the user gave it, come from the
metadata (a title of the app's ranks above one taken from the first prompt, below a name the user gave here)."""

from __future__ import annotations

import os
from pathlib import Path

from sessionscope.sources.claude_code.importer import import_paths as claude_import
from sessionscope.sources.claude_code.named import name, read_meta
from sessionscope.sources.claude_code.places import COWORK

KIND = "claude_cowork"


def default_roots() -> list[Path]:
    """The desktop app's user data (Electron's place on each system), its `local-agent-mode-sessions`."""
    home = Path.home()
    bases = [home / "Library" / "Application Support" / "Claude", home / ".config" / "Claude"]
    if os.environ.get("LOCALAPPDATA"):
        bases.append(Path(os.environ["LOCALAPPDATA"]) / "Packages" / "Claude_pzs8sxrjxfjjc" / "LocalCache" /
                     "Roaming" / "Claude")
    if os.environ.get("APPDATA"):
        bases.append(Path(os.environ["APPDATA"]) / "Claude")
    return [b / COWORK for b in bases if (b / COWORK).is_dir()]


def metadata(transcript: Path) -> dict | None:
    """The session metadata beside the `local_<uuid>/` folder a transcript lies in, or None."""
    folder = next((p for p in transcript.parents if p.name.startswith("local_")), None)
    return read_meta(folder.with_name(folder.name + ".json")) if folder is not None else None


def _titles(store, transcripts: list[Path]) -> None:
    """Each session named as the app names it, with the folders the user gave it."""
    found: dict[str, tuple[str, dict]] = {}
    for path in transcripts:
        doc = metadata(path)
        if doc and isinstance(doc.get("title"), str) and doc["title"].strip():
            cli = doc.get("cliSessionId")
            folders = [f for f in doc.get("userSelectedFolders") or [] if isinstance(f, str)][:20]
            extra = {"cowork_session": str(doc.get("sessionId") or "")[:80]} | (
                {"cowork_folders": folders} if folders else {})
            found[cli if isinstance(cli, str) else path.stem] = (doc["title"], extra)
    name(store, found, "cowork")


def import_paths(store, paths, *, progress=None, cancel=None, warm: bool = True, only=None):
    """Import Cowork's transcripts (Claude Code's reader, as Cowork's sources), then their titles."""
    report = claude_import(store, paths, progress=progress, cancel=cancel, warm=warm, only=only, kind=KIND)
    if not report.cancelled:
        from sessionscope.sources.claude_code.importer import session_files
        found = sorted(only) if only else [f for p in map(Path, paths)
                                           for f in (session_files(p) if p.is_dir() else [p])]
        _titles(store, found)
    return report
