"""LangGraph's operations (sessionscope.sources.base.Source): a thread is resumed by the application that
compiled the graph (the line to paste is that Python); fork and rewind go through langgraph's own API
into the user's database, after the app has named the file."""

from __future__ import annotations

from sessionscope.sources.base import LibrarySource
from sessionscope.sources.langgraph.importer import KIND


class LangGraphSource(LibrarySource):
    kind = KIND
    label = "LangGraph"
    badge = ("LangGraph", "#1c3c3c")  # the session list's short name and colour
    package = "sessionscope.sources.langgraph"

    def refusal(self, action: str, status: str | None) -> str | None:
        if action in ("fork", "rewind"):
            return None  # they add a checkpoint to the tool's database, whatever the store's status
        return super().refusal(action, status)

    def resume_line(self, session) -> str:
        from sessionscope.sources.langgraph.actions import resume_line
        meta = session.meta if isinstance(session.meta, dict) else {}
        return resume_line(meta.get("database", "checkpoints.sqlite"), session.tool_id or session.id)

    def fork_prompt(self, session) -> str:
        return (f"LangGraph forks by copying a checkpoint: this adds a new thread to {self._file(session)}, "
                "starting from this checkpoint (nothing there is changed or removed).")

    def rewind_prompt(self, session) -> str:
        return (f"This adds a copy of the checkpoint to thread {session.tool_id!r} in {self._file(session)} "
                "(langgraph's update_state): the next run of the graph continues from it; what came after "
                "stays in the thread's history as a branch.")

    def catch_up(self, store, settle: float = 0.0):
        from sessionscope.sources.langgraph.importer import catch_up
        return catch_up(store, settle)

    def fork(self, store, session_id, at, title=None):
        from sessionscope.sources.langgraph.actions import fork
        return fork(store, session_id, at, title)

    def rewind(self, store, session_id, to):
        from sessionscope.sources.langgraph.actions import rewind
        return rewind(store, session_id, to)

    @staticmethod
    def _file(session) -> str:
        meta = session.meta if isinstance(session.meta, dict) else {}
        return meta.get("database", "its database")


SOURCE = LangGraphSource()
