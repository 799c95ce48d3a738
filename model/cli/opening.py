"""`sessionscope open ID` (and `sessionscope ID`, and a `sessionscope://session/ID` link): the window on one session.

A window already open is brought to it: the window listens on a local socket of the user's own (a Unix socket in a
folder only the user can enter; a named pipe on Windows), and `open` sends it one line of JSON naming the session
and, where the link names one, the event. Without a window, `open` starts one on that session. What reaches the
window is untrusted like everything read: one bounded line, only ids of a fixed alphabet, looked up in the store
the window has open (sessionscope.cli.handoff; sessionscope.gui.window.open_requests reads it).
"""

from __future__ import annotations

from sessionscope.cli.handoff import handoff
from sessionscope.history.addresses import SCHEME, Target, target


def open_(_store, args) -> int:
    """`sessionscope open ID|LINK`: the session shown in the open window, or in a window started on it."""
    from sessionscope.cli.main import open_store_for, open_window
    from sessionscope.cli.output import EXIT_USAGE, error, out
    found = target(args.session)
    if found is None:
        error(f"{args.session!r} is neither a session id nor a {SCHEME}://session/ID link")
        return EXIT_USAGE
    with open_store_for(args) as store:  # (closed before a window opens it again for itself)
        found = Target(store.resolve_session(found.session), found.event)  # (a link names its event in full)
    if handoff(found):
        out(args, {"session": found.session, "event": found.event, "window": "brought to it"},
            f"the open window shows session {found.session[:8]}")
        return 0
    args.open_target = found
    return open_window(args)
