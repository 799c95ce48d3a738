"""The rule table: each user action, what the audit log calls it, and the rule of the session's source it
obeys. Both front ends read it: the window enables an action where `refusal` is None (and says why not in
its tooltip), and every operation calls `check` first, so a refusal has the same words everywhere."""

from __future__ import annotations

from dataclasses import dataclass

from sessionscope import sources
from sessionscope.errors import IllegalTransition, Refused
from sessionscope.history import lifecycle
from sessionscope.history.read_models import Action, SessionView


@dataclass(frozen=True)
class Rule:
    action: Action  # what the audit log records
    rule: str  # the action's name in Source.refusal
    verb: str  # "cannot {verb} session …"
    needs_event: bool = False  # acts at an event (fork at E, rewind to E)


RULES: dict[str, Rule] = {r.rule if name is None else name: r for name, r in (
    (None, Rule(Action.RESUME, "resume", "resume")),
    (None, Rule(Action.RESUME, "copy_resume", "resume")),
    (None, Rule(Action.FORK, "fork", "fork", True)),
    (None, Rule(Action.REWIND, "rewind", "rewind", True)),
    (None, Rule(Action.COMPACT, "compact", "compact")),
    (None, Rule(Action.RENAME, "rename", "rename")),
    (None, Rule(Action.TAG, "tag", "tag")),
    (None, Rule(Action.STAR, "star", "star")),
    (None, Rule(Action.PIN, "pin", "pin an event of", True)),
    (None, Rule(Action.NOTE_ADD, "note", "write a note on")),
    ("summarize", Rule(Action.SUMMARIZE, "note", "summarize")),
    (None, Rule(Action.WRITE_BACK, "write_back", "write back")),
    (None, Rule(Action.RESTORE_FILES, "restore_files", "restore the files of", True)),
    ("undo_restore", Rule(Action.UNDO_RESTORE, "restore_files", "undo a restore of")),
    ("redo_restore", Rule(Action.REDO_RESTORE, "restore_files", "redo an undo of")),
    (None, Rule(Action.ARCHIVE, "archive", "archive")),
    (None, Rule(Action.UNARCHIVE, "unarchive", "unarchive")),
    (None, Rule(Action.CLOSE, "close", "close")),
    (None, Rule(Action.PAUSE, "pause", "pause")),
    (None, Rule(Action.DELETE, "delete", "delete")),
    (None, Rule(Action.EXPORT, "export", "export")),
    (None, Rule(Action.SEND, "send", "send a message to")),
    (None, Rule(Action.RUN, "run", "run an agent on")),
    (None, Rule(Action.INTERRUPT, "interrupt", "interrupt")),
    (None, Rule(Action.SHARE, "share", "share")),
    ("unshare", Rule(Action.UNSHARE, "share", "stop sharing")),
)}

# what a team store's member may do with a session that is not theirs (sessionscope.safety.team): read it, copy its
# resume command, fork it into a session of their own, export it; everything else is its owner's (or an admin's)
_ANYONE_MAY = frozenset({"copy_resume", "fork", "export"})


def refusal(session: SessionView | None, name: str) -> str | None:
    """Why the action `name` (a key of RULES) does not apply to `session` (a SessionView, or None when none
    is chosen), in words a user can act on; None when it applies."""
    rule = RULES[name]
    if session is None:
        return "no session is chosen"
    if not session.yours and name not in _ANYONE_MAY:
        return (f"it is {session.owner}'s: in this team store only its owner or an admin may change it "
                "(fork it to make a session of your own)")
    if rule.rule == "share":  # the store's own, whatever the tool: a team store's sharing, or what a sync pushes
        return None
    if rule.rule == "run":  # some of a source's sessions only (the store's own an SDK keeps): asked of the session
        return sources.of(session.source_kind).run_refusal(session)
    return sources.of(session.source_kind).refusal(rule.rule, session.status)


def check(session: SessionView | None, name: str) -> None:
    """Raise the refusal of `name` for `session`, if any: IllegalTransition where the session's status is what
    forbids it (the lifecycle's own words), Refused where its tool does."""
    why = refusal(session, name)
    if why is None:
        return
    rule = RULES[name]
    if session is None:  # (none chosen: said, never an AttributeError)
        raise Refused(f"cannot {rule.verb}: {why}")
    if rule.rule in lifecycle.TRANSITIONS and why == lifecycle.why_not(session.status):
        raise IllegalTransition(session.id, session.status, rule.verb, lifecycle.hint(session.status))
    raise Refused(f"cannot {rule.verb} session {session.id}: {why}")
