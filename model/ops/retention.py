"""The retention policy set and run as a user's action: every session it reaches goes the one path of its action
(archive, delete: the tool's rule, the tool's own work, its audit entry), so a retention run does to a session
only what the user could have done to it by hand, and the run itself is one more entry with what it did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sessionscope.history.read_models import Action, Changes
from sessionscope.ops.many import Batch, each
from sessionscope.ops.rules import refusal
from sessionscope.ops.sessions import archive, delete
from sessionscope.safety import audit, retention

if TYPE_CHECKING:
    from sessionscope.store.api import Store


def set_retention(store: Store, policy: retention.RetentionPolicy, *, actor: str | None = None) -> Changes:
    """Keep `policy` for the whole store (every client shares it), recorded with its values."""
    with audit.acting_as(actor):
        store.audited("retention.policy", lambda conn: retention.set_policy(conn, policy),
                      detail={"archive_after_days": policy.archive_after_days,
                              "purge_after_days": policy.purge_after_days})
    return Changes(Action.RETENTION, note="The retention policy is kept", recorded=True)


def run_retention(store: Store, *, dry_run: bool = False, now: float | None = None, actor: str | None = None) -> dict[str, Any]:
    """Apply the stored policy once: {archived, purged, skipped}, each skipped session with why. A dry run asks
    each session's rule and changes nothing; both are recorded (retention.dry_run, retention)."""
    with store.reader() as conn:
        planned = retention.plan(conn, retention.get_policy(conn), now)
    skipped = list(planned.skipped)
    with audit.acting_as(actor):
        if dry_run:
            archived = _allowed(store, planned.archive, "archive", skipped)
            purged = [sid for sid in _allowed(store, planned.purge, "delete", skipped) if _no_dependents(store, sid, skipped)]
        else:
            archived = _done(each(planned.archive, lambda sid: archive(store, sid, actor=actor)), skipped)
            purged = _done(each(planned.purge, lambda sid: delete(store, sid, actor=actor)), skipped)
        result = {"archived": archived, "purged": purged, "skipped": skipped}
        store.audited("retention.dry_run" if dry_run else "retention", detail=result)
    return result


def _done(batch: Batch, skipped: list[dict[str, Any]]) -> list[str]:
    skipped += [{"session": sid, "why": why} for sid, why in batch.failed]
    if batch.stopped:
        skipped.append({"session": None, "why": f"stopped: {batch.stopped}"})
    return [sid for c in batch.done for sid in sorted(c.session_ids)]


def _allowed(store: Store, ids: list[str], action: str, skipped: list[dict[str, Any]]) -> list[str]:
    """What the action's rule allows of `ids` (a dry run: nothing is done)."""
    allowed = []
    for sid in ids:
        why = refusal(store.session(sid), action)
        if why is None:
            allowed.append(sid)
        else:
            skipped.append({"session": sid, "why": why})
    return allowed


def _no_dependents(store: Store, session_id: str, skipped: list[dict[str, Any]]) -> bool:
    from sessionscope.history import sessions
    with store.reader() as conn:
        if sessions.dependents(conn, session_id):
            skipped.append({"session": session_id, "why": "other sessions fork from it"})
            return False
    return True
