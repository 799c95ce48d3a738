"""Every user action, one path: the source's rule → the source's work → the audit entry → Changes.

The window and the command line call only these functions (and a script may too): each takes the
store, what the action needs and `actor` (the front end: "app", "cli", an agent's name), checks the
rule the session's source declares (`Source.refusal`: the same words in the window's tooltip, its
error box and the command's message), hands the work to the source, records the outcome through
sessionscope.audit (ok with what was done; refused or error with why) and returns typed `Changes`.
The Store below is persistence and reading; it never calls a source.

    ops.fork(store, sid, at, title, actor="cli")            # Changes(Action.FORK, session=the new one, note=…)
    ops.refusal(session, "compact")                          # None, or why not
    ops.each(ids, lambda sid: ops.archive(store, sid))       # a Batch: done, and (id, why) of the refused
    ops.fork_and_continue(store, sid, at, "next: …")         # the fork, and what starts its tool on the note
    ops.sync_now(store, "postgresql://me@team/db")           # the shared sessions pushed there, redacted
"""

from .continuing import continue_prompt, fork_and_continue
from .exporting import export, set_allowed_values, set_redaction_patterns
from .files import changed_files, files_at, restore_files, restore_plan, undo_plan, undo_restore
from .many import Batch, each, retag
from .meaning import embed, set_semantic
from .places import unwatch, watch
from .rules import RULES, check, refusal
from .sessions import (
    archive,
    close,
    compact,
    delete,
    fork,
    interrupt,
    note_add,
    note_edit,
    note_remove,
    pause,
    pin,
    rename,
    resume,
    rewind,
    send,
    share,
    share_project,
    star,
    tag,
    unarchive,
    write_back,
    written_files,
)
from .summarizing import summarize, summary_request
from .syncing import decide, set_default_rule, set_project_rule, set_sync_every, set_target, sync_now, sync_plan

__all__ = [
    "RULES", "Batch", "archive", "changed_files", "check", "close", "compact", "continue_prompt", "delete", "each",
    "embed", "export", "files_at", "fork", "fork_and_continue", "interrupt", "note_add", "note_edit", "note_remove", "pause",
    "pin", "refusal", "rename", "restore_files", "restore_plan", "resume", "retag", "rewind", "send",
    "set_allowed_values", "set_redaction_patterns", "set_semantic", "share", "share_project", "star",
    "summarize", "summary_request", "sync_now", "decide", "set_project_rule", "set_default_rule", "set_target",
    "set_sync_every", "sync_plan",
    "tag", "unarchive",
    "undo_plan", "undo_restore", "unwatch", "watch", "write_back", "written_files",
]
