"""Which session wrote this line (#37 item 3): a real git repository, edited through transcripts in Claude Code's and
Codex's real shapes (the files on disk changed as the agents' calls said, the commits made by real `git`), changed
by hand in between (a line rewritten, a line added, a block moved), a file renamed with `git mv`, then blamed line by
line against the truth the test knows. Then each other tool's edit shapes, as the corpus holds them."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest

from sessionscope.history.cards import Call
from sessionscope.insight import blame, edits
from sessionscope.sources import importing
from tests.sources.claude_factory import Transcript
from tests.sources.codex_factory import Rollout

pytestmark = pytest.mark.sqlite_only

A_WRITE = 'import os\n\n\ndef greet(name):\n    return f"hello {name}"\n\n\ndef main():\n    print(greet("world"))\n'
PATCH = """*** Begin Patch
*** Update File: app.py
@@
 def main():
-    print(greet("world"))
+    for who in ("world", "codex"):
+        print(greet(who))
+
+
+def shout(name):
+    return greet(name).upper()
*** Add File: util.py
+X = 1
*** End Patch
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.invalid")
    git(repo, "config", "user.name", "t")
    return repo


def _at(t: Transcript | Rollout, day: int) -> None:
    t.clock = dt.datetime(2026, 3, day, 9, 0, tzinfo=dt.timezone.utc)


def _claude_call(t: Transcript, name: str, args: dict, output: str) -> dict:
    call = t.assistant(tool=(name, args))
    t.tool_result(call, output)
    return call


def test_a_repository_edited_by_two_agents_and_by_hand(store, tmp_path):
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    repo = _repo(tmp_path)
    app = repo / "app.py"

    # day 1, Claude Code: writes app.py, edits a line, commits
    a = Transcript(cwd=str(repo))
    _at(a, 1)
    a.user("write a greeting app")
    app.write_text(A_WRITE)
    a_write = _claude_call(a, "Write", {"file_path": str(app), "content": A_WRITE}, "File created successfully")
    app.write_text(A_WRITE.replace('f"hello {name}"', 'f"hello, {name}!"'))
    a_edit = _claude_call(a, "Edit", {"file_path": str(app), "old_string": 'return f"hello {name}"',
                                      "new_string": 'return f"hello, {name}!"'}, "The file has been updated.")
    git(repo, "add", "-A")
    committed = git(repo, "commit", "-m", "greet")  # git's own output, as the agent's shell saw it
    _claude_call(a, "Bash", {"command": "git add -A && git commit -m greet"}, committed)

    # day 2, Codex: a patch to app.py (relative paths) that also adds util.py
    b = Rollout("0199aaaa-0000-7000-8000-00000000b0b0", cwd=str(repo))
    _at(b, 2)
    text = app.read_text().replace('    print(greet("world"))\n', '    for who in ("world", "codex"):\n'
                                   '        print(greet(who))\n\n\ndef shout(name):\n    return greet(name).upper()\n')
    app.write_text(text)
    (repo / "util.py").write_text("X = 1\n")
    b.turn("loop over names", "done", call=("apply_patch", PATCH, "Success. Updated the following files:\nM app.py"))

    # by hand: a line of Codex's rewritten, a line added
    app.write_text(app.read_text().replace("return greet(name).upper()\n", 'return greet(name).upper() + "!!"\n')
                   + "# kept by hand\n")

    # day 3, Claude Code: renames the file, then adds an import
    c = Transcript(cwd=str(repo))
    _at(c, 3)
    c.user("call it main.py and import sys")
    git(repo, "mv", "app.py", "main.py")
    _claude_call(c, "Bash", {"command": "git mv app.py main.py"}, "")
    main = repo / "main.py"
    main.write_text(main.read_text().replace("import os\n", "import os\nimport sys\n", 1))
    c_edit = _claude_call(c, "Edit", {"file_path": "main.py", "old_string": "import os\n",
                                      "new_string": "import os\nimport sys\n"}, "The file has been updated.")

    # by hand: greet's two lines moved to the end
    body = main.read_text()
    block = 'def greet(name):\n    return f"hello, {name}!"\n'
    main.write_text(body.replace(block, "") + "\n\n" + block)

    report = importing.import_paths(store, [a.write(tmp_path / "claude"), c.write(tmp_path / "claude"),
                                            b.write(tmp_path / "codex")])
    assert report.bad_lines == 0

    def call_id(line: dict) -> str:  # the event of a transcript's line (its uuid is in its payload)
        return next(e.id for s in report.sessions for e in store.branch_view(s)
                    if e.kind == "tool_call" and line["uuid"] in e.payload)

    w, e1, e2 = (call_id(x) for x in (a_write, a_edit, c_edit))
    patch = next(e.id for s in report.sessions for e in store.branch_view(s)
                 if e.kind == "tool_call" and "*** Begin Patch" in e.payload)

    result = store.blame(str(main))
    now = main.read_text().splitlines()
    truth = {  # each line's author: the call whose edit wrote its text (None: nobody; a by-hand change noted)
        "import os": w, "import sys": e2, "def main():": w, '    for who in ("world", "codex"):': patch,
        "        print(greet(who))": patch, "def shout(name):": patch,
        '    return greet(name).upper() + "!!"': patch,  # changed since by someone else
        "# kept by hand": None, "def greet(name):": w, '    return f"hello, {name}!"': e1,
    }
    got = {line.text: (result.changes[line.change].event_id if line.change is not None else None) for line in result.lines}
    for text_, author in truth.items():
        assert got[text_] == author, (text_, [(c.tool, c.op, c.event_id[:8], c.applied) for c in result.changes],
                                      [(x.text, x.change, x.note) for x in result.lines])
    right = sum(1 for line in result.lines if line.text.strip() and got[line.text] == truth.get(line.text))
    written = sum(1 for line in now if line.strip())
    assert right / written >= 0.95
    by_text = {line.text: line for line in result.lines}
    assert by_text['    return greet(name).upper() + "!!"'].note == blame.CHANGED
    assert 0.5 <= by_text['    return greet(name).upper() + "!!"'].confidence < 1
    assert by_text["def greet(name):"].note == blame.MOVED and by_text["import sys"].confidence == 1.0
    # the history: through the rename, in time order, each tool's
    assert [(ch.tool, ch.op) for ch in result.changes] == [
        ("claude_code", "write"), ("claude_code", "replace"), ("codex", "patch"), ("claude_code", "rename"),
        ("claude_code", "replace")]
    # commits linked both ways: the session's change → its commit; git's commit of a line → the session
    sha = git(repo, "rev-parse", "HEAD~0").strip()
    assert result.changes[0].commit == sha[:7] and result.changes[2].commit == ""
    assert all(line.commit in ("", sha) for line in result.lines)  # (main.py is not committed after the move)
    # the file as a change left it: known from the first write on
    assert result.states[0] == A_WRITE and 'hello, {name}!' in result.states[1]
    # util.py: Codex's Add File
    util = store.blame(str(repo / "util.py"))
    assert [(line.text, util.changes[line.change].tool) for line in util.lines] == [("X = 1", "codex")]


def test_a_line_committed_by_an_agent_is_its_sessions_even_without_its_edit(store, tmp_path):
    """An agent that wrote the file with a shell (`cat > …`) leaves no edit to replay: git blame's commit, made by
    its shell call, links the line to the session."""
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    repo = _repo(tmp_path)
    (repo / "notes.txt").write_text("written by a heredoc\n")
    git(repo, "add", "-A")
    out = git(repo, "commit", "-m", "notes")
    t = Transcript(cwd=str(repo))
    t.user("write notes")
    _claude_call(t, "Bash", {"command": "cat > notes.txt <<EOF\nwritten by a heredoc\nEOF\ngit add -A && git commit -m notes"},
                 out)
    importing.import_paths(store, [t.write(tmp_path / "claude")])
    result = store.blame(str(repo / "notes.txt"))
    line = result.lines[0]
    assert result.changes[line.change].session_id == t.session_id and line.note == "committed by the session"


# -- every tool's edit shapes ---------------------------------------------------------------

def test_edit_shapes_of_the_other_tools():
    assert [(o.kind, o.old, o.new) for o in edits.ops_of(Call("replace", {
        "file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2", "instruction": "bump"}))] == \
        [("replace", "x = 1", "x = 2")]  # Gemini CLI
    assert [o.kind for o in edits.ops_of(Call("write_file", {"file_path": "/w/a.py", "content": "x\n"}))] == ["write"]
    multi = edits.ops_of(Call("multiedit", {"file_path": "a.go", "edits": [
        {"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d", "replace_all": True}]}))
    assert [(o.old, o.new, o.every) for o in multi] == [("a", "b", False), ("c", "d", True)]  # Crush, Claude Code
    cline = edits.ops_of(Call("replace_in_file", {"absolutePath": "/w/c.json", "diff":
                              "------- SEARCH\n\t{\n\t\"a\": 1\n=======\n\t{\n\t\"a\": 2\n+++++++ REPLACE\n"}))
    assert [(o.path, o.old, o.new) for o in cline] == [("/w/c.json", '\t{\n\t"a": 1', '\t{\n\t"a": 2')]
    older = edits.ops_of(Call("replace_in_file", {"path": "c.txt", "diff":
                              "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE"}))
    assert [(o.old, o.new) for o in older] == [("old", "new")]
    assert edits.ops_of(Call("write_to_file", {"absolutePath": "/w/n.md", "content": "# n\n"}))[0].kind == "write"
    oh = edits.ops_of(Call("str_replace_editor", {"path": "/workspace/g.py", "content": "", "start": "1", "end": "-1",
                           "translated_ipython_code": "print(file_editor(**{'command': 'create', 'path': "
                                                      "'/workspace/g.py', 'file_text': 'import random\\n'}))"}))
    assert [(o.kind, o.path, o.new) for o in oh] == [("write", "/workspace/g.py", "import random\n")]  # OpenHands
    oh2 = edits.ops_of(Call("str_replace_editor", {"command": "str_replace", "path": "/w/g.py", "old_str": "a",
                                                   "new_str": "b"}))
    assert [(o.kind, o.old, o.new) for o in oh2] == [("replace", "a", "b")]
    heredoc = edits.ops_of(Call("shell", {"command": ["bash", "-lc", "applypatch << 'PATCH'\n" + PATCH + "PATCH"]}))
    assert [(o.kind, o.path) for o in heredoc] == [("patch", "app.py"), ("write", "util.py")]  # Codex, older
    assert [(o.path, o.to) for o in edits.ops_of(Call("Bash", {"command": "git mv -f a.py b/c.py && pytest"}))] == \
        [("a.py", "b/c.py")]
    aider = edits.aider_ops("Here:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
                            "\nnew.py\n```python\n<<<<<<< SEARCH\n=======\nprint(1)\n>>>>>>> REPLACE\n```")
    assert [(o.kind, o.path, o.old, o.new) for o in aider] == [("replace", "src/app.py", "x = 1\n", "x = 2\n"),
                                                               ("write", "new.py", "", "print(1)\n")]
    assert edits.absolute("src/a.py", "/w/r") == "/w/r/src/a.py"
    assert edits.absolute("src\\a.py", "C:\\w\\r") == "C:\\w\\r\\src\\a.py"
    assert edits.absolute("../../etc/x", "/w/r") == "/etc/x"  # normalised (only ever a name to match)


def test_the_corpus_shapes_read(store, corpus):
    """Cline's and OpenHands' edits as the corpus holds them: their files' operations found."""
    report = importing.import_paths(store, [corpus / "cline", corpus / "openhands"])
    sessions = set(report.sessions)
    from sessionscope.store.schema import FILE_TOUCH
    store.vitals(sorted(sessions))
    with store.reader() as conn:
        rows = conn.execute(FILE_TOUCH.select()).all()
    ops = {(r.op, edits.name_of(r.path)) for r in rows}
    assert ("write", "game_2048.py") in ops  # OpenHands' create, from the action's file_editor call
    assert any(op == "replace" and name == "CardDataJSON.txt" for op, name in ops)  # Cline's replace_in_file
    assert json.dumps(sorted(ops))  # (readable as a list)


def test_a_cline_write_names_its_file():
    """#60: Cline's write_to_file names its file `absolutePath`: its card said "Write  (+11 −0)"."""
    from sessionscope.history import cards
    call = cards.Call("write_to_file", {"absolutePath": "/work/app/ActionSystem.cs", "content": "a\nb\n"})
    assert cards.summary(call).startswith("Write /work/app/ActionSystem.cs (+2")
