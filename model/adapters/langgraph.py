"""LangGraph's checkpointer over a Sessionscope store.

    from sessionscope.adapters.langgraph import SessionscopeSaver
    graph = builder.compile(checkpointer=SessionscopeSaver())      # the default store, or a path

The checkpoints live in the store's own file, in the tables of langgraph's SqliteSaver, written and
read by SqliteSaver itself (its serializer, its queries: nothing of langgraph's format is re-done
here). After every put the thread's new rows are read as the LangGraph importer reads a checkpointer
database the user imported (a mirror per thread, sessionscope.sources.langgraph.mirror, decodes only
what the save added): each checkpoint becomes a `step` event, the messages it added the
conversation's events, the state's keys facts; `update_state` on an old checkpoint is a branch in the
tree. That reading and storing runs a moment behind the saves, on a worker of the saver's (`behind.Behind`,
as the SDKs' stores do; `flush()` shows everything now): a put costs langgraph its own save alone, and a
graph's run is browsable while it runs. A process killed before its showing leaves the checkpoints unshown
until the next saver opens the store or the app scans (`catch_up`).
The session's fork and rewind are the LangGraph source's (they write into this same file through
langgraph). `delete_thread` removes the checkpoints, as langgraph asks, and is recorded in the audit
log; the session stays.

On a PostgreSQL store the checkpoints live in langgraph's PostgresSaver tables in the store's database, written
by PostgresSaver itself; those tables have no rowids to read on from, so after a put the mirror reads the
checkpoint that was saved (and after a shown write, the checkpoint it reached), at once, and what another process
saved is left to `catch_up`. In a team store each member's checkpoints are theirs alone (`sessionscope team init`
makes the tables, with an owner column and row rules, since a member may not make tables).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import sqlite3
import threading
import weakref
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from sessionscope.adapters.behind import Behind
from sessionscope.errors import InvalidInput, MissingExtra

try:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.sqlite import SqliteSaver
except ImportError as exc:  # the [langgraph] extra is not installed
    raise MissingExtra("the LangGraph checkpointer", "langgraph", exc.name or "langgraph") from exc

from sessionscope.sources.langgraph.importer import catch_up
from sessionscope.sources.langgraph.mirror import ThreadMirror
from sessionscope.sources.langgraph.reader import SHOWN_WRITES

log = logging.getLogger(__name__)


class SessionscopeSaver(BaseCheckpointSaver):
    """A checkpointer whose threads are sessions of a Sessionscope store (`store`: a Store, a path or a
    sqlite URL, or None for the default). Sync and async; the async methods run the same work on a
    worker thread. Safe to share between threads (SqliteSaver serialises on its own lock)."""

    def __init__(self, store=None, *, serde=None):
        super().__init__(serde=serde)
        from sessionscope.sources.scan import source_row
        from sessionscope.store.api import Store, open_store
        from sessionscope.store.locations import sqlite_path

        self._owned = not isinstance(store, Store)
        self.store = open_store(store) if self._owned else store
        from sessionscope.sources.langgraph import reader
        self._mirrors: dict[str, ThreadMirror] = {}
        self._mirror_lock = threading.Lock()
        # threads whose shown write (an interrupt, a resume, an error) is being saved and shown right now
        self._writing: collections.Counter[str] = collections.Counter()
        self._written = threading.Condition()
        # (the worker holds no reference to the saver: dropped without close(), it is collected and its worker ends;
        # what it had not shown is left to the next look, `catch_up`, as after a kill. Held to the end of the
        # process, its worker shows the rest as the process exits: behind._drain_at_exit)
        ref = weakref.ref(self)

        def show(thread: str) -> None:
            saver = ref()
            if saver is not None:
                saver._show_behind(thread)
        self._behind = Behind(self.store, show, "langgraph", writes=True)
        self._finalizer = weakref.finalize(self, self._behind.release)
        path = sqlite_path(self.store.url)
        if path is None:
            self._open_postgres(source_row, reader)
            catch_up(self.store)
            return
        self.path = path
        self._conn = sqlite3.connect(path, check_same_thread=False, timeout=30.0)
        self._conn.execute("PRAGMA synchronous=NORMAL")  # as the store's own connections (WAL: crash-safe)
        self.saver = SqliteSaver(self._conn, serde=self.serde)
        self.saver.setup()
        self._source = self.store.write(source_row, "langgraph", f"langgraph-saver://{path}", enabled=False)
        # the app's view of each thread is kept by a mirror that reads only what each save added, through the
        # same strict reader an import of this file uses (sessionscope.sources.langgraph.mirror)
        self._read_conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._reader = reader.saver(self._read_conn)
        catch_up(self.store)  # what a process killed between a save and its showing left unshown

    def _open_postgres(self, source_row, reader) -> None:
        """PostgresSaver over the store's own database (the login's: in a team store, its rows alone)."""
        if self.store.engine.dialect.name != "postgresql":
            raise InvalidInput(f"the LangGraph checkpointer keeps its checkpoints in a SQLite or PostgreSQL store, "
                               f"not {self.store.url.split('://')[0]}")
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
        except ImportError as exc:
            raise MissingExtra("the LangGraph checkpointer on a PostgreSQL store", "langgraph",
                               exc.name or "langgraph-checkpoint-postgres") from exc
        from sessionscope.sources.server_databases import connect, shown
        address = self.store.engine.url.render_as_string(hide_password=False)
        self.path = address  # (what its threads' sessions are known by: sessionscope.sources.langgraph.importer)
        self._conn = connect(address, write=True)
        self.saver = PostgresSaver(self._conn, serde=self.serde)
        from sessionscope.safety import team
        team.langgraph_tables_ready(self._conn)  # made by the store's owner (a member may not make tables)
        self._source = self.store.write(source_row, "langgraph", f"langgraph-saver://{shown(address)}", enabled=False)
        self._read_conn = connect(address)
        self._reader = reader.saver(self._read_conn)

    def flush(self) -> None:
        """Show every checkpoint saved so far as its session's events now (they are otherwise a moment behind)."""
        self._behind.flush()

    def close(self) -> None:
        self._finalizer.detach()
        self._behind.stop()
        self._conn.close()
        self._read_conn.close()
        if self._owned:
            self.store.close()

    # -- langgraph's saver does the storing; we make each thread a session ----------

    @property
    def _on_postgres(self) -> bool:
        return isinstance(self.path, str)

    @property
    def _shown_path(self) -> str:
        """The database, as it may be shown and recorded (an address without its password)."""
        from sessionscope.sources.server_databases import shown
        return shown(self.path) if self._on_postgres else str(self.path)

    def _browse(self, thread_id: str, saved: tuple[str, str] | None = None, written: tuple[str, str] | None = None) -> None:
        """Turn what is new in the thread into the session's events. A failure here is logged and never
        fails the graph: the checkpoint itself is already stored, and the next save, or the app's next
        scan (`catch_up`), shows it."""
        from sessionscope.sources.langgraph.importer import commit_mirror

        # under SqliteSaver's own lock: langgraph saves from several threads at once, and a save waiting on
        # this file's write lock in SQLite sleeps in steps of milliseconds; on this lock it wakes at once
        with self.saver.lock, self._mirror_lock:
            mirror = self._mirrors.get(thread_id)
            if mirror is None:
                mirror = self._mirrors[thread_id] = ThreadMirror(self.path, thread_id)
            try:
                if self._on_postgres:
                    events, problems, notes = mirror.read_saved(self._reader, self._read_conn, [saved] if saved else [],
                                                                [written] if written else [])
                else:
                    events, problems, notes = mirror.read_new(self._reader, self._read_conn)
                self.store.write(commit_mirror, self.path, self._source, mirror, events)
            except Exception:  # noqa: BLE001 - see the docstring
                self._mirrors.pop(thread_id, None)  # read again from the start next time (stored events stay)
                log.exception("sessionscope: thread %s was checkpointed but could not be shown as a session",
                              thread_id)
                return
        for p in problems + notes:
            log.warning("sessionscope: thread %s: %s", thread_id, p)

    def get_tuple(self, config):
        return self.saver.get_tuple(config)

    def list(self, config, *, filter: dict[str, Any] | None = None, before=None, limit: int | None = None) -> Iterator:
        return self.saver.list(config, filter=filter, before=before, limit=limit)

    def put(self, config, checkpoint, metadata, new_versions):
        out = self.saver.put(config, checkpoint, metadata, new_versions)
        c = out["configurable"]
        thread = str(c["thread_id"])
        if not self._on_postgres:
            self._behind.written(thread)  # (its mirror reads every row saved since, in the file's order)
            return out
        # langgraph saves a resume and the step that follows it on two threads of its own, and the step's save
        # may end first; a whole read has the answer before the step (its parent), and a shown event's link
        # never changes once stored: so a shown write already under way is shown before this checkpoint
        with self._written:
            self._written.wait_for(lambda: not self._writing[thread], timeout=30.0)
        self._browse(thread, saved=(c.get("checkpoint_ns", ""), c["checkpoint_id"]))
        return out

    def put_writes(self, config, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        if not any(channel in SHOWN_WRITES for channel, _value in writes):  # a task's channel writes show nowhere
            self.saver.put_writes(config, writes, task_id, task_path)
            return
        c = config["configurable"]
        thread = str(c["thread_id"])
        with self._written:
            self._writing[thread] += 1
        try:
            self.saver.put_writes(config, writes, task_id, task_path)
            if self._on_postgres:
                self._browse(thread, written=(c.get("checkpoint_ns", ""), c["checkpoint_id"]))
            else:
                self._behind.written(thread)
        finally:
            with self._written:
                self._writing[thread] -= 1
                if not self._writing[thread]:
                    del self._writing[thread]
                self._written.notify_all()

    def _show_behind(self, thread: str) -> None:
        """The worker's showing of a thread's saves (SQLite): once no shown write of the thread is being saved,
        as `put` waits on PostgreSQL (langgraph saves a resume and the step after it on threads of its own)."""
        with self._written:
            self._written.wait_for(lambda: not self._writing[thread], timeout=30.0)
        self._browse(thread)

    def delete_thread(self, thread_id: str) -> None:
        self.flush()  # what was saved and not shown yet is shown first: the session stays
        self.saver.delete_thread(thread_id)  # (takes SqliteSaver's lock, which _browse takes before ours)
        with self._mirror_lock:
            self._mirrors.pop(str(thread_id), None)  # a new mirror reads the thread again from its start
        self.store.audited("langgraph.delete_thread",
                           detail={"thread_id": str(thread_id), "database": self._shown_path,
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
