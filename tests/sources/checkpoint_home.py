"""A Claude Code home with file checkpoints in the real layout (snapshot lines as in the corpus,
backups in ~/.claude/file-history/<session>/<hash>@v<n>), and the project folder they describe."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from tests.sources.claude_factory import Transcript


def snapshot(t: Transcript, prompt: str, tracked: dict, update: bool) -> dict:
    """A file-history-snapshot line: `tracked` maps path → (backupFileName | None, version)."""
    line = {"type": "file-history-snapshot", "messageId": prompt if not update else f"upd-{len(t.lines)}",
            "snapshot": {"messageId": prompt, "timestamp": "2026-03-01T09:00:00.000Z", "trackedFileBackups": {
                p: {"backupFileName": name, "version": v, "backupTime": "2026-03-01T09:00:01.000Z"}
                for p, (name, v) in tracked.items()}},
            "isSnapshotUpdate": update}
    t.lines.append(line)
    return line


@dataclass
class Home:
    claude: Path  # the .claude folder
    project: Path  # the session's cwd
    outside: Path  # a folder beside it
    t: Transcript
    prompts: dict[str, str]

    @property
    def history(self) -> Path:
        return self.claude / "file-history" / self.t.session_id


def build(tmp: Path) -> Home:
    """Two prompts. Turn 1 edits a.py (mode 755) and creates new.py; turn 2 edits a.py again, b.py,
    an absolute path outside the project, ../escape.txt and link/x.txt (link → outside)."""
    claude, project, outside = tmp / "home" / ".claude", tmp / "proj", tmp / "outside"
    project.mkdir(parents=True)
    outside.mkdir()
    t = Transcript(cwd=str(project))
    backups: dict[str, bytes] = {}

    def backup(path: str, version: int, content: bytes) -> tuple[str, int]:
        name = f"{hashlib.sha256(path.encode()).hexdigest()[:16]}@v{version}"
        backups[name] = content
        return name, version

    p1 = t.user("make a.py say v2 and add new.py")["uuid"]
    snapshot(t, p1, {}, update=False)
    snapshot(t, p1, {"a.py": backup("a.py", 1, b"a v1\n")}, update=True)
    t.assistant(tool=("Edit", {"file_path": str(project / "a.py"), "old_string": "v1", "new_string": "v2"}))
    snapshot(t, p1, {"a.py": backup("a.py", 1, b"a v1\n"), "new.py": (None, 1)}, update=True)
    t.assistant(tool=("Write", {"file_path": str(project / "new.py"), "content": "new\n"}))
    t.assistant("done")
    p2 = t.user("now v3, b.py and the others")["uuid"]
    snapshot(t, p2, {"a.py": backup("a.py", 2, b"a v2\n"), "new.py": backup("new.py", 2, b"new\n")}, update=False)
    tracked = {"a.py": backup("a.py", 2, b"a v2\n"), "new.py": backup("new.py", 2, b"new\n"),
               "b.py": backup("b.py", 1, b"b v1\n"), str(outside / "o.txt"): backup("o", 1, b"o v1\n"),
               "../escape.txt": backup("escape", 1, b"e v1\n"), "link/x.txt": backup("x", 1, b"x v1\n")}
    snapshot(t, p2, tracked, update=True)
    t.assistant("edited them all")
    t.write(claude / "projects" / "-proj")
    history = claude / "file-history" / t.session_id
    history.mkdir(parents=True)
    for name, content in backups.items():
        (history / name).write_bytes(content)
    # the disk now: after both turns
    (project / "a.py").write_bytes(b"a v3\n")
    os.chmod(project / "a.py", 0o755)
    (project / "new.py").write_bytes(b"new, edited\n")
    (project / "b.py").write_bytes(b"b v2\n")
    (outside / "o.txt").write_bytes(b"o v2\n")
    (tmp / "escape.txt").write_bytes(b"e v2\n")
    (project / "link").symlink_to(outside)
    (outside / "x.txt").write_bytes(b"x v2\n")
    return Home(claude, project, outside, t, {"p1": p1, "p2": p2})
