"""`sessionscope blame FILE[:LINE[-LINE]] [--json]`: which session, and which of its events, wrote each line of a
file (sessionscope.insight.blame); `sessionscope commits [FOLDER] [--limit N] [--json]`: the repository's `git log`, each
commit an agent's shell made named with its session."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess

from sessionscope.cli.output import out, terminal
from sessionscope.errors import InvalidInput, NotFound

_RANGE = re.compile(r"^(.*):(\d+)(?:-(\d+))?$")


def split_range(arg: str) -> tuple[str, int, int | None]:
    """FILE, FILE:12 or FILE:12-20 → (file, first line, last line or None); a file that exists by the whole name
    (`a:1` is a name a Unix file may have) is that file."""
    m = _RANGE.match(arg)
    if m is None or os.path.exists(arg):
        return arg, 1, None
    first, last = int(m[2]), int(m[3]) if m[3] else int(m[2])
    if first < 1 or last < first:
        raise InvalidInput(f"lines {m[2]}-{m[3] or m[2]}: give FILE:FIRST-LAST, counting from 1")
    return m[1], first, last


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else ""


def blame(store, args):
    path, first, last = split_range(args.file)
    if not os.path.isfile(path):
        raise NotFound(f"no file {path!r}")
    result = store.blame(path)
    lines = [line for line in result.lines if line.number >= first and (last is None or line.number <= last)]
    if last is not None and not lines:
        raise InvalidInput(f"{path} has {len(result.lines)} lines: none in {first}-{last}")
    changes = result.changes

    def row(line) -> dict:
        c = changes[line.change] if line.change is not None else None
        return {"number": line.number, "text": line.text, "session": c.session_id if c else None,
                "event": c.event_id if c else None, "tool": c.tool if c else None, "ts": c.ts if c else None,
                "op": c.op if c else None, "confidence": line.confidence, "note": line.note, "commit": line.commit}

    def as_text() -> str:
        width = len(str(lines[-1].number)) if lines else 1
        rows = []
        for line in lines:
            c = changes[line.change] if line.change is not None else None
            who = f"{c.session_id[:8]} {c.tool[:11]:<11} {_when(c.ts):<16}" if c else f"{'':8} {'':11} {'':16}"
            mark = "~" if line.note == "changed since by someone else" else "»" if line.note == "moved here" else \
                "c" if line.note.startswith("committed") else " "
            rows.append(f"{line.number:>{width}} {who} {mark} {terminal(line.text, mark=False)}")
        used = sorted({changes[x.change].session_id for x in lines if x.change is not None})
        titles = {c.session_id: c.title for c in changes}
        attributed = sum(1 for x in lines if x.change is not None)
        rows.append("")
        rows.append(f"{attributed} of {len(lines)} lines written by {len(used)} session(s); ~ changed since by "
                    "someone else, » moved here, c committed by the session (git blame)")
        rows += [f"  {sid[:8]}  {terminal(titles.get(sid) or '', mark=False)[:90]}" for sid in used]
        return "\n".join(rows)

    out(args, lambda: {"path": result.path, "repository": result.repository, "lines": [row(x) for x in lines],
                       "changes": [{"session": c.session_id, "event": c.event_id, "ts": c.ts, "op": c.op, "path": c.path,
                                    "from": c.other, "title": c.title, "tool": c.tool, "applied": c.applied,
                                    "added": c.added, "commit": c.commit} for c in changes]},
        as_text)
    return 0


def commits(store, args):
    from sessionscope.insight import blame as blame_mod
    folder = os.path.abspath(args.folder or ".")
    root = blame_mod.repository_root(os.path.join(folder, "x"))
    if not root:
        raise NotFound(f"{folder} is not in a git repository")
    try:
        log = subprocess.run(["git", "-C", root, "log", f"-n{max(1, args.limit)}", "--format=%H%x09%ct%x09%s"],
                             capture_output=True, text=True, timeout=60, errors="replace")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NotFound(f"git could not be run: {exc}") from None
    if log.returncode != 0:
        raise InvalidInput(f"git log failed: {log.stderr.strip()[:300]}")
    entries = [line.split("\t", 2) for line in log.stdout.splitlines() if line.count("\t") >= 2]
    linked = store.commit_sessions({sha for sha, _ts, _s in entries})
    titles = {sid: store.session(sid).title for sid, _e in linked.values()}
    rows = [{"sha": sha, "ts": float(ts), "subject": subject, "session": linked.get(sha, (None, None))[0],
             "event": linked.get(sha, (None, None))[1],
             "title": titles.get(linked[sha][0]) if sha in linked else None} for sha, ts, subject in entries]

    def as_text() -> str:
        lines = [f"{r['sha'][:10]} {_when(r['ts'])}  {(r['session'] or '')[:8]:<8}  "
                 f"{terminal(r['subject'], mark=False)[:70]}" for r in rows]
        made = sum(1 for r in rows if r["session"])
        return "\n".join([*lines, "", f"{made} of {len(rows)} commits made by an agent's session (its id beside them)"])
    out(args, rows, as_text)
    return 0
