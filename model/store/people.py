"""Who brought a session into the store: `user@host`, recorded when the session is first stored.

On a team store (PostgreSQL, several machines) this is how the app filters by person. The user is
the login name the system gives (getpass: $LOGNAME, $USER, … then the password database), the
host the machine's name.
"""

from __future__ import annotations

import getpass
import socket


def who() -> str:
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name anywhere (some containers)
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'localhost'}"
