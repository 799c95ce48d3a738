"""The actions on one session: fork, rewind, compact, resume, archive, unarchive, close, pause, delete, rename,
tag, write back, and a managed agent's send and interrupt. Each goes the one path (`act`)."""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessionscope import sources
from sessionscope.errors import InvalidInput
from sessionscope.history import sessions
from sessionscope.history.read_models import Action, Changes, SessionView
from sessionscope.ops.rules import RULES, check
from sessionscope.recall import notes
from sessionscope.safety import audit, team
from sessionscope.safety.untrusted import printable
from sessionscope.sources.agents_sdk import queue as agents_queue
from sessionscope.sync import choices as sync_choices

if TYPE_CHECKING:
    from sessionscope.sources.base import Source
    from sessionscope.store.api import Store

TAG_MAX = 64


def act(store: Store, name: str, session_id: str, work: Callable[[Source, SessionView], Changes], *, event_id: str | None = None,
        actor: str | None = None) -> Changes:
    """The one path: the session, its source's rule for `name` (a key of rules.RULES), `work(source, session)`,
    the audit entry (unless the work recorded its own with it, in one transaction), the Changes. A failure is
    recorded (refused or error, with its message) and raised on."""
    rule = RULES[name]
    with audit.acting_as(actor):
        try:
            # items an Agents SDK session has queued become its events first: the action sees (and a rewind
            # or an archive comes after) everything the agent added before it
            agents_queue.catch_up(store, only=session_id)
            session = store.session(session_id)
            check(session, name)
            changes = work(sources.of(session.source_kind), session)
        except Exception as exc:
            audit.failed(store, rule.action, exc, session_id=session_id, event_id=event_id)
            raise
        if not changes.recorded:
            audit.audited(store, changes.action, session_id=session_id, event_id=event_id, detail=changes.detail)
            changes = dataclasses.replace(changes, recorded=True)
    return changes


def fork(store: Store, session_id: str, at: str, title: str | None = None, *, end_of_turn: bool = False,
         actor: str | None = None) -> Changes:
    """A new session holding the branch up to `at` (or the end of its turn); `changes.session` is it."""
    return act(store, "fork", session_id, lambda src, s: src.fork(
        store, s.id, store.turn_end(at) if end_of_turn else at, title), event_id=at, actor=actor)


def rewind(store: Store, session_id: str, to: str, *, end_of_turn: bool = False, actor: str | None = None) -> Changes:
    """Back to `to`: the session's head moves there, or (a tool that cannot move its file) a new session ends
    there (`changes.session`)."""
    return act(store, "rewind", session_id, lambda src, s: src.rewind(
        store, s.id, store.turn_end(to) if end_of_turn else to), event_id=to, actor=actor)


def compact(store: Store, session_id: str, summary: str, *, actor: str | None = None) -> Changes:
    """A summary event: what came before leaves the resume context, not the log (`changes.event`)."""
    def work(src: Source, s: SessionView) -> Changes:
        if not summary.strip():
            raise InvalidInput("the summary is empty")
        event = store.compact(s.id, summary.strip())
        return Changes(Action.COMPACT, session_ids=frozenset({s.id}), session_list=True, session=store.session(s.id),
                       event=event, recorded=True)
    return act(store, "compact", session_id, work, actor=actor)


def resume(store: Store, session_id: str, *, actor: str | None = None) -> Changes:
    """A session the store resumes (its tool has no command of its own) becomes active again; the resume
    context is `store.resume_context(id)`. A tool's own session is resumed by the tool
    (`sources.of(kind).resume_command`): refused here with the command to run."""
    def work(src: Source, s: SessionView) -> Changes:
        command = src.resume_command(s)
        if command is not None:
            raise InvalidInput(f"{src.label} resumes session {s.id} itself: {src.resume_line(s)}")
        ctx = store.resume(s.id)
        return Changes(Action.RESUME, session_ids=frozenset({s.id}), session_list=True, session=ctx.session, recorded=True)
    return act(store, "resume", session_id, work, actor=actor)


def _transition(name: str, method: str) -> Callable[..., Changes]:
    def run(store: Store, session_id: str, *, actor: str | None = None) -> Changes:
        return act(store, name, session_id, lambda src, s: getattr(store, method)(s.id), actor=actor)
    run.__name__ = name
    run.__doc__ = f"The session's status after {name} (lifecycle.TRANSITIONS); changes.detail has from and to."
    return run


unarchive = _transition("unarchive", "unarchive")
close = _transition("close", "close_session")
pause = _transition("pause", "pause")


def archive(store: Store, session_id: str, *, actor: str | None = None) -> Changes:
    """Read-only and hidden from the default list (a managed agent's at Anthropic too)."""
    return act(store, "archive", session_id, lambda src, s: src.archive(store, s.id), actor=actor)


def delete(store: Store, session_id: str, *, remove_files: bool = False, actor: str | None = None) -> Changes:
    """Delete the session (a managed agent's at Anthropic, its copy kept: `changes.action` REMOTE_DELETE); with
    `remove_files`, the transcripts Sessionscope wrote for it too (`changes.files`, recorded as delete.files)."""
    changes = act(store, "delete", session_id, lambda src, s: src.delete(store, s.id, remove_files=remove_files),
                  actor=actor)
    if changes.files:
        audit.audited(store, "delete.files", session_id=session_id, detail={"files": list(changes.files)}, actor=actor)
    return changes


def written_files(store: Store, session: SessionView) -> list[Path]:
    """The files Sessionscope wrote for `session` (a SessionView: it may be deleted already), a fork's or a
    rewind's transcript, that are still there: what Delete may remove with it."""
    return sources.of(session.source_kind).written_files(store, session.id)


def rename(store: Store, session_id: str, title: str, *, actor: str | None = None) -> Changes:
    """A new title (in the tool's own file where it keeps one: claude-agent-sdk's rename_session)."""
    if not title.strip():
        raise InvalidInput("the title is empty")
    return act(store, "rename", session_id, lambda src, s: src.rename(store, s.id, title.strip()), actor=actor)


def tag(store: Store, session_id: str, tags: list[str], *, actor: str | None = None) -> Changes:
    """The session's tags, all of them ([] clears them; a tool keeping one tag takes at most one). A tag is a short
    printable word or phrase: a control character (a NUL, an escape) or one over TAG_MAX characters is refused."""
    clean = [t.strip() for t in tags if t.strip()]
    for t in clean:
        if len(t) > TAG_MAX or any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in t):
            raise InvalidInput(f"a tag is a short printable word (at most {TAG_MAX} characters, no control "
                               f"characters): {printable(t[:40])!s} is not")
    return act(store, "tag", session_id, lambda src, s: src.tag(store, s.id, clean), actor=actor)


def _with_entry(store: Store, action: Action, write: Callable[..., Any], *args: Any, session_id: str,
                event_id: str | None = None, detail: Callable[[Any], dict[str, Any]]) -> Any:
    """`write(conn, *args)` and its audit entry in one write transaction; write's result."""
    return audit.audited(store, action, lambda conn: write(conn, *args), session_id=session_id, event_id=event_id,
                         detail=detail)


def star(store: Store, session_id: str, on: bool = True, *, actor: str | None = None) -> Changes:
    """Star the session, or (`on` False) take its star away: the user's own mark, kept by the store alone."""
    action = Action.STAR if on else Action.UNSTAR

    def work(_src: Source, s: SessionView) -> Changes:
        changed = _with_entry(store, action, sessions.star, s.id, on, session_id=s.id,
                              detail=lambda changed: {"changed": changed})
        return Changes(action, session_ids=frozenset({s.id}), session_list=True, session=store.session(s.id),
                       detail={"changed": changed}, recorded=True)
    return act(store, "star", session_id, work, actor=actor)


def share(store: Store, session_id: str, on: bool = True, *, actor: str | None = None) -> Changes:
    """Share the session with a team store's members, or (`on` False) stop (sessionscope.safety.team). In a store of one's
    own (SQLite) the same choice says what a sync pushes (sessionscope.sync): shared, it goes at the next sync; not
    shared, it is not asked about again and its team copy, if any, is no longer shared."""
    action = Action.SHARE if on else Action.UNSHARE

    def work(_src: Source, s: SessionView) -> Changes:
        changed = _with_entry(store, action, team.share if s.owner else sync_choices.decide,
                              s.id if s.owner else [s.id], on, session_id=s.id, detail=lambda changed: {"changed": changed})
        return Changes(action, session_ids=frozenset({s.id}), session_list=True, session=store.session(s.id),
                       detail={"changed": changed}, recorded=True)
    return act(store, "share" if on else "unshare", session_id, work, actor=actor)


def share_project(store: Store, project: str, on: bool = True, *, actor: str | None = None) -> Changes:
    """Share every session of `project` this login owns in a team store, now and to come, or stop."""
    with audit.acting_as(actor):
        try:
            changed = audit.audited(store, Action.SHARE if on else Action.UNSHARE,
                                    lambda conn: team.share_project(conn, project, on),
                                    detail=lambda changed: {"project": project, "changed": changed})
        except Exception as exc:
            audit.failed(store, Action.SHARE if on else Action.UNSHARE, exc)  # (once: a refusal is recorded already)
            raise
    return Changes(Action.SHARE if on else Action.UNSHARE, session_ids=frozenset(), session_list=True, session=None,
                   detail={"project": project, "changed": changed}, recorded=True)


def pin(store: Store, session_id: str, event_id: str, on: bool = True, *, actor: str | None = None) -> Changes:
    """Pin an event of the session's history, or (`on` False) take its pin away: the user's own mark."""
    action = Action.PIN if on else Action.UNPIN

    def work(_src: Source, s: SessionView) -> Changes:
        changed = _with_entry(store, action, sessions.pin, s.id, event_id, on, session_id=s.id, event_id=event_id,
                              detail=lambda changed: {"changed": changed})
        return Changes(action, session_ids=frozenset({s.id}), session_list=False, session=store.session(s.id),
                       detail={"changed": changed}, recorded=True)
    return act(store, "pin", session_id, work, event_id=event_id, actor=actor)


def note_add(store: Store, session_id: str, text: str, event_id: str | None = None, *, actor: str | None = None) -> Changes:
    """A note on the session, or on `event_id` of its history (`changes.detail["note"]` is it)."""
    def work(_src: Source, s: SessionView) -> Changes:
        made = _with_entry(store, Action.NOTE_ADD, notes.add, s.id, text, event_id, session_id=s.id, event_id=event_id,
                           detail=lambda made: {"note": made.as_dict()})
        return Changes(Action.NOTE_ADD, session_ids=frozenset({s.id}), session_list=False, session=s,
                       detail={"note": made.as_dict()}, recorded=True)
    return act(store, "note", session_id, work, event_id=event_id, actor=actor)


def note_edit(store: Store, note_id: str, text: str, *, actor: str | None = None) -> Changes:
    """The note's new text."""
    with store.reader() as conn:
        was = notes.get(conn, note_id)

    def work(_src: Source, s: SessionView) -> Changes:
        now = _with_entry(store, Action.NOTE_EDIT, notes.edit, note_id, text, session_id=s.id, event_id=was.event_id,
                          detail=lambda now: {"note": now.as_dict(), "was": was.text})
        return Changes(Action.NOTE_EDIT, session_ids=frozenset({s.id}), session_list=False, session=s,
                       detail={"note": now.as_dict(), "was": was.text}, recorded=True)
    return act(store, "note", was.session_id, work, event_id=was.event_id, actor=actor)


def note_remove(store: Store, note_id: str, *, actor: str | None = None) -> Changes:
    """The note taken away (its text kept in the audit entry, so the log can say what it was)."""
    with store.reader() as conn:
        was = notes.get(conn, note_id)

    def work(_src: Source, s: SessionView) -> Changes:
        gone = _with_entry(store, Action.NOTE_REMOVE, notes.remove, note_id, session_id=s.id, event_id=was.event_id,
                           detail=lambda gone: {"note": gone.as_dict()})
        return Changes(Action.NOTE_REMOVE, session_ids=frozenset({s.id}), session_list=False, session=s,
                       detail={"note": gone.as_dict()}, recorded=True)
    return act(store, "note", was.session_id, work, event_id=was.event_id, actor=actor)


def write_back(store: Store, session_id: str, target: Path | None = None, *, actor: str | None = None) -> Changes:
    """Write a session kept here back where its tool finds it, as new files (`changes.files`), never over one."""
    def work(src: Source, s: SessionView) -> Changes:
        written = [str(p) for p in src.write_back(store, s.id, target)]
        return Changes(Action.WRITE_BACK, session_ids=frozenset({s.id}), session_list=False, session=store.session(s.id),
                       detail={"files": written},
                       files=tuple(written))
    return act(store, "write_back", session_id, work, actor=actor)


def send(store: Store, session_id: str, text: str, *, actor: str | None = None) -> Changes:
    """A message to a managed agent; the session is pulled right after (changes.detail: events_added, problems)."""
    return act(store, "send", session_id, lambda src, s: src.send(store, s.id, text), actor=actor)


def interrupt(store: Store, session_id: str, *, actor: str | None = None) -> Changes:
    return act(store, "interrupt", session_id, lambda src, s: src.interrupt(store, s.id), actor=actor)
