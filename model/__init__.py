"""Sessionscope's domain and persistence: no Qt is imported anywhere below here.

    from sessionscope import open_store
    store = open_store("sessions.db")
    s = store.open_session(title="refactor", agent="my-agent")
    store.append(s.id, "message", role="user", text="hello")

The store (and SQLModel, ~0.6 s to import) loads on first use, so light modules
such as sessionscope.history.lifecycle and sessionscope.history.read_models can be imported by a window before its
first paint.
"""

from sessionscope.errors import (  # noqa: F401
    IllegalTransition,
    InvalidInput,
    NotFound,
    Refused,
    SchemaTooNew,
    SessionscopeError,
    StoreUnavailable,
)


def __getattr__(name: str):
    if name in ("Store", "open_store"):
        from sessionscope.store import api as store

        return getattr(store, name)
    raise AttributeError(f"module 'model' has no attribute {name!r}")
