"""Private by default (#18 part 3): a new store is 0600 (its -wal and -shm too) in a 0700 folder; an
existing store others can read is said, with the fix, by the CLI and the window."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_store_is_its_users_alone(tmp_path):
    from sessionscope import open_store
    old = os.umask(0o022)  # the usual umask, which would give 0644
    try:
        folder = tmp_path / "data" / "sessionscope"
        with open_store(folder / "store.db") as s:
            s.append(s.open_session(title="secret").id, "message", role="user", text="sk-ant-…")
            files = [folder / n for n in ("store.db", "store.db-wal", "store.db-shm")]
            assert all(f.exists() for f in files)
            assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}
        assert _mode(folder) == 0o700 and _mode(folder.parent) == 0o700  # every folder it made
    finally:
        os.umask(old)


def test_an_existing_store_open_to_others_is_said_by_the_cli(tmp_path):
    from sessionscope import open_store
    from sessionscope.safety.privacy import exposure
    path = tmp_path / "store.db"
    open_store(path).close()
    assert exposure(str(path)) is None
    os.chmod(path, 0o644)
    warning = exposure(str(path))
    assert warning and "0644" in warning and f"chmod 600 '{path}'*" in warning
    for command in (["list"], ["search", "x"]):  # the quick reader and the full store both say it
        run = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(path), *command],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert "warning: the store" in run.stderr and "chmod 600" in run.stderr
    assert _mode(path) == 0o644  # said, not changed behind the user's back
    assert exposure("sqlite://") is None and exposure("postgresql://u@h/db") is None
