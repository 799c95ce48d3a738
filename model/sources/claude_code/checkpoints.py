"""Claude Code's file checkpoints: kept, read back, and turned into "the files at a prompt".

Claude Code backs up every file its edit tools touch: `file-history-snapshot`
lines map each tracked path to a backup `<hash>@v<n>` (null: the file did not
exist yet) in `~/.claude/file-history/<session id>/`, which it cleans up after
30 days. The importer keeps a copy of each backup in the store (sessionscope.store.blobs), so
a checkpoint outlives that cleanup; a backup still on disk is read from there.

"The files at prompt P" are, for each path tracked at or after P, the first
backup taken at or after P (snapshots in the order their prompts were written).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import NotFound
from sessionscope.sources.claude_code.backups import history_dirs, read_backup, read_prepared
from sessionscope.sources.claude_code.lines import CHECKPOINT_TYPES, checkpoint_entries, checkpoint_prompt
from sessionscope.store import blobs
from sessionscope.store.blob_codec import Prepared
from sessionscope.store.schema import CHECKPOINT_BACKUP, EVENT, SESSION


def capture(conn: Connection, wanted: set[tuple[str, str]], dirs: list[Path],
            prepared: dict[tuple[str, str], Prepared | None] | None = None) -> int:
    """Keep a copy of each (session, backup name) not kept yet; returns how many were copied.
    One lookup, one blob insert and one row insert for the whole batch (an import calls this per batch).
    `prepared`: backups an import's reader process read and compressed already (None: not there)."""
    if not wanted:
        return 0
    kept: dict[tuple[str, str], str | None] = {}
    for sid in {s for s, _ in wanted}:
        names = sorted(n for s, n in wanted if s == sid)
        for i in range(0, len(names), 500):
            kept.update(((sid, name), h) for name, h in conn.execute(
                sa.select(CHECKPOINT_BACKUP.c.backup_name, CHECKPOINT_BACKUP.c.blob_hash).where(
                    CHECKPOINT_BACKUP.c.session_id == sid, CHECKPOINT_BACKUP.c.backup_name.in_(names[i:i + 500]))))
    todo = [key for key in sorted(wanted) if not kept.get(key)]
    prepared = prepared or {}
    found = {key: item for key in todo
             if (item := prepared[key] if key in prepared else read_prepared(dirs, key)) is not None}
    hashes = dict(zip(found, blobs.put_prepared(conn, list(found.values()))))
    new_rows = [{"session_id": s, "backup_name": n, "blob_hash": hashes.get((s, n))} for s, n in todo if (s, n) not in kept]
    if new_rows:
        conn.execute(CHECKPOINT_BACKUP.insert(), new_rows)
    for (s, n), h in hashes.items():
        if (s, n) in kept:  # recorded before while its backup was missing: now it is here
            conn.execute(CHECKPOINT_BACKUP.update().where(CHECKPOINT_BACKUP.c.session_id == s,
                                                          CHECKPOINT_BACKUP.c.backup_name == n).values(blob_hash=h))
    return len(hashes)


@dataclass(frozen=True)
class Backup:
    """One path's backup as one checkpoint line recorded it."""

    path: str  # as Claude Code recorded it: relative to the session's cwd, or absolute
    name: str | None  # `<hash>@v<n>`; None: the file did not exist yet
    version: int
    prompt: str  # the prompt it belongs to
    order: tuple[int, int]  # (the prompt's seq, the checkpoint line's seq)


@dataclass
class Checkpoints:
    """A session's checkpoints, in the order their prompts were written."""

    session_id: str
    tool_session: str  # the id Claude Code names the backup folder with
    cwd: str
    backups: list[Backup] = field(default_factory=list)
    prompt_order: dict[str, int] = field(default_factory=dict)  # prompt id → seq

    @property
    def prompts(self) -> list[str]:
        return sorted({b.prompt for b in self.backups}, key=lambda p: self.prompt_order.get(p, 0))

    def state_at(self, prompt: str) -> dict[str, Backup]:
        """For each path tracked at or after `prompt`: its first backup taken at or after it."""
        start = self.prompt_order.get(prompt)
        if start is None:
            return {}
        out: dict[str, Backup] = {}
        for b in self.backups:  # sorted by order
            if b.order[0] >= start and b.path not in out:
                out[b.path] = b
        return out

    def next_prompt(self, prompt: str) -> str | None:
        later = [p for p in self.prompts if self.prompt_order.get(p, 0) > self.prompt_order.get(prompt, 0)]
        return later[0] if later else None

    def changed_in(self, prompt: str) -> list[str]:
        """The paths the turn of `prompt` changed: first tracked during it, or backed up anew at the next prompt."""
        now = self.state_at(prompt)
        first = {b.path for b in self.backups if b.prompt == prompt} - {
            b.path for b in self.backups if self.prompt_order.get(b.prompt, 0) < self.prompt_order.get(prompt, 0)}
        nxt = self.next_prompt(prompt)
        later = self.state_at(nxt) if nxt else {}
        changed = {p for p, b in later.items() if p in now and (b.name, b.version) != (now[p].name, now[p].version)}
        return sorted(first | changed)

    def resolve(self, path: str) -> str:
        """The absolute path a recorded path names (relative ones are under the session's cwd)."""
        return path if os.path.isabs(path) else os.path.join(self.cwd or "/", path)


def load(conn: Connection, session_id: str) -> Checkpoints:
    """The checkpoints of a session, from its checkpoint lines (older imports kept them as `meta`)."""
    s = conn.execute(sa.select(SESSION.c.tool_id, SESSION.c.cwd).where(SESSION.c.id == session_id)).first()
    if s is None:
        raise NotFound(f"no session {session_id}")
    cp = Checkpoints(session_id, s.tool_id or session_id, s.cwd or "")
    rows = conn.execute(sa.select(EVENT.c.seq, EVENT.c.payload).where(
        EVENT.c.session_id == session_id,
        # a checkpoint's payload may be stored compressed (sessionscope.store.payloads): found by its kind;
        # imports before the kind existed kept these lines as `meta`, always text
        sa.or_(EVENT.c.kind == "checkpoint",
               sa.and_(EVENT.c.kind == "meta", EVENT.c.payload.like('%"file-history-%')))).order_by(EVENT.c.seq)).all()
    lines = []
    for seq, payload in rows:
        try:
            obj = orjson.loads(payload)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and obj.get("type") in CHECKPOINT_TYPES and (prompt := checkpoint_prompt(obj)):
            lines.append((seq, prompt, checkpoint_entries(obj)))
    prompts = sorted({p for _, p, _ in lines})
    for i in range(0, len(prompts), 500):
        cp.prompt_order.update(dict(conn.execute(sa.select(EVENT.c.id, EVENT.c.seq).where(
            EVENT.c.id.in_(prompts[i:i + 500]))).all()))
    for seq, prompt, entries in lines:
        cp.prompt_order.setdefault(prompt, seq)  # a prompt never written: where its checkpoint was
        for path, b in entries.items():
            name = b.get("backupFileName") if isinstance(b.get("backupFileName"), str) else None
            version = b.get("version") if isinstance(b.get("version"), int) else 0
            cp.backups.append(Backup(path, name or None, version, prompt, (cp.prompt_order[prompt], seq)))
    cp.backups.sort(key=lambda b: b.order)
    return cp


def backup_content(conn: Connection, cp: Checkpoints, backup: Backup) -> bytes | None:
    """The bytes of a backup (the store first, then Claude Code's folder); None when it is gone from
    both, or when the backup says the file did not exist (`backup.name` is None: tell them apart by it)."""
    if backup.name is None:
        return None
    h = conn.execute(sa.select(CHECKPOINT_BACKUP.c.blob_hash).where(
        CHECKPOINT_BACKUP.c.session_id == cp.session_id, CHECKPOINT_BACKUP.c.backup_name == backup.name)).scalar()
    damaged = None
    if h:
        try:
            return blobs.get(conn, h)
        except blobs.Damaged as exc:
            damaged = exc
        except NotFound:
            pass
    data = read_backup(history_dirs(), cp.tool_session, backup.name)
    if data is None and damaged is not None:
        raise damaged  # not "gone": the store holds it, damaged, and Claude Code's copy is gone
    return data


def turn_prompt(conn: Connection, event_id: str) -> str | None:
    """The prompt whose turn `event_id` is in: itself, or the nearest user prompt above it."""
    cur, seen = event_id, set()
    while cur and cur not in seen:  # one light lookup a step: a turn is tens to hundreds of lines
        seen.add(cur)
        row = conn.execute(sa.select(EVENT.c.kind, EVENT.c.role, EVENT.c.sidechain, EVENT.c.parent_id)
                           .where(EVENT.c.id == cur)).first()
        if row is None:
            return None
        if row.kind == "message" and row.role == "user" and not row.sidechain:
            return cur
        cur = row.parent_id
    return None


def changed_files(conn: Connection, session_id: str) -> dict[str, list[str]]:
    """{prompt id: paths its turn changed} for the prompts that changed any."""
    cp = load(conn, session_id)
    return {p: files for p in cp.prompts if (files := cp.changed_in(p))}


def restore_plan(store, session_id: str, event_id: str, into: str | None = None):
    """What "restore code to here" would do: the files as they were when the prompt of
    `event_id`'s turn was sent (sessionscope.history.file_restore.plan; nothing is written). With `into`,
    the session's relative paths are placed under that folder instead of its cwd."""
    from sessionscope.history.file_restore import Wanted, plan
    with store.reader() as conn:
        prompt = turn_prompt(conn, event_id)
        if prompt is None:
            raise NotFound(f"event {event_id} is in no prompt's turn")
        cp = load(conn, session_id)
        state = cp.state_at(prompt) if prompt in cp.prompt_order else _state_after(cp, conn, prompt)
        wanted = []
        for path, b in state.items():
            try:
                data = backup_content(conn, cp, b)
            except blobs.Damaged:
                wanted.append(Wanted(path, None, available=False, source=f"damaged in the store ({b.name}): "
                                                                         "its bytes no longer match their hash"))
                continue
            wanted.append(Wanted(path, data, available=b.name is None or data is not None,
                                 source=b.name or "did not exist yet"))
    return plan(session_id, event_id, prompt, os.path.abspath(into) if into else cp.cwd, wanted, chosen_folder=bool(into))


def _state_after(cp: Checkpoints, conn: Connection, prompt: str) -> dict[str, Backup]:
    """A prompt with no checkpoint of its own: the first checkpoint written after it."""
    seq = conn.execute(sa.select(EVENT.c.seq).where(EVENT.c.id == prompt)).scalar() or 0
    later = [p for p in cp.prompts if cp.prompt_order[p] >= seq]
    return cp.state_at(later[0]) if later else {}


@dataclass(frozen=True)
class FileAt:
    """One tracked file at a checkpoint, and at the next one (for the Files tab)."""

    path: str
    target: str  # where it lives (the session's folder joined with a relative path)
    content: bytes | None
    state: str  # kept (content), absent (did not exist yet), gone (backup lost)
    next_content: bytes | None = None
    next_state: str = "none"  # kept, absent, gone, or none: no later checkpoint


def files_at(store, session_id: str, event_id: str) -> tuple[str | None, list[FileAt]]:
    """(the prompt of `event_id`'s turn, every file tracked at its checkpoint with its contents)."""
    with store.reader() as conn:
        prompt = turn_prompt(conn, event_id)
        if prompt is None:
            return None, []
        cp = load(conn, session_id)
        if prompt not in cp.prompt_order:
            return prompt, []
        state = cp.state_at(prompt)
        nxt = cp.next_prompt(prompt)
        later = cp.state_at(nxt) if nxt else {}

        def read(b: Backup | None) -> tuple[bytes | None, str]:
            if b is None:
                return None, "none"
            if b.name is None:
                return None, "absent"
            try:
                data = backup_content(conn, cp, b)
            except blobs.Damaged:
                return None, "damaged"
            return data, "kept" if data is not None else "gone"
        out = []
        for path, b in sorted(state.items()):
            content, st = read(b)
            next_content, next_st = read(later.get(path)) if nxt else (None, "none")
            out.append(FileAt(path, os.path.normpath(cp.resolve(path)), content, st, next_content, next_st))
    return prompt, out
