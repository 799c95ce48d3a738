"""OpenAI Agents SDK's operations (model.sources.base.Source): no command resumes a session (an
application does, with `SQLiteSession(id, path)`): the line to paste is that Python; fork and rewind
are the store's own (the database is only ever read)."""

from __future__ import annotations

from ..base import Source
from .importer import KIND


class AgentsSdkSource(Source):
    kind = KIND
    label = "OpenAI Agents SDK"

    def allows(self, action: str, status: str | None) -> bool:
        if action == "copy_resume":
            return True  # the SQLiteSession(...) line an application resumes it with
        if action in ("resume", "compact"):
            return False  # an application resumes it; a summary of ours is not an item it wrote
        return super().allows(action, status)

    def claims(self, path) -> bool:
        from .importer import claims
        return claims(path)

    def import_paths(self, store, paths, *, progress=None, cancel=None, warm=True, only=None):
        from .importer import import_paths
        return import_paths(store, paths, progress=progress, cancel=cancel, warm=warm, only=only)

    def resume_line(self, session) -> str:
        db = session.meta.get("database", "sessions.db") if isinstance(session.meta, dict) else "sessions.db"
        return f"SQLiteSession({session.tool_id or session.id!r}, {db!r})  # from agents import SQLiteSession"


SOURCE = AgentsSdkSource()
