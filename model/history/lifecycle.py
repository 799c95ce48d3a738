"""The session lifecycle: every status change is checked here and nowhere else.

    active → idle ⇄ paused → closed → archived
    managed agents: running ⇄ rescheduling → terminated

`TRANSITIONS[action][status]` is the status after `action`; an action missing
for a status is refused with an IllegalTransition that names session, status and
action, plus a hint at what would make it legal.
"""

from __future__ import annotations

from sessionscope.errors import IllegalTransition

ACTIVE, IDLE, PAUSED, CLOSED, ARCHIVED = "active", "idle", "paused", "closed", "archived"
RUNNING, RESCHEDULING, TERMINATED = "running", "rescheduling", "terminated"
STATUSES = (ACTIVE, IDLE, PAUSED, CLOSED, ARCHIVED, RUNNING, RESCHEDULING, TERMINATED)

_WRITABLE = {ACTIVE: ACTIVE, IDLE: ACTIVE, PAUSED: PAUSED, RUNNING: RUNNING, RESCHEDULING: RESCHEDULING}
_SAME = {s: s for s in STATUSES}

TRANSITIONS: dict[str, dict[str, str]] = {
    "append": _WRITABLE,
    "compact": _WRITABLE,
    "rewind": {s: s for s in (ACTIVE, IDLE, PAUSED, CLOSED)},
    "fork": _SAME,  # forking only reads the origin
    "resume": {ACTIVE: ACTIVE, IDLE: ACTIVE, PAUSED: ACTIVE, CLOSED: ACTIVE},
    "idle": {ACTIVE: IDLE, PAUSED: IDLE},
    "pause": {ACTIVE: PAUSED, IDLE: PAUSED},
    "close": {ACTIVE: CLOSED, IDLE: CLOSED, PAUSED: CLOSED},
    "archive": {s: ARCHIVED for s in (ACTIVE, IDLE, PAUSED, CLOSED, TERMINATED)},
    "unarchive": {ARCHIVED: CLOSED},
    "delete": {s: s for s in STATUSES if s not in (RUNNING, RESCHEDULING)},
    # status reported by a managed-agents backend
    "start": {ACTIVE: RUNNING, IDLE: RUNNING, PAUSED: RUNNING, RESCHEDULING: RUNNING},
    "reschedule": {RUNNING: RESCHEDULING},
    "terminate": {ACTIVE: TERMINATED, IDLE: TERMINATED, RUNNING: TERMINATED, RESCHEDULING: TERMINATED},
}

_HINTS = {
    ARCHIVED: "unarchive it first",
    CLOSED: "resume it first",
    RUNNING: "stop the running agent first",
    RESCHEDULING: "wait until the agent has stopped",
    TERMINATED: "fork it to continue",
}


def next_status(session_id: str, status: str, action: str) -> str:
    """The status after `action`, or IllegalTransition if `status` forbids it."""
    try:
        allowed = TRANSITIONS[action]
    except KeyError:
        raise ValueError(f"unknown lifecycle action {action!r}") from None
    if status not in allowed:
        raise IllegalTransition(session_id, status, action, _HINTS.get(status, ""))
    return allowed[status]


# what unarchive returns a session to: the status it was archived from (kept on the session when it
# was archived); a session archived while active comes back idle (nothing is writing it any more)
_UNARCHIVE_TO = {ACTIVE: IDLE, IDLE: IDLE, PAUSED: PAUSED, CLOSED: CLOSED, TERMINATED: TERMINATED}


def unarchived(before: str | None) -> str:
    """The status an unarchived session returns to, given the status it was archived from (closed when
    that is not known: archived before Sessionscope kept it)."""
    return _UNARCHIVE_TO.get(before or "", CLOSED)


def reported(session_id: str, status: str) -> str:
    """A status a managed-agents backend reports (its API's `status`, or archived): a fact about the
    session there, taken as reported whatever it was here; only a status we do not know is refused."""
    if status not in STATUSES:
        raise IllegalTransition(session_id, status, "report", "the API reported a status Sessionscope does not know")
    return status


def hint(status: str) -> str:
    """What would make an action refused in `status` legal ("unarchive it first")."""
    return _HINTS.get(status, "")


def why_not(status: str) -> str:
    """The reason an action is refused in `status`, with what would make it legal (as IllegalTransition says it)."""
    return f"it is {status}; {hint(status)}" if hint(status) else f"it is {status}"


def allows(status: str, action: str) -> bool:
    """Whether `action` is legal in `status` (for enabling menu items)."""
    return status in TRANSITIONS.get(action, {})
