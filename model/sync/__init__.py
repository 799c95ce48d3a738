"""Sync (#38 item 3): the local store's shared sessions pushed to a team store, secrets redacted first.

The local store (SQLite on a laptop) stays the fast one; the team store (PostgreSQL, `sessionscope team`) is
where others see your work. What goes is the user's choice, kept in the local store:

- a session is pushed when it is shared (Session ▸ Share with the Team, `sessionscope sync share`) or its
  project's rule is `always`; a project whose rule is `ask` (the default) holds its new sessions until the user
  says yes or no to each; `never` keeps a project at home whatever is chosen for one of its sessions;
- a fork is pushed with the sessions it continues (its history is theirs), or held when one of them is not to be
  shared.

A push (`push.push`) is incremental, resumable and idempotent: the team copy itself says how far it got (its last
seq and last hash, read inside each write), so a cut connection, a sleep or a second run at once goes on from there
and never doubles an event. Every string that leaves is redacted with the export's rules (the store's placeholder
key, the user's patterns and dismissals): event text and payloads, the session's fields, notes. The team copy's
hash chain is over the redacted events (it verifies as a redacted copy: `meta.synced` counts what was replaced,
never the secret). Checkpoint file contents stay at home.
"""

from sessionscope.sync.choices import (
    RULES,
    SyncPlan,
    decide,
    default_rule,
    every_minutes,
    forget_target,
    plan,
    project_rules,
    remember_target,
    set_default_rule,
    set_every_minutes,
    set_project_rule,
    target,
    target_url,
)
from sessionscope.sync.pushing import SyncReport, last_report, push

__all__ = [
    "RULES", "SyncPlan", "SyncReport", "decide", "default_rule", "every_minutes", "forget_target", "last_report",
    "plan", "project_rules", "push", "remember_target", "set_default_rule", "set_every_minutes", "set_project_rule",
    "target", "target_url",
]
