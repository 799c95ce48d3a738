"""`sessionscope install-desktop`: the entry, metainfo and icon land where the freedesktop specs look,
the entry starts this installation, the desktop's own validators accept both (desktop-file-validate,
appstreamcli: CI installs them), and --uninstall takes them away."""

from __future__ import annotations

import configparser
import json
import shutil
import subprocess

import pytest

from sessionscope.cli.main import main
from sessionscope.resources import APP_ID


def test_install_validate_uninstall(tmp_path, monkeypatch, capsys):
    data = tmp_path / "share"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    assert main(["install-desktop", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    desktop = data / "applications" / f"{APP_ID}.desktop"
    meta = data / "metainfo" / f"{APP_ID}.metainfo.xml"
    icon = data / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg"
    assert report == {"files": [str(desktop), str(meta), str(icon)], "uninstalled": False}
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(desktop)
    exec_ = entry["Desktop Entry"]["Exec"].split()
    assert entry["Desktop Entry"]["MimeType"] == "x-scheme-handler/sessionscope;"  # it opens sessionscope:// links
    assert exec_[-1] == "%U" and (exec_[0].endswith("sessionscope") or exec_[1:3] == ["-m", "sessionscope.cli"])
    assert icon.read_bytes().startswith(b"<") and b"<svg" in icon.read_bytes()
    assert not (data / "sessionscope").exists()  # no store was opened (or made) for this
    for tool, args in (("desktop-file-validate", [str(desktop)]), ("appstreamcli", ["validate", "--no-net", str(meta)])):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed here (.ci/run installs it)")
        done = subprocess.run([tool, *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "error" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    assert main(["install-desktop", "--uninstall", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["uninstalled"] is True
    assert not desktop.exists() and not meta.exists() and not icon.exists()
