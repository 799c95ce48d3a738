"""Acting on Claude Code sessions without editing any file Claude Code owns.

Fork and rewind write a *new* transcript (atomically, never overwriting) in the
format `claude-agent-sdk`'s `fork_session` writes: fresh uuids, `forkedFrom`
on every line, a custom-title line; it ends where the user clicked (claude_fork
says exactly what it holds). We write the lines ourselves, from the branch the
store already holds: `fork_session` cuts the file by position, which would carry
messages of a sibling branch into a rewind, and where its cut is right it reads
and rewrites the whole file the store has in hand. tests/sources/test_claude_corpus.py
holds our lines to what `fork_session` keeps, read back by the SDK. The store
records the new file without reading it back (adopt.py): its copies reference
the events they copy.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from sessionscope.errors import InvalidInput, PartlyDone, Refused, failure
from sessionscope.export.core import new_file
from sessionscope.history.read_models import Action, Changes
from sessionscope.safety.untrusted import child, resumable_id
from sessionscope.sources.claude_code.adopt import adopt
from sessionscope.sources.claude_code.fork import copies_of, plan_fork
from sessionscope.sources.claude_code.importer import KIND, import_paths
from sessionscope.sources.claude_code.places import project_dir_name, projects_dir  # noqa: F401 (named here too)
from sessionscope.store import gcpause
from sessionscope.store.api import Store
from sessionscope.store.schema import SOURCE_FILE

ALLOWED_RESUME = ("claude",)


def session_file(store: Store, session_id: str) -> Path | None:
    """The transcript file a session was imported from, if it still exists."""
    with store.reader() as conn:
        paths = conn.execute(sa.select(SOURCE_FILE.c.path).where(
            SOURCE_FILE.c.path.like(f"%{session_id}.jsonl"))).scalars().all()
    for p in paths:
        if Path(p).name == f"{session_id}.jsonl" and Path(p).is_file():
            return Path(p)
    return None


def _target_dir(store: Store, session_id: str) -> Path:
    """Where a new transcript of this session goes so that `claude --resume` run in the session's folder
    finds it (fork, rewind and restore alike): beside the session's own file when that lies in one of
    Claude Code's project folders, else Claude Code's project folder of the session's cwd."""
    from sessionscope.sources.claude_code.importer import default_roots
    found = session_file(store, session_id)
    roots = {r.resolve() for r in default_roots()} | {projects_dir().resolve()}
    if found is not None and found.parent.parent.resolve() in roots:
        return found.parent
    s = store.session(session_id)
    if s.cwd:
        return projects_dir() / project_dir_name(s.cwd)
    if found is not None:
        return found.parent
    raise Refused(f"session {session_id} has no working directory to place its transcript under")


def write_new_file(path: Path, lines: list[str] | list[bytes]) -> None:
    """Write a new file atomically, a line each; refuse to replace an existing one."""
    with new_file(path) as fh:
        fh.writelines(part for line in lines for part in
                      ((line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")), b"\n"))


def _claude_session(store: Store, session_id: str):
    s = store.session(session_id)
    if s.source_kind != KIND:
        raise InvalidInput(f"session {session_id} is not a Claude Code session (it is {s.source_kind})")
    return s


def fork(store: Store, session_id: str, up_to: str, title: str | None = None, action: str = "fork") -> Changes:
    """A new resumable transcript holding the branch up to `up_to` (claude_fork); recorded and linked."""
    # a big fork holds tens of thousands of dicts and rows at once, none in a cycle: the collector's full
    # passes over them cost a tenth of its time (and the GIL, which the window's thread waits for)
    with gcpause.paused():
        return _fork(store, session_id, up_to, title, action)


def _fork(store: Store, session_id: str, up_to: str, title: str | None, action: str) -> Changes:
    _claude_session(store, session_id)
    store.event(up_to)
    plan = plan_fork(store, session_id, up_to, title)
    path = _target_dir(store, session_id) / f"{plan.session_id}.jsonl"
    try:
        write_new_file(path, plan.lines)
    except OSError as exc:
        raise failure(Refused(f"could not write the fork: {exc}"), "error") from exc
    new_id = path.stem
    try:
        touched = adopt(store, path, plan, session_id)
    except Exception as exc:  # the file is there: say so, and where, rather than "nothing was changed"
        raise failure(PartlyDone(f"the fork was written to {path} (claude --resume {new_id} opens it), but reading it "
                                 f"back into the store failed: {exc}; a scan will try again"), "error",
                      {"file": str(path), "error": f"read back: {exc}"}) from exc
    added = {"extended": plan.extended, "interrupted": plan.interrupted} if not plan.exact else {}
    return Changes(Action(action), session_ids=frozenset({session_id, new_id} | touched), session_list=True,
                   session=store.session(new_id),
                   detail={"new_session": new_id, "file": str(path), **added}, note=plan.describe(), files=(str(path),))


def written_files(store: Store, session_id: str) -> list[Path]:
    """The transcripts Sessionscope wrote for this session (its fork or rewind file, a restore), as the audit
    log recorded them, that are still there and still named by the session's id."""
    import json

    from sessionscope.store.schema import AUDIT
    with store.reader() as conn:
        rows = conn.execute(sa.select(AUDIT.c.action, AUDIT.c.session_id, AUDIT.c.detail).where(
            AUDIT.c.action.in_(("fork", "rewind", "restore")), AUDIT.c.outcome == "ok",
            AUDIT.c.detail.like(f"%{session_id}%"))).all()
    found: list[Path] = []
    for action, owner, detail in rows:
        d = json.loads(detail or "{}")
        if action in ("fork", "rewind") and d.get("new_session") == session_id:
            paths = [d.get("file")]
        elif action == "restore" and owner == session_id:
            paths = d.get("files") or []
        else:
            continue
        for p in paths:
            path = Path(p) if isinstance(p, str) else None
            # only a file named after this session (never another one's a detail might name), still there
            if path is not None and path.is_file() and (path.stem == session_id or path.parent.parent.name == session_id):
                found.append(path)
    return sorted(set(found))


def _sdk_reachable(store: Store, session_id: str) -> Path | None:
    """The session's file, if it lies where claude-agent-sdk (and `claude --resume`) look."""
    source = session_file(store, session_id)
    if source is None or source.parent.parent.resolve() != projects_dir().resolve():
        return None
    return source


def rename(store: Store, session_id: str, title: str) -> Changes:
    """Rename through claude-agent-sdk's rename_session (Claude Code shows it too); then re-read the file."""
    return _sdk_mutation(store, session_id, "rename", lambda sdk: sdk.rename_session(session_id, title),
                         lambda: store.rename(session_id, title))


def tag(store: Store, session_id: str, tag_name: str | None) -> Changes:
    """Tag through claude-agent-sdk's tag_session (None clears it); then re-read the file."""
    return _sdk_mutation(store, session_id, "tag", lambda sdk: sdk.tag_session(session_id, tag_name),
                         lambda: store.set_tags(session_id, [tag_name] if tag_name else []))


def _sdk_mutation(store: Store, session_id: str, action: str, with_sdk, store_only) -> Changes:
    """The SDK appends one line to the transcript, as Claude Code itself does; the store follows
    by importing that line. Without the SDK or the file, only the store changes."""
    _claude_session(store, session_id)
    source = _sdk_reachable(store, session_id)
    try:
        import claude_agent_sdk as sdk
    except ImportError:
        sdk = None
    if source is None or sdk is None:
        return store_only()
    try:
        with_sdk(sdk)
    except (ValueError, FileNotFoundError) as exc:
        raise InvalidInput(str(exc)) from exc
    report = import_paths(store, [source])
    return Changes(Action(action), session_ids=frozenset({session_id}) | report.sessions, session_list=True,
                   session=store.session(session_id),
                   detail={"file": str(source), "via": "claude-agent-sdk"})


def rewind(store: Store, session_id: str, to: str) -> Changes:
    """Claude Code cannot move a transcript's head: fork up to `to`, then resume the fork."""
    s = store.session(session_id)
    return fork(store, session_id, to, title=f"{s.title or session_id[:8]} (rewind)", action="rewind")


def resume_command(session) -> list[str]:
    """`claude --resume <id>`: run it in the session's cwd. The id was read from a transcript: one that is not a
    session id's shape (`--dangerously-skip-permissions`) is refused, never handed to claude."""
    return ["claude", "--resume", resumable_id(session, "Claude Code")]


def write_back(store: Store, session_id: str, target: Path | None = None) -> list[Path]:
    """Write a session kept here back where `claude --resume` finds it (never overwriting)."""
    _claude_session(store, session_id)
    folder = target or _target_dir(store, session_id)
    # a fork Sessionscope wrote keeps its copied lines as references to the events they copy
    main: list[str] | list[bytes] = copies_of(store, session_id)
    main += [e.payload.encode("utf-8", "surrogatepass") for e in store.events(session_id)
             if not e.kind.startswith("fact.") and e.agent_id is None and e.payload.startswith("{")]
    if not main:
        raise Refused(f"session {session_id} has no transcript lines to restore")
    written = []
    # the id and the agents' ids were read from a transcript: each must be a name that stays in the folder
    path = child(folder, f"{session_id}.jsonl", what="session id")
    agents: dict[str, list[str]] = {}
    for e in store.events(session_id):
        if e.agent_id and not e.kind.startswith("fact.") and e.payload.startswith("{"):
            agents.setdefault(e.agent_id, []).append(e.payload)
    subs = {agent_id: child(folder, session_id, "subagents", f"agent-{agent_id}.jsonl", what="agent id")
            for agent_id in agents}
    write_new_file(path, main)
    written.append(path)
    for agent_id, lines in agents.items():
        sub = subs[agent_id]
        write_new_file(sub, lines)
        written.append(sub)
    return written
