"""One app id everywhere: package, .desktop file and AppStream metainfo agree."""

from __future__ import annotations

import configparser
import tomllib
import xml.etree.ElementTree as ET

from resources import APP_ID
from tests.conftest import REPO


def test_desktop_file_and_metainfo_share_the_app_id():
    desktop = REPO / "packaging" / f"{APP_ID}.desktop"
    meta = REPO / "packaging" / f"{APP_ID}.metainfo.xml"
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(desktop)
    assert entry["Desktop Entry"]["Icon"] == APP_ID
    assert entry["Desktop Entry"]["Exec"].split()[0] == "sessionscope"
    root = ET.parse(meta).getroot()
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == f"{APP_ID}.desktop"
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert root.find("releases/release").get("version") == version
