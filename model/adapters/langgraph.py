"""LangGraph's checkpointer over a Sessionscope store.

    from sessionscope.adapters.langgraph import SessionscopeSaver
    graph = builder.compile(checkpointer=SessionscopeSaver())      # the default store, or a path

The checkpoints live in the store's own file, in the tables of langgraph's SqliteSaver, written and
read by SqliteSaver itself (its serializer, its queries: nothing of langgraph's format is re-done
here). After every put the thread is read by the LangGraph importer, as if the store were a
checkpointer database the user imported: each checkpoint becomes a `step` event, the messages it
added the conversation's events, the state's keys facts; `update_state` on an old checkpoint is a
branch in the tree. So a graph's run is browsable while it runs. The session's fork and rewind are
the LangGraph source's (they write into this same file through langgraph). `delete_thread` removes
the checkpoints, as langgraph asks, and is recorded in the audit log; the session stays.

SQLite stores only for now: on PostgreSQL the same shape would wrap langgraph's PostgresSaver.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from ..errors import InvalidInput, MissingExtra

try:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.sqlite import SqliteSaver
except ImportError as exc:  # the [langgraph] extra is not installed
    raise MissingExtra("the LangGraph checkpointer", "langgraph", exc.name or "langgraph") from exc

log = logging.getLogger(__name__)


class SessionscopeSaver(BaseCheckpointSaver):
    """A checkpointer whose threads are sessions of a Sessionscope store (`store`: a Store, a path or a
    sqlite URL, or None for the default). Sync and async; the async methods run the same work on a
    worker thread. Safe to share between threads (SqliteSaver serialises on its own lock)."""

    def __init__(self, store=None, *, serde=None):
        super().__init__(serde=serde)
        from ..quick import sqlite_path
        from ..sources.scan import source_row
        from ..store import Store, open_store

        self._owned = not isinstance(store, Store)
        self.store = open_store(store) if self._owned else store
        path = sqlite_path(self.store.url)
        if path is None:
            raise InvalidInput("the LangGraph checkpointer keeps its checkpoints in a SQLite store for now; "
                               f"{self.store.url.split('://')[0]} is not supported yet")
        self.path = path
        self._conn = sqlite3.connect(path, check_same_thread=False, timeout=30.0)
        self.saver = SqliteSaver(self._conn, serde=self.serde)
        self.saver.setup()
        self._source = self.store.write(source_row, "langgraph", f"langgraph-saver://{path}", enabled=False)

    def close(self) -> None:
        self._conn.close()
        if self._owned:
            self.store.close()

    # -- langgraph's saver does the storing; we make each thread a session ----------

    def _browse(self, config) -> None:
        """Turn what is new in the config's thread into the session's events. A failure here is logged
        and never fails the graph: the checkpoint itself is already stored."""
        from ..sources import jsonl
        from ..sources.langgraph.importer import commit_threads, read_threads

        thread_id = str(config["configurable"]["thread_id"])
        state = jsonl.ReadState()
        try:
            by_thread = read_threads(self.store, self.path, state, only=thread_id)
            if by_thread:
                # no project: the store's file name says nothing of the graph
                self.store.write(commit_threads, self.path, self._source, by_thread, "")
        except Exception:  # noqa: BLE001 - see the docstring
            log.exception("sessionscope: thread %s was checkpointed but could not be shown as a session", thread_id)
        for p in state.problems:
            log.warning("sessionscope: thread %s: %s", thread_id, p.get("problem"))

    def get_tuple(self, config):
        return self.saver.get_tuple(config)

    def list(self, config, *, filter: dict[str, Any] | None = None, before=None, limit: int | None = None) -> Iterator:
        return self.saver.list(config, filter=filter, before=before, limit=limit)

    def put(self, config, checkpoint, metadata, new_versions):
        out = self.saver.put(config, checkpoint, metadata, new_versions)
        self._browse(out)
        return out

    def put_writes(self, config, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        self.saver.put_writes(config, writes, task_id, task_path)
        self._browse(config)

    def delete_thread(self, thread_id: str) -> None:
        self.saver.delete_thread(thread_id)
        self.store.audited("langgraph.delete_thread",
                           detail={"thread_id": str(thread_id), "database": str(self.path),
                                   "kept": "the session's events stay in the store"})

    def get_next_version(self, current, channel):
        return self.saver.get_next_version(current, channel)

    def get_delta_channel_history(self, *, config, channels):
        return self.saver.get_delta_channel_history(config=config, channels=channels)

    # -- async: the same, off the event loop -----------------------------------------

    async def aget_tuple(self, config):
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(self, config, *, filter: dict[str, Any] | None = None, before=None,
                    limit: int | None = None) -> AsyncIterator:
        for item in await asyncio.to_thread(lambda: list(self.list(config, filter=filter, before=before, limit=limit))):
            yield item

    async def aput(self, config, checkpoint, metadata, new_versions):
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def aget_delta_channel_history(self, *, config, channels):
        return await asyncio.to_thread(self.get_delta_channel_history, config=config, channels=channels)
