"""`sessionscope install-desktop`: the app in the desktop's menus. The .desktop entry, the AppStream
metainfo and the icon go where the freedesktop specs look ($XDG_DATA_HOME, ~/.local/share by
default), the entry's Exec naming this installation's `sessionscope`, which also opens `sessionscope://` links (its
MimeType: the desktop's handler of the scheme); `--uninstall` removes them."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from sessionscope.cli.output import out


def _shipped(name: str) -> bytes:
    """A file of packaging/ (installed as sessionscope.packaging; read from the checkout in development)."""
    from importlib.resources import files
    try:
        return files("sessionscope.packaging").joinpath(name).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, TypeError):
        return (Path(__file__).resolve().parents[2] / "packaging" / name).read_bytes()


def _command() -> str:
    """How the desktop starts this installation: its `sessionscope` script, else this Python's module."""
    script = Path(sys.argv[0]).resolve() if Path(sys.argv[0]).name == "sessionscope" else None
    found = script if script and script.exists() else shutil.which("sessionscope")
    return shlex.quote(str(found)) if found else f"{shlex.quote(sys.executable)} -m sessionscope.cli"


def targets(data_home: Path) -> dict[str, Path]:
    from sessionscope.resources import APP_ID
    return {"desktop": data_home / "applications" / f"{APP_ID}.desktop",
            "metainfo": data_home / "metainfo" / f"{APP_ID}.metainfo.xml",
            "icon": data_home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"}


def install(data_home: Path) -> list[Path]:
    from sessionscope.resources import APP_ID, resource_path
    where = targets(data_home)
    entry = _shipped(f"{APP_ID}.desktop").decode()
    entry = "\n".join(f"Exec={_command()} %U" if line.startswith("Exec=") else line for line in entry.splitlines()) + "\n"
    contents = {"desktop": entry.encode(), "metainfo": _shipped(f"{APP_ID}.metainfo.xml"),
                "icon": resource_path("icons/sessionscope.svg").read_bytes()}
    for key, path in where.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(contents[key])
        os.replace(tmp, path)
    # menus pick the entry up now, not at the next login; and its MimeType makes it the handler of sessionscope:// links
    if shutil.which("update-desktop-database"):
        subprocess.run(["update-desktop-database", str(where["desktop"].parent)], capture_output=True)
    return list(where.values())


def uninstall(data_home: Path) -> list[Path]:
    removed = []
    for path in targets(data_home).values():
        if path.exists():
            path.unlink()
            removed.append(path)
    return removed


def install_desktop(_store, args):
    data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    files = uninstall(data_home) if args.uninstall else install(data_home)
    verb = "removed" if args.uninstall else "installed"
    out(args, {"files": [str(p) for p in files], "uninstalled": bool(args.uninstall)},
        "\n".join(f"{verb} {p}" for p in files) or "nothing to remove")
