"""Ids a transcript chooses never choose a path or an option (#29 items 1 and 5): a `sessionId` of
`../../.ssh` cannot make the import copy ~/.ssh/id_rsa into the store nor make `restore` write outside
`projects/`, and an id shaped like an option is refused for resume instead of reaching the tool."""

from __future__ import annotations

from types import SimpleNamespace

import orjson
import pytest
import sqlalchemy as sa

from sessionscope import sources
from sessionscope.errors import Refused
from sessionscope.safety.untrusted import child, is_safe_id, printable
from sessionscope.sources.importing import import_paths
from tests.sources.checkpoint_home import snapshot
from tests.sources.claude_factory import Transcript


def test_an_id_is_a_name_only_when_it_has_an_ids_shape(tmp_path):
    assert is_safe_id("3f2a51de-8c1b-4a57-9d0e-5e55105c09e1") and is_safe_id("1b6ca412224c9aa2@v1")
    for bad in ("../../.ssh", "..", ".", "-x", "--dangerously-skip-permissions", "a/b", "a\\b", "a\x00b", "", None, {}):
        assert not is_safe_id(bad)
    with pytest.raises(Refused):
        child(tmp_path, "..", "x")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "link").symlink_to(tmp_path.parent)
    with pytest.raises(Refused):  # a name that resolves outside through a symlink
        child(tmp_path / "in", "link", "x")
    assert child(tmp_path, "a", "b.jsonl") == tmp_path / "a" / "b.jsonl"


def test_a_transcripts_session_id_never_leads_out_of_the_backup_or_projects_folder(store, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    (home / ".claude" / "file-history").mkdir(parents=True)
    project = home / ".claude" / "projects" / "-work-app"
    t = Transcript(session_id="../../.ssh", cwd="/work/app")
    prompt = t.user("hello")["uuid"]
    snapshot(t, prompt, {"/work/app/id_rsa": ("id_rsa", 1)}, update=False)
    t.assistant("hi")
    project.mkdir(parents=True)
    (project / "not-a-uuid.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in t.lines))

    report = import_paths(store, [home / ".claude" / "projects"])
    assert report.events_added >= 2
    sessions = store.sessions()
    assert len(sessions) == 1 and is_safe_id(sessions[0].id) and sessions[0].id != "../../.ssh"
    with store.reader() as conn:
        blobs = conn.execute(sa.text("SELECT count(*) FROM file_blob")).scalar()
    assert blobs == 0  # the key was not copied into the store

    written = sources.of("claude_code").write_back(store, sessions[0].id)
    projects = (home / ".claude" / "projects").resolve()
    assert written and all(projects in p.resolve().parents for p in written)
    assert not (home / ".claude" / ".ssh.jsonl").exists()


def test_a_stored_session_or_agent_id_that_is_not_a_name_is_refused_by_restore(store, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    project = tmp_path / "home" / ".claude" / "projects" / "-work-app"
    t = Transcript(cwd="/work/app")
    t.user("hello")
    line = t.assistant("hi")
    line["agentId"] = "../../../../escape"
    t.write(project)
    import_paths(store, [tmp_path / "home" / ".claude" / "projects"])
    (project / f"{t.session_id}.jsonl").unlink()
    with pytest.raises(Refused, match="agent id"):
        sources.of("claude_code").write_back(store, t.session_id)
    assert not list(tmp_path.rglob("*escape*"))


@pytest.mark.parametrize("kind", ["claude_code", "codex", "gemini"])
def test_an_id_shaped_like_an_option_is_refused_for_resume(kind):
    src = sources.of(kind)
    bad = SimpleNamespace(id="x", tool_id="--dangerously-skip-permissions", cwd="/work", source_kind=kind)
    with pytest.raises(Refused, match="not a session id"):
        src.resume_command(bad)
    with pytest.raises(Refused):
        src.resume_line(bad)
    with pytest.raises(Refused):
        src.terminal_argv("xterm -e {command}", bad)
    good = SimpleNamespace(id="x", tool_id="3f2a51de-8c1b-4a57-9d0e-5e55105c09e1", cwd="/work", source_kind=kind)
    assert src.resume_command(good)[-1] == good.tool_id


def test_printable_shows_control_and_bidi_characters_visibly():
    assert printable("a\x1b]52;c;ZXZpbA==\x07b") == "a\\e]52;c;ZXZpbA==\\x07b"
    assert printable("\u202eexe.txt") == "\\u202eexe.txt"
    assert printable("one\ntwo", keep_newlines=True) == "one\ntwo" and printable("one\ntwo") == "one\\ntwo"


def test_meta_lines_and_local_command_output_are_never_prompts(store, tmp_path):
    """#29 item 27: Claude Code's hidden isMeta caveat and a local command's output (/context) are not user
    messages (not a prompt, not bold in the reader), yet stay on the chain where the SDK has them."""
    t = Transcript(cwd="/work/app")
    t.user("the real prompt")
    t.assistant("a reply")
    caveat = t.user("Caveat: The messages below were generated by the user while running local commands.")
    caveat["isMeta"] = True
    t.user("<command-name>/context</command-name>")
    t.user("<local-command-stdout>Context Usage 12k/200k tokens</local-command-stdout>")
    t.write(tmp_path / "projects" / "-work-app")
    import_paths(store, [tmp_path / "projects"])
    kinds = {e.text[:20]: (e.kind, e.role) for e in store.events(t.session_id)}
    assert kinds["Caveat: The messages"] == ("system", "meta")
    assert kinds["<local-command-stdou"] == ("system", "system")
    assert kinds["the real prompt"] == ("message", "user")
    assert store.session(t.session_id).title == "the real prompt"
    assert store.branch_view(t.session_id)[-1].text.startswith("<local-command-stdout>")  # on the head branch
