"""What is released: one app id everywhere; a wheel under one import name; an sdist tests run from."""

from __future__ import annotations

import configparser
import subprocess
import sys
import tarfile
import tomllib
import xml.etree.ElementTree as ET
import zipfile

import pytest

from sessionscope.resources import APP_ID
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


# What a release is made of: the sdist (every file git tracks, through setuptools-scm's file finder),
# and the wheel built from that sdist, as `python -m build` does.
@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    import fcntl
    out = tmp_path_factory.mktemp("dist")
    # one build at a time: setuptools lays the sdist's tree out in the repository itself, so two workers that each
    # build (this module's tests split between them) removed each other's files midway
    with open(tmp_path_factory.getbasetemp().parent / "sessionscope-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
                             capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (wheel,), (sdist,) = out.glob("*.whl"), out.glob("*.tar.gz")
    return wheel, sdist


# Where each top-level folder of the repository lands in the installed package (pyproject's package-dir).
_INSTALLED_AS = {"model": "sessionscope", "gui": "sessionscope/gui", "resources": "sessionscope/resources"}


def test_the_wheel_installs_only_the_sessionscope_import_name(dists):
    """Another distribution's `model` or `gui` package can no longer overwrite ours, nor ours theirs."""
    names = zipfile.ZipFile(dists[0]).namelist()
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert {n.split("/")[0] for n in names} == {"sessionscope", f"sessionscope-{version}.dist-info"}
    ours = set(names)
    missing = [f"{folder}/{path.relative_to(REPO / folder)}"
               for folder, target in _INSTALLED_AS.items()
               for path in sorted((REPO / folder).rglob("*.py"))
               if "__pycache__" not in path.parts
               and f"{target}/{path.relative_to(REPO / folder).as_posix()}" not in ours]
    assert not missing, f"modules left out of the wheel (add their package to pyproject): {missing}"
    assert "sessionscope/store/migrations/script.py.mako" in ours
    assert "sessionscope/resources/manual/command-line.md" in ours  # Help ▸ Manual reads it from the package
    assert any(n.startswith("sessionscope/resources/icons/") and n.endswith(".svg") for n in names)
    assert {f"sessionscope/packaging/{APP_ID}.desktop", f"sessionscope/packaging/{APP_ID}.metainfo.xml"} <= set(names)
    assert not any("/screenshots/" in n for n in names)  # README's pictures stay in the sdist
    entry = zipfile.ZipFile(dists[0]).read(f"sessionscope-{version}.dist-info/entry_points.txt").decode()
    assert "sessionscope = sessionscope.cli:main" in entry


def test_every_package_folder_is_listed_in_pyproject():
    """A folder left out is still copied into the wheel as data (with only a setuptools warning), so the wheel
    test above cannot see it: each folder with an __init__.py must be a listed package."""
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    for folder, target in _INSTALLED_AS.items():
        for init in (REPO / folder).rglob("__init__.py"):
            name = ".".join((target.replace("/", "."), *init.parent.relative_to(REPO / folder).parts))
            assert name in listed, f"{name} is not in pyproject's [tool.setuptools] packages"


def test_the_sdist_carries_the_tests_and_what_they_read(dists):
    """`pytest` runs from an unpacked sdist: the whole tests/ tree, README and LICENSE are in it."""
    with tarfile.open(dists[1]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    tests = {p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}
    assert tests and tests <= names, sorted(tests - names)
    assert {"README.md", "LICENSE", "pyproject.toml", ".ci/run"} <= names
