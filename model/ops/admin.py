"""What changes who may do what, or which agents report to the store: a team store's rules and members, and the
agents' hooks. Each through its audit entry (#59: `team init` and `team add-member` granted rights, and `hooks
install` rewrote other tools' settings, with no entry)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sessionscope.safety import audit, team

if TYPE_CHECKING:
    from sessionscope.store.api import Store


def team_init(store: Store, *, actor: str | None = None) -> list[str]:
    """Turn a team store's rules on (the tables' owner only); what was done, in words, recorded with it."""
    with audit.acting_as(actor):
        return store.audited("team.init", team.init, detail=lambda done: {"done": done})


def team_add_member(store: Store, name: str, *, admin: bool = False, password: str | None = None,
                    actor: str | None = None) -> str:
    """Make `name` a member (an admin with `admin`); the password is never recorded."""
    with audit.acting_as(actor):
        return store.audited("team.add_member", lambda conn: team.add_member(conn, name, admin=admin, password=password),
                             detail={"member": name, "admin": admin, "password_set": password is not None})


def hooks(store: Store | None, action: str, tools: list[Any], location: str | None, *, dry_run: bool = False,
          actor: str | None = None, status_line: bool = False) -> list[Any]:
    """Install or uninstall the agents' hooks (sessionscope.live.hook_install), each tool's settings done or refused on
    its own; recorded in `store` when one is given (a dry run changes nothing and records nothing)."""
    from sessionscope.errors import InvalidInput
    from sessionscope.live import hook_install
    changes = []
    for t in tools:
        try:
            changes.append(hook_install.install(t, location, dry_run=dry_run, status_line=status_line)
                           if action == "install"
                           else hook_install.uninstall(t, dry_run=dry_run))
        except InvalidInput as exc:
            changes.append(hook_install.Change(t.name, str(t.settings()), [], "", 0, False, problem=str(exc)))
    if store is not None and not dry_run:
        with audit.acting_as(actor):
            store.audited(f"hooks.{action}", detail={"tools": [
                {"tool": c.tool, "settings": c.settings, "written": c.written, "removed": c.removed,
                 "problem": c.problem, "status_line": c.status_line} for c in changes]})
    return changes
