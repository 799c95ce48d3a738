"""Putting files back as they were: a preview, the restore, and its undo.

A restore is planned first (`plan`): every path it would write, create or delete,
with the bytes on disk now and the bytes wanted, and where each path lies. A path
outside the session's folder is listed apart and left out unless chosen; a path
that only seems inside (it resolves outside through `..` or a symlink) is never
written unless named explicitly. `apply` keeps the current contents of everything
it will overwrite or delete in the store first, then writes each file atomically
(a temporary file beside it, renamed over it) with the mode it had, and records
the restore in the audit log with what it saved, so `undo_last` can put it back.
"""

from __future__ import annotations

import difflib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa

from sessionscope.errors import NotFound, Refused
from sessionscope.safety import audit
from sessionscope.store import blobs, partfiles
from sessionscope.store.schema import AUDIT

ACTION = "restore-files"
UNDO = "restore-files.undo"
REDO = "restore-files.redo"  # an undo taken back: the files as the undo found them
STARTED = "restore-files.started"  # written before the first file is touched; its outcome entry follows
DIFF_MAX_BYTES = 2 << 20  # larger files are compared, not diffed


@dataclass(frozen=True)
class Wanted:
    """What a path should hold: bytes, or None for "absent"; `available` False when the bytes are lost."""

    path: str  # as the tool recorded it (relative to cwd, or absolute)
    content: bytes | None
    available: bool = True
    source: str = ""  # where the wanted bytes come from, for the preview (e.g. "a.py@v2")


@dataclass(frozen=True)
class FileChange:
    path: str
    target: str  # the absolute path written (not resolved through symlinks)
    action: str  # overwrite, create, delete, unchanged, unavailable
    inside: bool  # the path names a place in the session's folder
    escapes: str  # why it resolves outside the folder after all ("" when it does not)
    current: bytes | None
    wanted: bytes | None
    source: str = ""

    @property
    def default(self) -> bool:
        """Chosen unless the user says otherwise: a real change inside the folder that does not escape it."""
        return self.inside and not self.escapes and self.action in ("overwrite", "create", "delete")

    def diff(self, context: int = 3) -> str:
        """A unified diff from the file now to the restored file (text files of reasonable size)."""
        a, b = self.current or b"", self.wanted or b""
        if len(a) > DIFF_MAX_BYTES or len(b) > DIFF_MAX_BYTES:
            return f"(large file: {len(a):,} → {len(b):,} bytes)\n"
        if b"\0" in a[:8192] or b"\0" in b[:8192]:
            return f"(binary file: {len(a):,} → {len(b):,} bytes)\n"
        return "".join(difflib.unified_diff(
            a.decode("utf-8", "replace").splitlines(keepends=True), b.decode("utf-8", "replace").splitlines(keepends=True),
            f"now/{self.path}", f"restored/{self.path}", n=context))


@dataclass
class RestorePlan:
    session_id: str
    event_id: str  # the event the user chose
    prompt_id: str  # the prompt whose files are restored
    cwd: str
    changes: list[FileChange] = field(default_factory=list)
    no_folder: str = ""  # why the session's folder is no folder here (`/`, the home folder, missing): nothing is ticked
    prompt_text: str = ""  # the prompt's words and time, to name it by (set by sessionscope.ops.restore_plan)
    prompt_ts: float | None = None

    def prompt_named(self, width: int = 60) -> str:
        """The prompt as a person knows it: “its first words…” (and when), or its id when it is unknown."""
        words = " ".join(self.prompt_text.split())
        if not words:
            return f"prompt {self.prompt_id[:8]}"
        words = words if len(words) <= width else words[:width - 1].rstrip() + "…"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.prompt_ts)) if self.prompt_ts else ""
        return f"the prompt “{words}”" + (f" ({when})" if when else "")

    def default_selection(self) -> set[str]:
        return {c.path for c in self.changes if c.default}

    def by_path(self) -> dict[str, FileChange]:
        return {c.path: c for c in self.changes}


def _under(path: str, folder: str) -> bool:
    return bool(folder) and (path == folder or path.startswith(folder.rstrip(os.sep) + os.sep))


def _read(target: str) -> bytes | None:
    try:
        with open(target, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise Refused(f"{target} is a folder now; a file cannot be restored over it") from None


def no_folder(cwd: str | None) -> str:
    """Why `cwd` (read from a transcript) cannot be the folder a restore trusts, or "" when it can: `/` or the
    home folder would make every absolute path "in the folder", and a folder missing here holds nothing."""
    if not cwd:
        return "the session names no folder"
    folder = os.path.normpath(cwd)
    if folder == os.path.normpath(os.path.abspath(os.sep)) or os.path.dirname(folder) == folder:
        return f"the session's folder is {folder} (the whole disk)"
    if folder == os.path.normpath(os.path.expanduser("~")):
        return f"the session's folder is {folder} (your home folder)"
    if not os.path.isdir(folder):
        return f"the session's folder {folder} is not on this machine"
    return ""


def plan(session_id: str, event_id: str, prompt_id: str, cwd: str, wanted: list[Wanted],
         chosen_folder: bool = False) -> RestorePlan:
    """What a restore of `wanted` would do, path by path (nothing is written). The session's own folder is
    trusted only when it is a real project folder here (`no_folder`); else no file is ticked, relative paths
    cannot be placed, and the user names files or restores into a folder of their choosing (`chosen_folder`:
    `cwd` is that folder, made if missing)."""
    why = "" if chosen_folder else no_folder(cwd)
    out = RestorePlan(session_id, event_id, prompt_id, cwd, no_folder=why)
    folder = os.path.normpath(cwd) if cwd and not why else ""
    real_folder = os.path.realpath(folder) if folder else ""
    for w in sorted(wanted, key=lambda w: w.path):
        if why and not os.path.isabs(w.path):
            out.changes.append(FileChange(w.path, w.path, "unavailable", False, "", None, None,
                                          "relative to a folder that is not here: restore into another folder"))
            continue
        target = os.path.normpath(w.path if os.path.isabs(w.path) else os.path.join(folder or "/", w.path))
        inside = _under(target, folder) or (not os.path.isabs(w.path) and bool(folder))
        escapes = ""
        if inside and not _under(target, folder):
            escapes = "leaves the folder through '..'"
        elif inside and not _under(os.path.realpath(target), real_folder):
            escapes = "leads outside the folder through a symbolic link"
        try:
            current = _read(target)
        except Refused:
            current = None
            out.changes.append(FileChange(w.path, target, "unavailable", inside, escapes, None, None,
                                          "a folder stands where the file was"))
            continue
        if not w.available:
            action = "unavailable"
        elif w.content is None:
            action = "delete" if current is not None else "unchanged"
        elif current is None:
            action = "create"
        else:
            action = "unchanged" if current == w.content else "overwrite"
        out.changes.append(FileChange(w.path, target, action, inside, escapes, current, w.content, w.source))
    return out


def _write_atomically(target: str, data: bytes, mode: int | None) -> None:
    fd, tmp = partfiles.temporary(Path(target))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode(target: str) -> int | None:
    try:
        return stat.S_IMODE(os.lstat(target).st_mode)
    except FileNotFoundError:
        return None


def _apply(store, session_id: str, event_id: str | None, changes: list[FileChange], action: str,
           extra: dict) -> dict:
    """Save what is there now, record what will be written (before the first file is touched: a restore
    killed halfway can be undone), write the wanted bytes, audit the outcome; returns the audit detail."""
    for c in changes:
        if c.action == "unavailable":
            raise Refused(f"{c.path}: its content at that point is gone (neither in the store nor on disk)")
    now = [(c, _read(c.target), _mode(c.target)) for c in changes]  # what is there at this moment
    saved = store.write(blobs.put_many, [data for _, data, _ in now if data is not None]
                        + [c.wanted for c in changes if c.wanted is not None])
    it = iter(saved)
    befores = [next(it) if data is not None else None for _, data, _ in now]
    afters = [next(it) if c.wanted is not None else None for c in changes]
    planned = [{"path": c.path, "target": c.target, "before": before, "before_mode": mode, "after": after}
               for (c, _data, mode), before, after in zip(now, befores, afters)]
    started = audit.audited(store, STARTED, outcome="started", session_id=session_id, event_id=event_id,
                            detail={**extra, "of": action, "files": planned})
    files, failed = [], None
    for (c, data, mode), entry in zip(now, planned):
        try:
            if c.wanted is None:
                if data is not None:
                    os.unlink(c.target)
            else:
                _write_atomically(c.target, c.wanted, mode)
        except OSError as exc:
            failed = f"{c.path}: {exc}"
            break
        files.append(entry)
    detail = {**extra, "files": files, "started": started}
    if failed:
        detail["error"] = failed
    audit.audited(store, action, outcome="error" if failed else "ok", session_id=session_id, event_id=event_id,
                  detail=detail)
    if failed:
        exc = Refused(f"the restore stopped at {failed}; the {len(files)} file(s) written before it are "
                      "recorded and can be undone")
        exc.audited = True  # its entry, with the files written, is the one above
        raise exc
    return detail


def apply(store, restore: RestorePlan, selected: set[str]) -> dict:
    """Restore the chosen paths of a plan; returns what was done (as the audit log records it)."""
    missing = set(selected) - set(restore.by_path())
    if missing:
        raise Refused(f"not part of this restore: {', '.join(sorted(missing))}")
    lost = sorted(c.path for c in restore.changes if c.path in selected and c.action == "unavailable")
    if lost:  # refused whole, before anything is written
        why = {c.path: c.source if c.source.startswith(("damaged", "relative", "a folder"))
               else "gone: neither in the store nor on disk" for c in restore.changes}
        raise Refused("the content at that point cannot be had: " + "; ".join(f"{p} ({why[p]})" for p in lost))
    chosen = [c for c in restore.changes if c.path in selected and c.action in ("overwrite", "create", "delete")]
    if not chosen:
        raise Refused("nothing to restore: every chosen file already is as it was")
    return _apply(store, restore.session_id, restore.event_id, chosen, ACTION,
                  {"prompt": restore.prompt_id, "cwd": restore.cwd})


def _history(store, session_id: str) -> list[dict]:
    """The session's restores, undos and redos, newest first, each {id, action, ts, **detail}; a restore
    that was started and never finished (its process was killed) counts as a restore of every file it
    meant to write."""
    with store.reader() as conn:
        rows = conn.execute(sa.select(AUDIT.c.id, AUDIT.c.action, AUDIT.c.detail, AUDIT.c.ts).where(
            AUDIT.c.session_id == session_id, AUDIT.c.action.in_((ACTION, UNDO, REDO, STARTED)),
            AUDIT.c.outcome.in_(("ok", "error", "started"))).order_by(AUDIT.c.id.desc())).all()
    entries = [{"id": r.id, "action": r.action, "ts": r.ts, **json.loads(r.detail or "{}")} for r in rows]
    finished = {e.get("started") for e in entries if e["action"] != STARTED}
    out = []
    for e in entries:
        if e["action"] == STARTED:
            if e["id"] in finished:
                continue
            e = e | {"action": e.get("of", ACTION), "interrupted": True}
        out.append(e)
    return out


def last_restore(store, session_id: str) -> dict | None:
    """The newest restore (or redo) of this session that has not been undone."""
    undone = set()
    for e in _history(store, session_id):
        if e["action"] == UNDO:
            undone.add(e.get("undoes"))
        elif e["action"] in (ACTION, REDO) and e["id"] not in undone and e.get("files"):
            return e
    return None


def last_undo(store, session_id: str) -> dict | None:
    """The newest undo that a redo may take back: none once a restore came after it."""
    redone = set()
    for e in _history(store, session_id):
        if e["action"] == ACTION:
            return None
        if e["action"] == REDO:
            redone.add(e.get("redoes"))
        elif e["action"] == UNDO and e["id"] not in redone and e.get("files"):
            return e
    return None


@dataclass
class UndoPlan:
    """What an undo (or a redo) would write: each file back to what the entry found before it wrote, and the
    files changed on disk since (the user's edits, which the undo would overwrite: kept for a redo)."""

    entry: dict
    changes: list[FileChange]
    changed_since: list[str]
    redo: bool = False


def undo_plan(store, session_id: str, redo: bool = False) -> UndoPlan:
    entry = last_undo(store, session_id) if redo else last_restore(store, session_id)
    if entry is None:
        raise NotFound(f"no {'undo' if redo else 'restore'} of session {session_id} to {'redo' if redo else 'undo'}")
    changes, changed = [], []
    with store.reader() as conn:
        for f in entry["files"]:
            before = blobs.get(conn, f["before"]) if f["before"] else None
            after = blobs.get(conn, f["after"]) if f.get("after") else None
            current = _read(f["target"])
            if current != after and current != before:
                changed.append(f["path"])
            action = "unchanged" if current == before else "delete" if before is None \
                else "create" if current is None else "overwrite"
            changes.append(FileChange(f["path"], f["target"], action, True, "", current, before))
    return UndoPlan(entry, changes, changed, redo)


def apply_undo(store, session_id: str, plan: UndoPlan) -> dict:
    """Carry out an undo plan (recorded, and itself undoable: a redo puts back what it overwrote)."""
    entry = plan.entry
    extra = {"redoes": entry["id"]} if plan.redo else {"undoes": entry["id"]}
    changes = [c for c in plan.changes if c.action != "unchanged"]  # (a file a killed restore never reached)
    detail = _apply(store, session_id, None, changes, REDO if plan.redo else UNDO, extra)
    for f in entry["files"]:  # the mode the file had before the entry wrote it
        if f.get("before_mode") is not None and os.path.exists(f["target"]):
            os.chmod(f["target"], f["before_mode"])
    return detail


def undo_last(store, session_id: str) -> dict:
    """Put back what the last restore of this session overwrote or deleted (and remove what it created)."""
    return apply_undo(store, session_id, undo_plan(store, session_id))
