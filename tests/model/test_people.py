"""Each session records who brought it into the store (user@host); the list filters by it."""

from __future__ import annotations

import socket
import subprocess
import sys

from sessionscope import open_store
from sessionscope.sources.claude_code import import_paths
from sessionscope.store.quick import open_reader
from tests.conftest import REPO
from tests.sources.claude_factory import Transcript


def _import_as(user: str, store, root, n: int, monkeypatch) -> list[str]:
    ids = []
    for i in range(n):
        t = Transcript(cwd=f"/work/{user}{i}")
        t.user(f"{user}'s task {i}")
        t.assistant("done")
        t.write(root / user / "projects" / f"-work-{user}{i}")
        ids.append(t.session_id)
    monkeypatch.setenv("LOGNAME", user)  # what getpass reads first
    import_paths(store, [root / user / "projects"])
    return ids


def test_sessions_record_who_brought_them_in(tmp_path, monkeypatch):
    store = open_store(tmp_path / "team.db")
    alice = _import_as("alice", store, tmp_path, 2, monkeypatch)
    bob = _import_as("bob", store, tmp_path, 1, monkeypatch)
    host = socket.gethostname()
    by = {s.id: s.imported_by for s in store.sessions()}
    assert by == {**{sid: f"alice@{host}" for sid in alice}, **{sid: f"bob@{host}" for sid in bob}}
    assert store.session_counts()["by_person"] == {f"alice@{host}": 2, f"bob@{host}": 1}
    assert {s.id for s in store.sessions(person=f"alice@{host}")} == set(alice)
    assert [s.id for s in open_reader(str(tmp_path / "team.db")).sessions(person=f"bob@{host}")] == bob

    # a rescan by someone else does not take the sessions over
    monkeypatch.setenv("LOGNAME", "carol")
    (tmp_path / "alice" / "projects" / "-work-alice0" / f"{alice[0]}.jsonl").open("a").write(
        '{"type":"user","sessionId":"%s","uuid":"u-late","parentUuid":null,"timestamp":"2026-03-02T00:00:00Z",'
        '"message":{"role":"user","content":"one more"}}\n' % alice[0])
    import_paths(store, [tmp_path / "alice" / "projects"])
    assert store.session(alice[0]).imported_by == f"alice@{host}"
    store.close()

    out = subprocess.run([sys.executable, "-m", "sessionscope.cli", "--store", str(tmp_path / "team.db"),
                          "--json", "list", "--by", f"bob@{host}"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json
    assert [s["id"] for s in json.loads(out.stdout)] == bob and json.loads(out.stdout)[0]["imported_by"] == f"bob@{host}"
