"""Every user action, one path: the source's rule → the source's work → the audit entry → Changes.

The window and the command line call only these functions (and a script may too): each takes the
store, what the action needs and `actor` (the front end: "app", "cli", an agent's name), checks the
rule the session's source declares (`Source.refusal`: the same words in the window's tooltip, its
error box and the command's message), hands the work to the source, records the outcome through
sessionscope.safety.audit (ok with what was done; refused or error with why) and returns typed `Changes`.
The Store below is persistence and reading; it never calls a source.

    ops.fork(store, sid, at, title, actor="cli")            # Changes(Action.FORK, session=the new one, note=…)
    ops.refusal(session, "compact")                          # None, or why not
    ops.each(ids, lambda sid: ops.archive(store, sid))       # a Batch: done, and (id, why) of the refused
    ops.fork_and_continue(store, sid, at, "next: …")         # the fork, and what starts its tool on the note
    ops.sync_now(store, "postgresql://me@team/db")           # the shared sessions pushed there, redacted
"""

from typing import TYPE_CHECKING

# Each function is imported from its module when first asked for (PEP 562): the window imports `ops` at
# start, and what the actions need (SQLAlchemy, the sources) loads after its first paint, not before it.
_WHERE = {
    "hooks": "admin", "team_add_member": "admin", "team_init": "admin",
    "continue_prompt": "continuing", "fork_and_continue": "continuing", "export": "exporting",
    "set_allowed_values": "exporting", "set_redaction_patterns": "exporting", "changed_files": "files",
    "files_at": "files", "restore_files": "files", "restore_plan": "files", "undo_plan": "files",
    "undo_restore": "files", "Batch": "many", "each": "many", "retag": "many", "embed": "meaning",
    "set_semantic": "meaning", "unwatch": "places", "watch": "places", "RULES": "rules", "check": "rules",
    "refusal": "rules", "archive": "sessions", "close": "sessions", "compact": "sessions", "delete": "sessions",
    "fork": "sessions", "interrupt": "sessions", "note_add": "sessions", "note_edit": "sessions",
    "note_remove": "sessions", "pause": "sessions", "pin": "sessions", "rename": "sessions", "resume": "sessions",
    "rewind": "sessions", "send": "sessions", "share": "sessions", "share_project": "sessions", "star": "sessions",
    "tag": "sessions", "unarchive": "sessions", "write_back": "sessions", "written_files": "sessions",
    "summarize": "summarizing", "summary_request": "summarizing", "decide": "syncing", "set_default_rule": "syncing",
    "set_project_rule": "syncing", "set_sync_every": "syncing", "set_target": "syncing", "sync_now": "syncing",
    "sync_plan": "syncing",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # asked once
    return value


def preload() -> None:
    """Import every action's module now (the window does it on a worker once its store is open, so that no
    first click waits for an import on the UI thread)."""
    import importlib
    for module in sorted(set(_WHERE.values())):
        importlib.import_module(f"{__name__}.{module}")


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # what a type checker and an editor see: the same names, imported
    from sessionscope.ops.admin import hooks, team_add_member, team_init
    from sessionscope.ops.continuing import continue_prompt, fork_and_continue
    from sessionscope.ops.exporting import export, set_allowed_values, set_redaction_patterns
    from sessionscope.ops.files import changed_files, files_at, restore_files, restore_plan, undo_plan, undo_restore
    from sessionscope.ops.many import Batch, each, retag
    from sessionscope.ops.meaning import embed, set_semantic
    from sessionscope.ops.places import unwatch, watch
    from sessionscope.ops.rules import RULES, check, refusal
    from sessionscope.ops.sessions import (
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
    from sessionscope.ops.summarizing import summarize, summary_request
    from sessionscope.ops.syncing import (
        decide,
        set_default_rule,
        set_project_rule,
        set_sync_every,
        set_target,
        sync_now,
        sync_plan,
    )

__all__ = [
    "hooks", "team_add_member", "team_init",
    "RULES", "Batch", "archive", "changed_files", "check", "close", "compact", "continue_prompt", "delete", "each",
    "embed", "export", "files_at", "fork", "fork_and_continue", "interrupt", "note_add", "note_edit", "note_remove", "pause",
    "pin", "refusal", "rename", "restore_files", "restore_plan", "resume", "retag", "rewind", "send",
    "set_allowed_values", "set_redaction_patterns", "set_semantic", "share", "share_project", "star",
    "summarize", "summary_request", "sync_now", "decide", "set_project_rule", "set_default_rule", "set_target",
    "set_sync_every", "sync_plan",
    "tag", "unarchive",
    "undo_plan", "undo_restore", "unwatch", "watch", "write_back", "written_files",
]
