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

from sessionscope.sources.claude_code.named import importer, read_meta
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


def titled(transcript: Path) -> tuple[str, str, dict] | None:
    """(session id, the title the app shows, the folders the user gave it) from the metadata, or None."""
    doc = metadata(transcript)
    if not doc or not isinstance(doc.get("title"), str) or not doc["title"].strip():
        return None
    cli = doc.get("cliSessionId")
    folders = [f for f in doc.get("userSelectedFolders") or [] if isinstance(f, str)][:20]
    extra = {"cowork_session": str(doc.get("sessionId") or "")[:80]} | ({"cowork_folders": folders} if folders else {})
    return cli if isinstance(cli, str) else transcript.stem, doc["title"], extra


import_paths = importer(KIND, titled, "cowork")
