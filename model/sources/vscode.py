"""What VS Code and its forks (Cursor) share: where an editor keeps its user data on each system, and
which folder a workspace's storage belongs to."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

import orjson


def user_dirs(app: str) -> list[Path]:
    """The editor's `User` folder (`app`: "Code", "Code - Insiders", "Cursor") on Linux, macOS and Windows."""
    home = Path.home()
    dirs = [home / ".config" / app / "User", home / "Library" / "Application Support" / app / "User"]
    if os.environ.get("APPDATA"):
        dirs.append(Path(os.environ["APPDATA"]) / app / "User")
    return dirs


def workspace_folder(storage: Path) -> str | None:
    """The folder a workspace storage folder (`workspaceStorage/<hash>/`) belongs to, from its `workspace.json`."""
    try:
        doc = orjson.loads((storage / "workspace.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    uri = doc.get("folder") or doc.get("workspace") if isinstance(doc, dict) else None
    if not isinstance(uri, str):
        return None
    parsed = urllib.parse.urlparse(uri)
    path = urllib.parse.unquote(parsed.path) if parsed.scheme == "file" else uri
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///c:/Users/… on Windows
        path = path[1:]
    return path or None
