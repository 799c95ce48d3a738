"""Claude Code's file checkpoints: imported, kept in the store, shown per turn, restored and undone."""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from sessionscope import Refused, ops
from sessionscope.history import file_restore
from sessionscope.sources.claude_code import checkpoints as claude_checkpoints
from sessionscope.sources.claude_code import import_paths
from tests.sources.checkpoint_home import build


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return build(tmp_path)


def _imported(store, home):
    import_paths(store, [home.claude / "projects"])
    return home.t.session_id


def test_snapshots_become_checkpoints_under_their_prompt_and_backups_are_kept(store, home):
    sid = _imported(store, home)
    checkpoints = [e for e in store.events(sid) if e.kind == "checkpoint"]
    assert len(checkpoints) == 5
    assert {e.parent_id for e in checkpoints} == set(home.prompts.values())
    with store.reader() as conn:
        cp = claude_checkpoints.load(conn, sid)
        kept = {b.name: claude_checkpoints.backup_content(conn, cp, b) for b in cp.backups if b.name}
    shutil.rmtree(home.claude / "file-history")  # Claude Code's 30-day cleanup
    with store.reader() as conn:
        assert {b.name: claude_checkpoints.backup_content(conn, cp, b) for b in cp.backups if b.name} == kept
    assert kept and all(kept.values())
    # the checkpoint lines stay off the tree and the branch's reading; the prompt shows its files
    assert store.tree(sid).lanes == 1
    changed = ops.changed_files(store, sid)
    assert changed[home.prompts["p1"]] == ["a.py", "new.py"]
    # the last turn: the files it began to track (a tracked file's next backup comes with the next prompt)
    assert set(changed[home.prompts["p2"]]) == {"b.py", str(home.outside / "o.txt"), "../escape.txt", "link/x.txt"}


def test_backups_are_stored_once(store, home):
    _imported(store, home)
    with store.reader() as conn:
        n = conn.exec_driver_sql("SELECT count(*) FROM file_blob").scalar()
    assert n == len({p.read_bytes() for p in home.history.iterdir()})  # a@v1 and a@v1 again: one blob
    import_paths(store, [home.claude / "projects"])
    with store.reader() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM file_blob").scalar() == n


def test_restore_to_the_first_prompt(store, home):
    sid = _imported(store, home)
    plan = claude_checkpoints.restore_plan(store, sid, home.prompts["p1"])
    by = plan.by_path()
    assert {p: c.action for p, c in by.items()} == {
        "a.py": "overwrite", "new.py": "delete", "b.py": "overwrite", str(home.outside / "o.txt"): "overwrite",
        "../escape.txt": "overwrite", "link/x.txt": "overwrite"}
    assert plan.default_selection() == {"a.py", "new.py", "b.py"}  # outside and escaping paths are off
    assert not by[str(home.outside / "o.txt")].inside
    assert "'..'" in by["../escape.txt"].escapes and "symbolic link" in by["link/x.txt"].escapes
    assert "-a v3\n+a v1\n" in by["a.py"].diff()
    detail = file_restore.apply(store, plan, plan.default_selection())
    assert (home.project / "a.py").read_bytes() == b"a v1\n"
    assert stat.S_IMODE(os.stat(home.project / "a.py").st_mode) == 0o755  # the mode is kept
    assert not (home.project / "new.py").exists() and (home.project / "b.py").read_bytes() == b"b v1\n"
    assert (home.outside / "o.txt").read_bytes() == b"o v2\n" and (home.outside / "x.txt").read_bytes() == b"x v2\n"
    assert (home.project.parent / "escape.txt").read_bytes() == b"e v2\n"
    entry = store.audit_log(sid)[0]
    assert entry["action"] == "restore-files" and entry["outcome"] == "ok"
    assert {f["path"] for f in entry["detail"]["files"]} == {"a.py", "new.py", "b.py"} == \
        {f["path"] for f in detail["files"]}
    # undo puts back what was there, modes included
    file_restore.undo_last(store, sid)
    assert (home.project / "a.py").read_bytes() == b"a v3\n"
    assert (home.project / "new.py").read_bytes() == b"new, edited\n" and (home.project / "b.py").read_bytes() == b"b v2\n"
    assert stat.S_IMODE(os.stat(home.project / "a.py").st_mode) == 0o755
    assert store.audit_log(sid)[0]["action"] == "restore-files.undo"
    with pytest.raises(Exception, match="no restore"):
        file_restore.undo_last(store, sid)


def test_restore_to_the_second_prompt_and_explicit_escapes(store, home):
    sid = _imported(store, home)
    plan = claude_checkpoints.restore_plan(store, sid, home.prompts["p2"])
    assert plan.by_path()["new.py"].wanted == b"new\n" and plan.by_path()["a.py"].wanted == b"a v2\n"
    # any event of the turn restores to its prompt
    reply = next(e for e in store.events(sid) if e.text == "edited them all")
    assert claude_checkpoints.restore_plan(store, sid, reply.id).prompt_id == home.prompts["p2"]
    file_restore.apply(store, plan, {"link/x.txt", str(home.outside / "o.txt")})  # ticked explicitly
    assert (home.project / "link").is_symlink()  # the link stays; the file behind it is not written through
    assert (home.outside / "o.txt").read_bytes() == b"o v1\n"


def test_restore_after_the_backups_were_deleted_and_when_they_are_gone(store, home, tmp_path):
    sid = _imported(store, home)
    shutil.rmtree(home.claude / "file-history")
    plan = claude_checkpoints.restore_plan(store, sid, home.prompts["p1"])
    file_restore.apply(store, plan, plan.default_selection())
    assert (home.project / "a.py").read_bytes() == b"a v1\n"  # served from the store
    # a store that never saw the backups (imported after Claude Code removed them)
    from sessionscope import open_store
    bare = open_store(tmp_path / "bare.db")
    import_paths(bare, [home.claude / "projects"])
    plan = claude_checkpoints.restore_plan(bare, sid, home.prompts["p1"])
    by = plan.by_path()
    assert by["a.py"].action == "unavailable" and by["new.py"].action == "unchanged"  # per file (new.py: gone already)
    before = (home.project / "b.py").read_bytes()
    with pytest.raises(Refused, match="gone"):
        file_restore.apply(bare, plan, {"a.py", "b.py"})
    assert (home.project / "b.py").read_bytes() == before  # nothing half-written
    bare.close()


def test_dry_run_plan_writes_nothing(store, home):
    sid = _imported(store, home)
    before = {p: p.read_bytes() for p in home.project.iterdir() if p.is_file()}
    claude_checkpoints.restore_plan(store, sid, home.prompts["p1"])
    assert {p: p.read_bytes() for p in home.project.iterdir() if p.is_file()} == before
    assert not any(e["action"] == "restore-files" for e in store.audit_log(sid))


def test_deleting_the_session_drops_its_backups_but_keeps_undo_data(store, home):
    sid = _imported(store, home)
    plan = claude_checkpoints.restore_plan(store, sid, home.prompts["p1"])
    file_restore.apply(store, plan, {"a.py"})
    store.delete(sid)
    with store.reader() as conn:
        left = conn.exec_driver_sql("SELECT count(*) FROM file_blob").scalar()
        kept = store.audit_log(sid)[1]["detail"]["files"][0]
        from sessionscope.store import blobs
        assert blobs.get(conn, kept["before"]) == b"a v3\n"
    assert left == 2  # what the restore saved (before) and wrote (after)


def test_corpus_sessions_with_snapshots_restore_every_checkpoint(corpus, tmp_path, monkeypatch):
    """The corpus's real snapshot lines, with a backup file made for every name they give: at every
    checkpointed prompt, the restore (into a scratch folder) writes each backup's bytes and removes
    the files that did not exist yet."""
    from sessionscope import open_store
    from tests.sources.claude_home import UUID_RE, lay_out

    folder = corpus / "claude-code"
    if not folder.is_dir():
        pytest.skip("no claude-code corpus")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    entries = [e for e in sorted(folder.iterdir()) if (e.is_dir() or e.suffix == ".jsonl")
               and any(b'"file-history-snapshot"' in f.read_bytes() for f in ([e] if e.is_file() else e.rglob("*.jsonl")))]
    restored = files = 0
    for i, entry in enumerate(entries):
        project = lay_out(entry, tmp_path / "home" / ".claude" / "projects", i)
        for f in project.glob("*.jsonl"):
            for name in set(__import__("re").findall(rb'"backupFileName": ?"([^"]+)"', f.read_bytes())):
                target = tmp_path / "home" / ".claude" / "file-history" / f.stem / name.decode()
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(b"backup " + name + b"\n")
        store = open_store(tmp_path / f"{i}.db")
        import_paths(store, [project])
        for f in (p for p in project.glob("*.jsonl") if UUID_RE.match(p.stem)):
            with store.reader() as conn:
                cp = claude_checkpoints.load(conn, f.stem)
            for prompt in cp.prompts:
                into = tmp_path / "restored" / f"{i}-{prompt[:8]}"
                plan = claude_checkpoints.restore_plan(store, f.stem, prompt, into=str(into))
                assert plan.prompt_id == prompt
                state = cp.state_at(prompt)
                chosen = {c.path for c in plan.changes if c.inside and not c.escapes and c.action in ("create", "delete")}
                if chosen:
                    file_restore.apply(store, plan, chosen)
                for path in chosen:
                    b = state[path]
                    written = into / path
                    assert (written.read_bytes() == b"backup " + b.name.encode() + b"\n") if b.name else not written.exists()
                restored += 1
                files += len(chosen)
        store.close()
    assert len(entries) >= 3 and restored >= 3 and files >= 5


def test_restore_files_through_the_cli(home, tmp_path):
    import json
    import subprocess
    import sys

    from tests.conftest import REPO

    env = {**os.environ, "SESSIONSCOPE_STORE": str(tmp_path / "cli.db")}

    def cli(*args, code=0):
        out = subprocess.run([sys.executable, "-m", "sessionscope.cli", *args], cwd=REPO, env=env, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL)
        assert out.returncode == code, out.stderr
        return out.stdout

    cli("import", str(home.claude / "projects"))
    sid, p1 = home.t.session_id, home.prompts["p1"]
    text = cli("restore-files", sid, "--to", p1[:8], "--dry-run")
    assert "[x] M a.py" in text and "[ ] M link/x.txt" in text and "-a v3\n+a v1" in text
    assert (home.project / "a.py").read_bytes() == b"a v3\n"  # a dry run writes nothing
    cli("restore-files", sid, "--to", p1, code=2)  # not at a terminal: asks for --yes
    got = json.loads(cli("restore-files", sid, "--to", p1, "--only", "a.py", "--yes", "--json"))
    assert [f["path"] for f in got["restored"]] == ["a.py"] and (home.project / "a.py").read_bytes() == b"a v1\n"
    assert (home.project / "b.py").read_bytes() == b"b v2\n"
    cli("restore-files", sid, "--undo", "--yes")
    assert (home.project / "a.py").read_bytes() == b"a v3\n"
    both = json.loads(cli("restore-files", sid, "--to", p1, "--yes", "--conversation", "--json"))
    assert both["rewind"] and (home.project / "b.py").read_bytes() == b"b v1\n"


def test_undo_previews_asks_warns_about_edits_and_is_itself_undoable(store, home, tmp_path):
    """#29 item 14: `--undo --dry-run` writes nothing; `--undo` without --yes away from a terminal asks for it;
    a file edited since the restore is named; the undo's own entry lets --redo put the edits back."""
    import json
    import subprocess
    import sys

    from tests.conftest import REPO
    env = {**os.environ, "SESSIONSCOPE_STORE": str(tmp_path / "cli.db")}

    def cli(*args, code=0):
        out = subprocess.run([sys.executable, "-m", "sessionscope.cli", *args], cwd=REPO, env=env,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert out.returncode == code, out.stderr
        return out.stdout

    cli("import", str(home.claude / "projects"))
    sid, p1 = home.t.session_id, home.prompts["p1"]
    cli("restore-files", sid, "--to", p1, "--yes")
    assert (home.project / "a.py").read_bytes() == b"a v1\n"
    (home.project / "b.py").write_bytes(b"b edited after the restore\n")
    preview = cli("restore-files", sid, "--undo", "--dry-run")
    assert "b.py  (changed since" in preview and "-b edited after the restore" in preview
    assert (home.project / "a.py").read_bytes() == b"a v1\n"  # a dry run writes nothing
    cli("restore-files", sid, "--undo", code=2)  # not at a terminal and no --yes: nothing is undone
    assert (home.project / "a.py").read_bytes() == b"a v1\n"
    got = json.loads(cli("restore-files", sid, "--undo", "--yes", "--json"))
    assert {f["path"] for f in got["files"] if f["changed_since"]} == {"b.py"}
    assert (home.project / "a.py").read_bytes() == b"a v3\n" and (home.project / "b.py").read_bytes() == b"b v2\n"
    cli("restore-files", sid, "--redo", "--yes")  # the undo taken back: the edit is there again
    assert (home.project / "b.py").read_bytes() == b"b edited after the restore\n"
    assert (home.project / "a.py").read_bytes() == b"a v1\n"
    cli("restore-files", sid, "--redo", "--yes", code=2)  # nothing left to redo
    cli("restore-files", sid, "--undo", "--yes")  # a redo is undone like a restore
    assert (home.project / "a.py").read_bytes() == b"a v3\n"


def test_a_restore_killed_halfway_can_be_undone(store, home, tmp_path):
    """#29 item 14: the undo record is written before the first file is touched; kill -9 after one file."""
    import subprocess
    import sys
    import textwrap

    from tests.conftest import REPO
    sid = _imported(store, home)
    db = store.engine.url.render_as_string(hide_password=False)  # a file, or a PostgreSQL database
    store.close()
    script = textwrap.dedent(f"""
        import os
        from sessionscope import open_store
        from sessionscope.history import file_restore
        from sessionscope.sources.claude_code import checkpoints
        real, written = file_restore._write_atomically, []
        def dying(target, data, mode):
            if written:
                os.kill(os.getpid(), 9)  # as kill -9 would, after the first file
            real(target, data, mode)
            written.append(target)
        file_restore._write_atomically = dying
        store = open_store({db!r})
        plan = checkpoints.restore_plan(store, {sid!r}, {home.prompts["p1"]!r})
        file_restore.apply(store, plan, plan.default_selection())
    """)
    run = subprocess.run([sys.executable, "-c", script], cwd=REPO, env={**os.environ, "HOME": str(tmp_path / "home")})
    assert run.returncode == -9
    touched = [p for p in ("a.py", "b.py") if (home.project / p).read_bytes().startswith((b"a v1", b"b v1"))]
    assert len(touched) == 1  # one file was overwritten before the kill
    from sessionscope import open_store
    with open_store(db) as again:
        plan = file_restore.undo_plan(again, sid)
        assert plan.entry.get("interrupted")
        file_restore.apply_undo(again, sid, plan)
    assert (home.project / "a.py").read_bytes() == b"a v3\n" and (home.project / "b.py").read_bytes() == b"b v2\n"
    assert (home.project / "new.py").read_bytes() == b"new, edited\n"


@pytest.mark.parametrize("where", ["/", "home", "missing"])
def test_a_session_whose_folder_is_no_folder_ticks_nothing(store, tmp_path, monkeypatch, where):
    """#29 item 15: a cwd of `/`, the home folder or a folder missing here makes no path "in the folder":
    nothing is ticked, relative paths cannot be placed, and --into places them under a chosen folder."""
    import hashlib

    from tests.sources.checkpoint_home import snapshot
    from tests.sources.claude_factory import Transcript
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    cwd = {"/": "/", "home": str(home), "missing": str(tmp_path / "gone")}[where]
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"mine\n")
    t = Transcript(cwd=cwd)
    p1 = t.user("edit things")["uuid"]
    names = {}
    for path, content in ((str(victim), b"old\n"), ("rel.txt", b"relative\n")):
        names[path] = f"{hashlib.sha256(path.encode()).hexdigest()[:16]}@v1"
        (home / ".claude" / "file-history" / t.session_id).mkdir(parents=True, exist_ok=True)
        (home / ".claude" / "file-history" / t.session_id / names[path]).write_bytes(content)
    snapshot(t, p1, {p: (n, 1) for p, n in names.items()}, update=False)
    t.assistant("done")
    t.write(home / ".claude" / "projects" / "-x")
    import_paths(store, [home / ".claude" / "projects"])
    plan = claude_checkpoints.restore_plan(store, t.session_id, p1)
    assert plan.no_folder and plan.default_selection() == set()
    assert plan.by_path()["rel.txt"].action == "unavailable"
    elsewhere = tmp_path / "elsewhere"
    into = claude_checkpoints.restore_plan(store, t.session_id, p1, into=str(elsewhere))
    assert not into.no_folder and into.default_selection() == {"rel.txt"}
    file_restore.apply(store, into, into.default_selection())
    assert (elsewhere / "rel.txt").read_bytes() == b"relative\n" and victim.read_bytes() == b"mine\n"


def test_a_snapshot_written_before_its_prompt_is_no_problem(store, tmp_path, monkeypatch):
    """#29 item 23: Claude Code writes each file-history snapshot just before the prompt it belongs to; a first
    import of such sessions reports no problem (and a real forward link still is one)."""
    from tests.sources.checkpoint_home import snapshot
    from tests.sources.claude_factory import Transcript
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    t = Transcript(cwd=str(tmp_path))
    prompt_id = "0f000000-0000-4000-8000-00000000aaaa"
    snapshot(t, prompt_id, {}, update=False)  # the snapshot line comes first, naming the prompt to come
    t.user("the prompt")["uuid"]
    t.lines[-1]["uuid"] = prompt_id
    t.last = prompt_id
    t.assistant("a reply")
    t.write(tmp_path / "projects" / "-p")
    report = import_paths(store, [tmp_path / "projects"])
    assert report.problems == [] and report.bad_lines == 0
    assert [e.kind for e in store.events(t.session_id)][:2] == ["checkpoint", "message"]
