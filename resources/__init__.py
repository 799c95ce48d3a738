"""Application identity and resource files (icons), found through importlib.resources.

The one app id names the .desktop file, the AppStream metainfo, Qt's
setDesktopFileName and the packaging spec (see packaging/).
"""

from __future__ import annotations

from importlib.resources import files

APP_ID = "io.github.sessionscope.Sessionscope"
APP_NAME = "Sessionscope"
ORGANIZATION = "Sessionscope"


def resource_path(name: str):
    """A Traversable for a file shipped in this package (e.g. 'icons/light/fork.svg')."""
    return files(__name__).joinpath(name)
