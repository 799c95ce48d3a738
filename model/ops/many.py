"""One action on many sessions (the list's selection; several ids on the command line): each session goes
the one path on its own (its rule, its work, its audit entry), and what one refuses does not stop the rest.

    batch = ops.each(ids, lambda sid: ops.star(store, sid, True, actor="app"))
    batch.done      # the Changes of those that went through
    batch.failed    # (session id, why) of those that did not, in order
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sessionscope.errors import SessionscopeError
from sessionscope.history.read_models import Action, Changes

if TYPE_CHECKING:
    from sessionscope.store.api import Store


@dataclass(frozen=True)
class Batch:
    done: list[Changes] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (session id, why), in the order tried
    stopped: str = ""  # why the rest was not tried (a failure that was not the session's own: a full disk)

    def changes(self, action: Action) -> Changes:
        """One Changes for the views: every session the batch touched, the list to be read again."""
        ids = frozenset().union(*(c.session_ids for c in self.done)) if self.done else frozenset()
        return Changes(action, session_ids=ids, session_list=True, recorded=True)

    def said(self, verb: str) -> str:
        """One line for the user: "Starred 12 sessions", and what was refused or left."""
        n = len(self.done)
        line = f"{verb} {n} session{'' if n == 1 else 's'}"
        if self.failed:
            line += f"; {len(self.failed)} refused ({self.failed[0][1]}" + (", …)" if len(self.failed) > 1 else ")")
        if self.stopped:
            line += f"; stopped: {self.stopped}"
        return line


def each(session_ids: Iterable[str], one: Callable[[str], Changes], *,
         cancelled: Callable[[], bool] = lambda: False,
         progress: Callable[[int, int, str], None] | None = None) -> Batch:
    """`one(session_id)` for each session, in order. A session's own refusal (its rule, a status, a tool that
    keeps one tag) is noted and the next is tried; any other failure (the store locked or full) stops the
    batch there: the sessions before it are done and recorded, those after it untouched. `progress(done,
    total, session id)` before each; `cancelled()` is asked before each too."""
    done: list[Changes] = []
    failed: list[tuple[str, str]] = []
    ids = list(dict.fromkeys(session_ids))
    for i, sid in enumerate(ids):
        if cancelled():
            return Batch(done, failed, f"cancelled with {len(ids) - i} left")
        if progress is not None:
            progress(i, len(ids), sid)
        try:
            done.append(one(sid))
        except SessionscopeError as exc:
            failed.append((sid, str(exc)))
        except Exception as exc:  # noqa: BLE001 — said to the user with what was done; nothing after it is tried
            failed.append((sid, f"{type(exc).__name__}: {exc}"))
            return Batch(done, failed, f"{len(ids) - i - 1} not tried after an error")
    return Batch(done, failed)


def retag(store: Store, session_id: str, add: Iterable[str] = (), remove: Iterable[str] = (), *,
          actor: str | None = None) -> Changes:
    """Add and take away tags, keeping the session's others (what a selection of sessions is tagged with:
    each keeps its own tags). Through ops.tag, so a tool that keeps one tag refuses a second."""
    from sessionscope.ops.sessions import tag

    gone = {t.strip() for t in remove}
    current = [t for t in store.session(session_id).tags if t not in gone]
    new = current + [t.strip() for t in add if t.strip() and t.strip() not in current]
    return tag(store, session_id, new, actor=actor)
