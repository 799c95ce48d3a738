"""Which session wrote this line (#37): a file's history across every tool's edits, replayed, and each of its
current lines attributed to the latest edit that introduced its text.

The history is blame's index (`file_touch`, filled with the vital signs by sessionscope.insight.vitals): every write, edit,
patch, insert, delete and rename an agent's call made and that went through, found by the file's name and matched by
its path (the same absolute path, or the same path below the repository's root: a checkout elsewhere, another
machine). The edits are replayed in time order: a whole-file write makes the file known, and from then on each edit
applies to it, so a line keeps the edit that introduced its text until another changes it (an edit that rewrites a
line into the same text does not take it). An edit that does not apply (the file was changed by hand meanwhile, or
it was never known) still says which lines it wrote.

The file as it is now is then aligned with the replayed one, whitespace aside: a line found unchanged is the edit's
(confidence 1); a line in the place of one an edit wrote but with other text was "changed since by someone else"
(confidence: how much of it is still the same); a line found elsewhere (a moved block) is the latest edit that wrote
that text. Lines no agent wrote are nobody's. Commits an agent's shell made are linked both ways (commit_link): a
line git blames on such a commit is that session's.
"""

from __future__ import annotations

import difflib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.insight import edits, vitals
from sessionscope.store.schema import COMMIT_LINK, EVENT, FILE_TOUCH, SESSION, SOURCE

CHANGED = "changed since by someone else"
MOVED = "moved here"
SIMILAR = 0.5  # a line at least this much like the one an edit wrote there is that edit's, changed since
MAX_BYTES = 20 << 20  # a larger file is not read (its history is still shown)
TRIVIAL = 3  # a line this short ("}", "end", "") is only attributed where it lines up, never found elsewhere


def norm(line: str) -> str:
    """A line as blame compares it: whitespace does not count."""
    return " ".join(line.split())


@dataclass
class Change:
    """One operation on the file, in the order they happened."""

    session_id: str
    event_id: str
    ts: float
    seq: int
    op: str
    path: str
    other: str = ""  # a rename's old path
    title: str = ""
    tool: str = ""
    applied: bool | None = None  # replayed onto the known file (None: not replayed, such as a rename)
    added: int = 0  # lines it introduced
    commit: str = ""  # a commit of its session that came after it (the first), when one did


@dataclass
class Line:
    number: int
    text: str
    change: int | None = None  # index in Blame.changes
    confidence: float = 0.0
    note: str = ""  # CHANGED, MOVED, or "committed by the session" (git blame's commit, linked)
    commit: str = ""  # git's commit for the line, where the file is in a repository


@dataclass
class Blame:
    path: str
    lines: list[Line]
    changes: list[Change]
    states: dict[int, str] = field(default_factory=dict)  # change index → the file as it left it (where known)
    repository: str = ""
    here: bool = True  # the file is on this machine now (else its history alone)

    def by_agents(self) -> int:
        return sum(1 for line in self.lines if line.change is not None)


# -- the history ----------------------------------------------------------------------------

def repository_root(path: str) -> str:
    """The git repository's root folder holding `path` ('' when none)."""
    p = Path(path).resolve().parent
    for folder in (p, *p.parents):
        if (folder / ".git").exists():
            return str(folder)
    return ""


def _slashed(path: str) -> str:
    return path.replace("\\", "/")


def _below(path: str, root: str) -> str:
    """The path below the repository's root ('' outside it, or without one: another drive, say)."""
    if not root:
        return ""
    try:
        rel = _slashed(os.path.relpath(path, root))
    except ValueError:  # (Windows: another drive)
        return ""
    return "" if rel.startswith("..") else rel


def same_file(candidate: str, target: str, below_root: str) -> bool:
    """Whether a path a transcript names is the file: the same absolute path, or the same path below the
    repository's root (the repository checked out elsewhere)."""
    c = _slashed(candidate)
    return c == _slashed(target) or bool(below_root) and (c == below_root or c.endswith("/" + below_root))


def history(conn: Connection, path: str, root: str = "") -> list[Change]:
    """Every operation the index holds on the file, a rename's earlier name followed back, in time order."""
    target = os.path.abspath(path)
    below = _below(target, root)
    out: list[Change] = []
    wanted = [(target, below, float("inf"))]  # (path, below the root, before this time)
    seen: set[str] = set()
    while wanted:
        target, below, before = wanted.pop()
        if target in seen:
            continue
        seen.add(target)
        q = (sa.select(FILE_TOUCH.c.session_id, FILE_TOUCH.c.event_id, FILE_TOUCH.c.ts, FILE_TOUCH.c.seq,
                       FILE_TOUCH.c.op, FILE_TOUCH.c.path, FILE_TOUCH.c.other, SESSION.c.title, SOURCE.c.kind)
             .select_from(FILE_TOUCH.join(SESSION, SESSION.c.id == FILE_TOUCH.c.session_id)
                          .outerjoin(SOURCE, SOURCE.c.id == SESSION.c.source_id))
             .where(FILE_TOUCH.c.name == edits.name_of(target)))
        for sid, eid, ts, seq, op, p, other, title, kind in conn.execute(q):
            if ts > before or not same_file(p, target, below):
                continue
            out.append(Change(sid, eid, ts, seq, op, p, other, title or "", kind or "native"))
            if op == "rename" and other:  # its history under the old name, up to the rename
                wanted.append((other, _below(other, root) if os.path.isabs(other) else "", ts))
    out.sort(key=lambda c: (c.ts, c.session_id, c.seq))
    return out


# -- the replay -----------------------------------------------------------------------------

class Replay:
    """The file as the edits leave it, each line with the change that introduced it; None while not known."""

    def __init__(self) -> None:
        self.lines: list[str] | None = None
        self.origin: list[int | None] = []
        self.wrote: dict[str, int] = {}  # a line's text (normalised) → the latest change that introduced it

    def _introduce(self, lines: list[str], ci: int) -> int:
        n = 0
        for line in lines:
            key = norm(line)
            if len(key) >= TRIVIAL:
                self.wrote[key] = ci
            n += 1
        return n

    def _splice(self, start: int, end: int, new: list[str], ci: int) -> int:
        """Lines start..end (exclusive) become `new`; those that stay the same text keep their change."""
        old, old_origin = self.lines[start:end], self.origin[start:end]
        origin: list[int | None] = [ci] * len(new)
        sm = difflib.SequenceMatcher(None, [norm(x) for x in old], [norm(x) for x in new], autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                origin[j1:j2] = old_origin[i1:i2]
        self.lines[start:end] = new
        self.origin[start:end] = origin
        return self._introduce([line for line, o in zip(new, origin) if o == ci], ci)

    def write(self, text: str, ci: int) -> int:
        new = text.splitlines()
        if self.lines is None:
            self.lines, self.origin = list(new), [ci] * len(new)
            return self._introduce(new, ci)
        return self._splice(0, len(self.lines), new, ci)

    def replace(self, old: str, new: str, every: bool, ci: int) -> tuple[bool, int]:
        """(applied, lines introduced): applied where the file is known and holds `old`."""
        if self.lines is not None:
            text = "\n".join(self.lines)
            at = text.find(old) if old else -1
            if at < 0 and old.endswith("\n"):
                old, new = old[:-1], new[:-1] if new.endswith("\n") else new
                at = text.find(old)
            if at >= 0:
                if every:
                    return True, self._splice(0, len(self.lines), text.replace(old, new).split("\n"), ci)
                first = text.count("\n", 0, at)
                last = text.count("\n", 0, at + len(old))
                line_start = text.rfind("\n", 0, at) + 1
                line_end = text.find("\n", at + len(old))
                line_end = len(text) if line_end < 0 else line_end
                changed = text[line_start:at] + new + text[at + len(old):line_end]
                return True, self._splice(first, last + 1, changed.split("\n"), ci)
        introduced = set(map(norm, new.splitlines())) - set(map(norm, old.splitlines()))
        return False, self._introduce([x for x in new.splitlines() if norm(x) in introduced], ci)

    def patch(self, hunks: list[tuple[list[str], list[str]]], ci: int) -> tuple[bool, int]:
        applied, added, at = True, 0, 0
        for before, after in hunks:
            start = self._find(before, at) if self.lines is not None else None
            if start is None:
                applied = False
                introduced = set(map(norm, after)) - set(map(norm, before))
                added += self._introduce([x for x in after if norm(x) in introduced], ci)
                continue
            added += self._splice(start, start + len(before), list(after), ci)
            at = start + len(after)
        return applied and self.lines is not None, added

    def _find(self, block: list[str], at: int) -> int | None:
        if not block:
            return len(self.lines) if not self.lines else None
        want = [norm(x) for x in block]
        have = [norm(x) for x in self.lines]
        for start in [*range(at, len(have) - len(want) + 1), *range(0, min(at, len(have) - len(want) + 1))]:
            if have[start:start + len(want)] == want:
                return start
        return None

    def insert(self, text: str, after_line: int, ci: int) -> tuple[bool, int]:
        new = text.splitlines()
        if self.lines is None or not 0 <= after_line <= len(self.lines):
            return False, self._introduce(new, ci)
        return True, self._splice(after_line, after_line, new, ci)

    def delete(self) -> None:
        self.lines, self.origin = [], []


def _ops(event, change: Change, cwd: str, aider: bool) -> list[edits.Op]:
    from sessionscope.history import cards
    if aider and event.kind == "message":
        ops = edits.aider_ops(event.text)
    else:
        ops = [op for c in cards.calls(event.payload) for op in edits.ops_of(c)]
    # this file's own (a call can touch several): matched as the index matched it
    out = []
    for op in ops:
        p = edits.absolute(op.to if op.kind == "rename" else op.path, cwd)
        if _slashed(p) == _slashed(change.path):
            out.append(op)
    return out


def replay(conn: Connection, changes: list[Change]) -> tuple[Replay, dict[int, str]]:
    """The file as the changes leave it; and as each left it, where known."""
    from sessionscope.history.branch import events_by_ids
    events = {e.id: e for e in events_by_ids(conn, sorted({c.event_id for c in changes}))}
    cwd = dict(conn.execute(sa.select(SESSION.c.id, SESSION.c.cwd)
                            .where(SESSION.c.id.in_(sorted({c.session_id for c in changes})))).all())
    r, states = Replay(), {}
    for ci, c in enumerate(changes):
        e = events.get(c.event_id)
        if e is None:
            continue
        if c.op == "rename":
            c.applied = None
            continue
        if c.op == "delete":
            r.delete()
            c.applied = True
            continue
        for op in _ops(e, c, cwd.get(c.session_id) or "", c.tool == "aider"):
            if op.kind == "write":
                c.added += r.write(op.new, ci)
                ok = True
            elif op.kind == "replace":
                ok, n = r.replace(op.old, op.new, op.every, ci)
                c.added += n
            elif op.kind == "patch":
                ok, n = r.patch(op.hunks, ci)
                c.added += n
            elif op.kind == "insert":
                ok, n = r.insert(op.new, op.insert_line or 0, ci)
                c.added += n
            else:
                continue
            c.applied = ok if c.applied is None else c.applied and ok
        if r.lines is not None:
            states[ci] = "\n".join(r.lines) + "\n"
    return r, states


# -- the file as it is now ------------------------------------------------------------------

def attribute(r: Replay, now: list[str]) -> list[Line]:
    """Each current line's change: aligned with the replayed file, else found by its text (a moved block)."""
    out = [Line(i + 1, text) for i, text in enumerate(now)]
    keys = [norm(x) for x in now]

    def found(i: int) -> None:
        ci = r.wrote.get(keys[i]) if len(keys[i]) >= TRIVIAL else None
        if ci is not None:
            out[i].change, out[i].confidence, out[i].note = ci, 0.9, MOVED

    if r.lines is None:
        for i in range(len(now)):
            found(i)
            if out[i].change is not None:
                out[i].note, out[i].confidence = "", 0.9  # no known file to line up with: found by its text
        return out
    sm = difflib.SequenceMatcher(None, [norm(x) for x in r.lines], keys, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                if (ci := r.origin[i1 + k]) is not None:
                    out[j1 + k].change, out[j1 + k].confidence = ci, 1.0
            continue
        for k in range(j2 - j1):
            j = j1 + k
            i = i1 + k if tag == "replace" and i1 + k < i2 else None
            if keys[j] in r.wrote and len(keys[j]) >= TRIVIAL:
                found(j)  # the text an edit wrote, moved here: that edit's, whatever stood here before
                continue
            if i is not None and (ci := r.origin[i]) is not None:
                ratio = difflib.SequenceMatcher(None, norm(r.lines[i]), keys[j]).ratio()
                if ratio >= SIMILAR:
                    out[j].change, out[j].confidence, out[j].note = ci, round(ratio, 2), CHANGED
    return out


def git_lines(path: str, root: str) -> list[str]:
    """Each line's commit as `git blame` says ('' for a line not committed yet); [] without git or a repository."""
    if not root:
        return []
    try:
        done = subprocess.run(["git", "-C", root, "blame", "--porcelain", "--", os.path.relpath(path, root)],
                              capture_output=True, text=True, timeout=30, errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    shas: list[str] = []
    for line in done.stdout.splitlines():
        head = line.split(" ")
        if len(head) >= 3 and len(head[0]) == 40 and all(ch in "0123456789abcdef" for ch in head[0]) and \
                head[1].isdigit() and head[2].isdigit():
            shas.append("" if head[0] == "0" * 40 else head[0])
    return shas


def commits_of(conn: Connection, shas: set[str]) -> dict[str, tuple[str, str]]:
    """{full sha: (session, event)} for the commits an agent's shell made (matched by their first 7 characters)."""
    if not shas:
        return {}
    by_short: dict[str, list[str]] = {}
    for sha in shas:
        by_short.setdefault(sha[:7], []).append(sha)
    out = {}
    for short, sha, sid, eid in conn.execute(sa.select(COMMIT_LINK.c.short, COMMIT_LINK.c.sha, COMMIT_LINK.c.session_id,
                                                       COMMIT_LINK.c.event_id)
                                             .where(COMMIT_LINK.c.short.in_(sorted(by_short)))):
        for full in by_short.get(short, []):
            if full.startswith(sha):
                out[full] = (sid, eid)
    return out


def blame(conn: Connection, path: str, text: str | None = None) -> Blame:
    """The file at `path` (read now, or `text`), each line attributed; the history behind it. Fold the sessions
    first (Store.blame does), so the index is current."""
    path = os.path.abspath(path)
    here = True
    if text is None:  # (a path a transcript named may be anything: only a regular file of a sane size is read)
        here = os.path.isfile(path) and os.path.getsize(path) <= MAX_BYTES
        text = Path(path).read_text(encoding="utf-8", errors="replace") if here else ""
    root = repository_root(path)
    changes = history(conn, path, root)
    r, states = replay(conn, changes)
    _commits_after(conn, changes)
    lines = attribute(r, text.splitlines())
    shas = git_lines(path, root)
    linked = commits_of(conn, {s for s in shas if s})
    for line, sha in zip(lines, shas):
        line.commit = sha
        if line.change is None and sha in linked:  # no edit of it known, but a session committed it
            sid, eid = linked[sha]
            changes.append(Change(sid, eid, 0.0, 0, "commit", path, title=_title(conn, sid)))
            line.change, line.confidence, line.note = len(changes) - 1, 0.8, "committed by the session"
    return Blame(path, lines, changes, states, root, here)


def _commits_after(conn: Connection, changes: list[Change]) -> None:
    """Each change's commit: the first its session's shell made after it (session → commit)."""
    sids = sorted({c.session_id for c in changes})
    if not sids:
        return
    made: dict[str, list[tuple[int, str]]] = {}
    q = (sa.select(COMMIT_LINK.c.session_id, EVENT.c.seq, COMMIT_LINK.c.sha)
         .select_from(COMMIT_LINK.join(EVENT, EVENT.c.id == COMMIT_LINK.c.event_id))
         .where(COMMIT_LINK.c.session_id.in_(sids)).order_by(EVENT.c.seq))
    for sid, seq, sha in conn.execute(q):
        made.setdefault(sid, []).append((seq, sha))
    for c in changes:
        c.commit = next((sha for seq, sha in made.get(c.session_id, []) if seq > c.seq), "")


def _title(conn: Connection, session_id: str) -> str:
    return conn.execute(sa.select(SESSION.c.title).where(SESSION.c.id == session_id)).scalar() or ""


def stale_sessions(conn: Connection) -> list[str]:
    """The sessions whose vital signs (and so blame's index) are not folded as they stand."""
    from sessionscope.store.schema import VITALS_CACHE
    q = (sa.select(SESSION.c.id).select_from(SESSION.outerjoin(VITALS_CACHE, VITALS_CACHE.c.session_id == SESSION.c.id))
         .where(sa.or_(VITALS_CACHE.c.session_id.is_(None), VITALS_CACHE.c.last_seq != SESSION.c.last_seq,
                       VITALS_CACHE.c.version != vitals.FOLD_VERSION)))
    return list(conn.execute(q).scalars())

