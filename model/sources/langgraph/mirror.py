"""A thread kept in step with its checkpoints as a graph saves them (the store as LangGraph's checkpointer).

Reading a thread whole on every save made each save slower than the one before (a 300-step thread took
620 ms a step). A mirror remembers how far it has read, by the rows' `rowid`s in langgraph's own
tables, and decodes only what was added since: the new checkpoints, and the checkpoints that got an
interrupt, a resume or an error write. It reads rows by anyone (another process running the same
thread), and makes exactly the events a whole read of the database would make (same ids, same
links), so a later import of the file adds nothing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sessionscope.sources.langgraph import reader
from sessionscope.sources.langgraph.importer import INTERNAL_WRITES, _ThreadEvents, session_key
from sessionscope.store.incoming import NewEvent

KEEP = 16  # decoded checkpoint states kept in memory: a new checkpoint almost always hangs under a recent one


class ThreadMirror:
    """One thread's events, read so far (`built`), and where its reading stopped in langgraph's tables."""

    def __init__(self, path: Path | str, thread_id: str):
        self.thread_id = thread_id
        self.built = _ThreadEvents(session_key(path, thread_id), path)
        self.server_mark = ""  # on a PostgreSQL store: the thread's mark as its tables say after the last read
        self.seen_checkpoints = 0  # rowid of `checkpoints` read up to (every thread's rows: rowids only grow)
        self.seen_writes = 0
        self.newest = [0, 0]  # the newest rowid of this thread's checkpoints and shown writes: its mark

    @property
    def mark(self) -> str:
        """What `reader.thread_marks` says of the thread once it holds just what this mirror has read."""
        return self.server_mark or reader.mark(*self.newest)

    def read_saved(self, sv, con, saved: list[tuple[str, str]], written: list[tuple[str, str]]):
        """On a PostgreSQL store (its tables have no rowids to read on from): the events of the checkpoints this
        process just saved (`saved`) and of those that just got a shown write (`written`), each (ns, id), as
        `read_new` makes them; what another process saved is left to `catch_up`. (events, problems, notes)."""
        built, start = self.built, len(self.built.events)
        problems: list[str] = []
        notes: list[str] = []
        if not built.tail:  # the first time: the thread as it stands (a graph resumed from an earlier run)
            thread = reader.read_thread(sv, con, self.thread_id)
            problems += thread.problems
            if thread.tuples:
                built.origin(sv, thread.tuples[0])
            for t in thread.tuples:
                self._add(sv, t, notes, problems)
        else:
            for ns, cid in written:
                if (ns, cid) in built.tail and (t := self._tuple(sv, ns, cid, problems)) is not None:
                    built.add_pending(t)
            for ns, cid in saved:
                if (ns, cid) not in built.tail and (t := self._tuple(sv, ns, cid, problems)) is not None:
                    self._add(sv, t, notes, problems)
        self.server_mark = reader.thread_marks(con, self.thread_id).get(self.thread_id, "")
        built.forget(KEEP)
        events = built.events[start:]
        del built.events[:]
        return events, problems, notes

    def _add(self, sv, t, notes: list[str], problems: list[str]) -> None:
        self._recall_parent(sv, t)
        try:
            self.built.add(t, notes)
        except Exception as exc:  # noqa: BLE001 - one odd checkpoint never stops the thread
            problems.append(f"checkpoint {t.config['configurable'].get('checkpoint_id')}: {type(exc).__name__}: {exc}")

    def read_new(self, sv, con: sqlite3.Connection) -> tuple[list[NewEvent], list[str], list[str]]:
        """The events of what was saved since the last call: (events, problems, notes). `sv` is a
        SqliteSaver over `con` (the strict reader's, sessionscope.sources.langgraph.reader.saver)."""
        built, start = self.built, len(self.built.events)
        problems: list[str] = []
        notes: list[str] = []
        # up to the newest rows now (read first: a row added while we read waits for the next call); after the
        # first read, `+thread_id` keeps SQLite on the rowid range (the rows added since), not the thread's index
        top = con.execute("SELECT max(rowid) FROM checkpoints").fetchone()[0] or 0
        top_writes = con.execute("SELECT max(rowid) FROM writes").fetchone()[0] or 0
        by = "thread_id" if self.seen_checkpoints == 0 else "+thread_id"
        rows = con.execute(f"SELECT rowid, checkpoint_ns, checkpoint_id FROM checkpoints WHERE rowid > ? AND "
                           f"rowid <= ? AND {by} = ? ORDER BY checkpoint_id, checkpoint_ns",
                           (self.seen_checkpoints, top, self.thread_id)).fetchall()
        by = "thread_id" if self.seen_writes == 0 else "+thread_id"
        writes = con.execute(f"SELECT rowid, checkpoint_ns, checkpoint_id, channel FROM writes WHERE rowid > ? AND "
                             f"rowid <= ? AND {by} = ?", (self.seen_writes, top_writes, self.thread_id)).fetchall()
        fresh = {(ns, cid) for _r, ns, cid in rows}
        shown = [w for w in writes if w[3] in INTERNAL_WRITES]
        self.newest = [max([self.newest[0]] + [r[0] for r in rows]), max([self.newest[1]] + [w[0] for w in shown])]
        # writes that reached checkpoints read before come first: a whole read has them under their checkpoint
        # before its children (a resume is written to a checkpoint, then the step it resumed is saved)
        late = sorted({(ns, cid) for _r, ns, cid, _c in shown} - fresh)
        for ns, cid in late:
            if (t := self._tuple(sv, ns, cid, problems)) is not None:
                built.add_pending(t)
        for _rowid, ns, cid in rows:
            t = self._tuple(sv, ns, cid, problems)
            if t is None:
                continue
            if self.seen_checkpoints == 0 and not built.tail:
                built.origin(sv, t)  # a thread our fork made starts under the checkpoint it was forked at
            self._recall_parent(sv, t)
            try:
                built.add(t, notes)
            except Exception as exc:  # noqa: BLE001 - one odd checkpoint never stops the thread
                problems.append(f"checkpoint {cid}: {type(exc).__name__}: {exc}")
        self.seen_checkpoints, self.seen_writes = max(self.seen_checkpoints, top), max(self.seen_writes, top_writes)
        built.forget(KEEP)
        events = built.events[start:]
        del built.events[:]  # stored by the caller: the mirror keeps only what the next checkpoint needs
        return events, problems, notes

    def _tuple(self, sv, ns: str, cid: str, problems: list[str]):
        try:
            return sv.get_tuple({"configurable": {"thread_id": self.thread_id, "checkpoint_ns": ns,
                                                  "checkpoint_id": cid}})
        except Exception as exc:  # noqa: BLE001 - a blob langgraph cannot decode (unknown type, damage)
            problems.append(f"checkpoint {cid}{f' ({ns})' if ns else ''}: {type(exc).__name__}: {exc}")
            return None

    def _recall_parent(self, sv, t) -> None:
        """The parent's decoded state, if `forget` dropped it (a graph went back to an old checkpoint)."""
        parent = (t.parent_config or {}).get("configurable", {})
        me = (parent.get("checkpoint_ns", ""), parent.get("checkpoint_id"))
        if me[1] and me in self.built.tail and me not in self.built.values:
            if (p := self._tuple(sv, me[0], me[1], [])) is not None:
                self.built.recall(me, p.checkpoint)
