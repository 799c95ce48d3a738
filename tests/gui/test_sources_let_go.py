"""The window's process keeps no module's source (#61: PySide6's feature check read every module imported after it
into linecache, ~20 MB of the window's heap); the import's process loads no Qt."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

PROBE = """
import linecache, sys
import sessionscope.gui.window.app
feature = sys.modules["shibokensupport.feature"]
import sessionscope.gui.reader.reader_view as uses, json as plain
print(len(linecache.cache), feature._mod_uses_pyside(uses), feature._mod_uses_pyside(plain))
"""


def test_the_window_keeps_no_source_and_pyside_still_tells_its_modules():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, check=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": ""}).stdout.split()
    # (hundreds of files before: every module imported after PySide6); PySide6's answer is unchanged
    assert int(out[0]) < 20 and out[1:] == ["True", "False"]


def test_the_import_process_loads_no_qt():
    probe = "import sys, sessionscope.gui.jobs.import_worker; print(any(m.startswith('PySide6') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def test_the_window_asks_nothing_of_huggingface_while_search_by_meaning_is_off(tmp_path):
    """Whether the model is fetched is huggingface_hub's to say, and its import is ~45 MB: asked only once search by
    meaning is on."""
    probe = f"""
import sys
from sessionscope import open_store
from sessionscope.gui.jobs.embed_job import needed
with open_store({str(tmp_path / 's.db')!r}) as store:
    store.open_session(title="a session")
    print(needed(store), "huggingface_hub" in sys.modules)
"""
    assert subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.split() == ["False", "False"]
