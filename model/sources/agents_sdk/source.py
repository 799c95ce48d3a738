"""OpenAI Agents SDK's operations (sessionscope.sources.base.Source): no command resumes a session (an
application does, with `SQLiteSession(id, path)`): the line to paste is that Python; fork and rewind
are the store's own (the database is only ever read)."""

from __future__ import annotations

from sessionscope.sources.agents_sdk.importer import KIND
from sessionscope.sources.base import LibrarySource


class AgentsSdkSource(LibrarySource):
    kind = KIND
    label = "OpenAI Agents SDK"
    badge = ("Agents", "#6e56cf")  # the session list's short name and colour
    package = "sessionscope.sources.agents_sdk"

    def catch_up(self, store, settle: float = 0.0):
        from sessionscope.sources.agents_sdk.queue import catch_up
        return catch_up(store, settle)

    def resume_line(self, session) -> str:
        db = session.meta.get("database", "sessions.db") if isinstance(session.meta, dict) else "sessions.db"
        return f"SQLiteSession({session.tool_id or session.id!r}, {db!r})  # from agents import SQLiteSession"


SOURCE = AgentsSdkSource()
