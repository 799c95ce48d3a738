"""Errors the store raises. Each message is one line a user can act on."""

from __future__ import annotations


class SessionscopeError(Exception):
    """Base of every error the model raises on purpose."""


class NotFound(SessionscopeError):
    """A session, event or file that the caller named does not exist."""


class IllegalTransition(SessionscopeError):
    """A lifecycle action that the session's status does not allow."""

    def __init__(self, session_id: str, status: str, action: str, hint: str = ""):
        self.session_id, self.status, self.action = session_id, status, action
        msg = f"cannot {action} session {session_id}: it is {status}"
        super().__init__(f"{msg}; {hint}" if hint else msg)


class Refused(SessionscopeError):
    """An action that is well-formed but would break an invariant."""


class Cancelled(SessionscopeError):
    """The user stopped a long job (an export, fetching a model); what it says was kept is kept."""


class InvalidInput(SessionscopeError):
    """An argument that cannot be used as given (bad kind, bad JSON, bad range)."""


class SchemaTooNew(SessionscopeError):
    """The store was written by a newer Sessionscope than this one."""


class StoreUnavailable(SessionscopeError):
    """The store cannot be opened or written (locked too long, disk full, damaged)."""


class PartlyDone(SessionscopeError):
    """An action that changed something before it failed: the message says what was done and what not
    (a fork whose file was written but could not be read back, say)."""


class MissingExtra(SessionscopeError):
    """A feature needs an optional integration that is not installed: the message names the extra."""

    def __init__(self, purpose: str, extra: str, module: str):
        self.extra = extra
        super().__init__(f"{purpose} needs the {extra!r} extra, which is not installed (no module {module!r}): "
                         f"pip install 'sessionscope[{extra}]', or with pipx: pipx install --force '.[{extra}]'")


def failure(exc: SessionscopeError, outcome: str | None = None, detail: dict | None = None) -> SessionscopeError:
    """`exc`, with how the audit log should record it: `outcome` "error" for a failure on the way (a write the
    disk refused) rather than a refusal, and `detail` beside its message (the file a half-done fork wrote)."""
    if outcome:
        exc.outcome = outcome
    if detail:
        exc.audit_detail = detail
    return exc
