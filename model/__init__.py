"""Sessionscope's domain and persistence: no Qt is imported anywhere below here.

    from model import open_store
    store = open_store("sessions.db")
    s = store.open_session(title="refactor", agent="my-agent")
    store.append(s.id, "message", role="user", text="hello")
"""

from .errors import (  # noqa: F401
    IllegalTransition, InvalidInput, NotFound, Refused, SchemaTooNew, SessionscopeError, StoreUnavailable,
)
from .store import Store, open_store  # noqa: F401
