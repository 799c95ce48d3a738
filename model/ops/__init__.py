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

from typing import Any

# The one list of actions, by the module each lives in. Each is imported from its module when first asked for
# (PEP 562): the window imports `ops` at start, and what the actions need (SQLAlchemy, the sources) loads after its
# first paint, not before it.
_MODULES = {
    "admin": "hooks team_add_member team_init",
    "continuing": "continue_prompt fork_and_continue",
    "exporting": "export set_allowed_values set_redaction_patterns",
    "files": "changed_files files_at restore_files restore_plan undo_plan undo_restore",
    "importing": "catch_up_words import_paths",
    "many": "Batch each retag",
    "meaning": "embed set_semantic",
    "native": "open_session append set_fact delete_fact",
    "places": "add_workspace stop_workspace unwatch watch",
    "retention": "run_retention set_retention",
    "running": "run",
    "rules": "RULES check refusal",
    "sessions": "archive close compact delete fork interrupt note_add note_edit note_remove pause pin rename resume "
                "rewind send share share_project star tag unarchive write_back written_files",
    "summarizing": "summarize summary_request",
    "syncing": "decide set_default_rule set_project_rule set_sync_every set_target sync_now sync_plan",
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names.split()}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
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
