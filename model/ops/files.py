"""Restore Code: the files as a session's checkpoints kept them at a prompt, put back (and the conversation
rewound, on request), undone and redone. Reading what a checkpoint holds asks the session's source; the
writing is sessionscope.history.file_restore's, whose journal (started, then ok or error) is the audit entry."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from sessionscope import sources
from sessionscope.errors import NotFound
from sessionscope.history import file_restore
from sessionscope.history.read_models import Action, Changes
from sessionscope.ops.rules import check
from sessionscope.ops.sessions import act, rewind
from sessionscope.safety import untrusted

if TYPE_CHECKING:
    from sessionscope.history.read_models import SessionView
    from sessionscope.sources.base import Source
    from sessionscope.store.api import Store


def changed_files(store: Store, session_id: str) -> dict[str, list[str]]:
    """{prompt id: the files its turn changed}, from the file checkpoints the session's tool keeps."""
    return sources.session_source(store, session_id).changed_files(store, session_id)


def files_at(store: Store, session_id: str, event_id: str) -> tuple[Any, list[Any]]:
    """(prompt, the files as its checkpoint kept them); (None, []) for a source without checkpoints."""
    return sources.session_source(store, session_id).files_at(store, session_id, event_id)


def restore_plan(store: Store, session_id: str, event_id: str, into: str | None = None) -> file_restore.RestorePlan:
    """What restoring the files to `event_id`'s prompt would do, file by file (a preview: nothing is written)."""
    session = store.session(session_id)
    check(session, "restore_files")
    plan = sources.of(session.source_kind).restore_plan(store, session_id, event_id, into)
    try:  # named by its words and time where it is shown, not by its id
        prompt = store.event(plan.prompt_id)
        plan.prompt_text, plan.prompt_ts = untrusted.printable(prompt.text), prompt.ts
    except NotFound:
        pass
    return plan


def restore_files(store: Store, plan: file_restore.RestorePlan, selected: set[str], *, conversation: bool = False,
                  actor: str | None = None) -> Changes:
    """Write the chosen files of a plan (what they held is kept for the undo); with `conversation`, rewind the
    session to the plan's prompt too, as its own recorded action (`changes.session`: the session that
    continues from there, a new one where the tool cannot move its file back)."""
    sid = plan.session_id

    def work(src: Source, s: SessionView) -> Changes:
        detail = file_restore.apply(store, plan, selected)
        return Changes(Action.RESTORE_FILES, session_ids=frozenset({sid}), session_list=False, session=store.session(sid),
                       detail=detail,
                       files=tuple(f["path"] for f in detail["files"]), recorded=True)
    restored = act(store, "restore_files", sid, work, event_id=plan.event_id, actor=actor)
    if not conversation:
        return restored
    rewound = rewind(store, sid, plan.prompt_id, actor=actor)
    return dataclasses.replace(rewound, session_ids=restored.session_ids | rewound.session_ids, files=restored.files,
                               detail={**restored.detail, **rewound.detail})


def undo_plan(store: Store, session_id: str, redo: bool = False) -> file_restore.UndoPlan:
    """What undoing the last restore (or, `redo`, taking back the last undo) would write (NotFound: none left)."""
    check(store.session(session_id), "redo_restore" if redo else "undo_restore")
    return file_restore.undo_plan(store, session_id, redo=redo)


def undo_restore(store: Store, session_id: str, plan: file_restore.UndoPlan, *, actor: str | None = None) -> Changes:
    """Carry out an undo plan (itself undoable: a redo puts back what it overwrote)."""
    name = "redo_restore" if plan.redo else "undo_restore"

    def work(src: Source, s: SessionView) -> Changes:
        detail = file_restore.apply_undo(store, session_id, plan)
        return Changes(Action.REDO_RESTORE if plan.redo else Action.UNDO_RESTORE, session_ids=frozenset({session_id}),
                       session_list=False,
                       session=store.session(session_id), detail=detail, files=tuple(f["path"] for f in detail["files"]),
                       recorded=True)
    return act(store, name, session_id, work, actor=actor)

