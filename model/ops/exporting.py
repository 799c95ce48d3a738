"""Export (Markdown, HTML, JSONL, a tool's own format) and the redaction settings it reads: recorded here, as
every action is; the writing is sessionscope.export's."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from sessionscope.export import core
from sessionscope.safety import audit

if TYPE_CHECKING:
    from sessionscope.store.api import Store


def export(store: Store, request: core.ExportRequest, path: str | os.PathLike[str] | None, *,
           progress: Callable[[int, int, str], None] | None = None,
           cancel: threading.Event | None = None, actor: str | None = None) -> core.ExportReport:
    """Write the export to `path` (atomically: a cancelled or failed export leaves nothing); recorded with
    what it wrote (ok), or why it did not (refused, error, cancelled). The report says what was written."""
    with audit.acting_as(actor):
        try:
            report = core.export(store, request, path, progress=progress, cancel=cancel)
        except Exception as exc:
            sessions: tuple[str, ...] | list[str] = getattr(exc, "audit_detail", {}).get("sessions") or ()
            audit.failed(store, "export", exc, session_id=sessions[0] if len(sessions) == 1 else None)
            raise
        audit.audited(store, "export", session_id=report.session_ids[0] if len(report.session_ids) == 1 else None,
                      detail=report.detail)
    return report


def set_redaction_patterns(store: Store, patterns: list[str], *, actor: str | None = None) -> None:
    """The user's own patterns (a regular expression each), for every client of the store."""
    with audit.acting_as(actor):
        core.set_redaction_patterns(store, patterns)


def set_allowed_values(store: Store, placeholders: list[str], *, actor: str | None = None) -> None:
    """The found values a user said are no secret, by their placeholders."""
    with audit.acting_as(actor):
        core.set_allowed_values(store, placeholders)
