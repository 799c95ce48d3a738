"""The store: the API an agent, a script, the CLI and the GUI all use.

A Store wraps one SQLAlchemy engine. Reads open short read transactions; every
mutation runs in one immediate write transaction (sessionscope.store.db.run_write), retried on
lock contention, and the actions are recorded in the audit log (sessionscope.safety.audit.audited): with
outcome "ok" in the same transaction, or "refused"/"error" afterwards when they fail. A user's
action goes through sessionscope.ops, which checks its source's rule first; the Store never calls
a source.
Methods return frozen views (sessionscope.history.read_models); a Store may be used from any thread.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Collection, Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput, SessionscopeError
from sessionscope.history import facts, reading, sessions
from sessionscope.history.read_models import (
    Action,
    ChainReport,
    Changes,
    EventView,
    FactDiff,
    ResumeContext,
    SearchHit,
    SessionView,
)
from sessionscope.recall import search
from sessionscope.safety import audit, damage, retention
from sessionscope.store import db, dictionaries, migrating
from sessionscope.store.append import HEAD, append_event
from sessionscope.store.ids import new_session_id, resolve
from sessionscope.store.schema import EVENT, SESSION
from sessionscope.store.views import StoreViews

COMPACTION = "compaction"


def open_store(url: str | os.PathLike[str] | None = None) -> "Store":
    """Open (creating or migrating) the store at `url`, a SQLAlchemy URL or file path.

    Without a url: $SESSIONSCOPE_STORE, else SQLite in the user data directory.
    """
    url = db.as_url(url) if url else db.default_url()
    from sessionscope.safety import privacy
    privacy.prepare(url)  # a new store is its user's alone (0600, in a 0700 folder)
    engine = db.create_store_engine(url)
    migrating.migrate(engine, url)
    return Store(url, engine)


class Store(StoreViews):
    """Sessions, their append-only event logs, durable facts and the audit log."""

    def __init__(self, url: str, engine):
        self.url = url
        self.engine = engine
        self._soundness: str | None = None  # "" once checked sound; SQLite's finding when damaged
        if engine.dialect.name == "sqlite":
            dictionaries.watch_file(engine.url.database or "")

    def refuse_if_damaged(self) -> None:
        """Before a big write (an import): SQLite's quick check of the file, once per Store (a 500 MB store in
        ~0.4 s); StoreUnavailable when the file is damaged, so nothing more is written into it."""
        if self._soundness is None:
            problems = db.integrity(self.engine, quick=True)
            self._soundness = problems[0] if problems else ""
        if self._soundness:
            raise db.StoreUnavailable(db.DAMAGED_ADVICE.format(problem=self._soundness))

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------------

    @contextlib.contextmanager
    def reader(self) -> Iterator[Connection]:
        """A read transaction (a consistent snapshot under WAL)."""
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    def write(self, work: Callable[..., Any], *args, **kwargs) -> Any:
        """Run `work(conn, …)` in one write transaction (retried on contention)."""
        return db.run_write(self.engine, work, *args, **kwargs)

    def write_session(self, session_id: str, work: Callable[..., Any], *args, **kwargs) -> Any:
        """`write` for work that reads and changes one session alone and numbers its events with
        `keys.take_keys` (a sync's page): on PostgreSQL beside other sessions' writers (`db.run_session_write`)."""
        return db.run_session_write(self.engine, session_id, work, *args, **kwargs)

    def write_beside(self, names: Collection[str], work: Callable[..., Any], *args, **kwargs) -> Any:
        """`write` for work that reads and changes only what these names stand for (sessions by their ids, an
        import's batch; a row no session holds by a name of its own, as `db.AUDIT_LOCK`), numbering its events with
        `keys.new_keys`: on PostgreSQL it holds their locks and the store's lock shared, beside writers of other
        names (another member's import, an agent's appends). No name: `write`, under the store's whole lock."""
        return db.run_session_write(self.engine, names, work, *args, **kwargs)

    def audited(self, action: str, work: Callable[[Connection], Any] | None = None, **entry: Any) -> Any:
        """`work(conn)` and its audit entry in one write transaction (sessionscope.safety.audit.audited)."""
        return audit.audited(self, action, work, **entry)

    def resolve_session(self, key: str) -> str:
        """A full session id from an id or an unambiguous prefix."""
        with self.reader() as conn:
            return resolve(conn, SESSION, key, "session")

    def short_ids(self, session_ids: list[str]) -> dict[str, str]:
        """{session id: the shortest prefix (≥ 8 characters) that names it alone in this store}."""
        from sessionscope.store.ids import short_ids
        with self.reader() as conn:
            return short_ids(conn, SESSION, session_ids)

    def resolve_event(self, key: str) -> str:
        """A full event id from an id or an unambiguous prefix."""
        with self.reader() as conn:
            return resolve(conn, EVENT, key, "event")

    # -- the lifecycle, in the order it runs --------------------------------------

    def open_session(self, *, title: str = "", agent: str = "", metadata: dict | None = None,
                     budget: dict | None = None, **fields: Any) -> SessionView:
        """Start a session: its identity and initial record. Returns it."""
        fields["session_id"] = fields.get("session_id") or new_session_id()

        def work(conn):
            sid = sessions.create_session(conn, title=title, agent=agent, meta=metadata, budget=budget, **fields)
            return reading.get_session(conn, sid)
        return self.audited("open", work, session_id=fields["session_id"], detail=lambda s: {"title": s.title})

    def append(self, session_id: str, kind: str, *, role: str | None = None, text: str = "",
               payload: Any = None, **fields: Any) -> EventView:
        """Append one event under the session's head; returns it with seq and hash. On PostgreSQL, beside appends to
        other sessions (`db.run_session_write`)."""
        return db.run_session_write(self.engine, session_id, lambda conn: append_event(
            conn, session_id, kind=kind, role=role, text=text, payload=payload, **fields))

    def set_fact(self, session_id: str, key: str, value: Any, **fields: Any) -> EventView:
        return self.append(session_id, facts.FACT_SET, payload={"key": key, "value": value}, **fields)

    def delete_fact(self, session_id: str, key: str, **fields: Any) -> EventView:
        return self.append(session_id, facts.FACT_DELETE, payload={"key": key}, **fields)

    def compact(self, session_id: str, summary: str, *, actor: str | None = None, **fields: Any) -> EventView:
        """A summary event: what came before leaves the resume context, not the log."""
        return self.audited("compact", lambda conn: append_event(
            conn, session_id, kind=COMPACTION, role="system", text=summary, action="compact", **fields),
            session_id=session_id, actor=actor)

    def resume(self, session_id: str, *, actor: str | None = None) -> ResumeContext:
        """Make the session active and return what an agent needs to continue it."""
        self.audited("resume", lambda conn: sessions.transition(conn, session_id, "resume"), session_id=session_id,
                     actor=actor)
        return self.resume_context(session_id)

    def resume_context(self, session_id: str) -> ResumeContext:
        with self.reader() as conn:
            s = reading.get_session(conn, session_id)
            transcript = reading.path_events(conn, s.head_event_id, COMPACTION) if s.head_event_id else []
            fold = facts.fold_at(conn, s.head_event_id)[0] if s.head_event_id else {}
        return ResumeContext(session=s, facts=fold, transcript=tuple(transcript), budget_left=s.budget_left())

    # The session's own operations, each audited with its work. A user's action reaches them through
    # sessionscope.ops, which checks the source's rule first; an agent writing natively calls them directly.

    def rewind(self, session_id: str, event_id: str, *, actor: str | None = None) -> Changes:
        """Move the head back to `event_id`; later appends branch from there."""
        old = self.audited("rewind", lambda conn: sessions.rewind(conn, session_id, event_id), session_id=session_id,
                           event_id=event_id, detail=lambda old: {"previous_head": old}, actor=actor)
        return Changes(Action.REWIND, session_ids=frozenset({session_id}), session_list=True, session=self.session(session_id),
                       detail={"previous_head": old}, recorded=True)

    def fork(self, session_id: str, event_id: str, title: str | None = None, *, actor: str | None = None) -> Changes:
        """A new session continuing from `event_id`; the shared prefix is not copied."""
        new = self.audited("fork", lambda conn: sessions.fork(conn, session_id, event_id, title), session_id=session_id,
                           event_id=event_id, detail=lambda sid: {"new_session": sid}, actor=actor)
        return Changes(Action.FORK, session_ids=frozenset({session_id, new}), session_list=True, session=self.session(new),
                       detail={"new_session": new},
                       recorded=True)

    def _transition(self, session_id: str, action: str, actor: str | None = None) -> Changes:
        old, new = self.audited(action, lambda conn: sessions.transition(conn, session_id, action), session_id=session_id,
                                detail=lambda r: {"from": r[0], "to": r[1]}, actor=actor)
        return Changes(Action(action), session_ids=frozenset({session_id}), session_list=True, session=self.session(session_id),
                       detail={"from": old, "to": new}, recorded=True)

    def pause(self, session_id: str, *, actor: str | None = None) -> Changes:
        return self._transition(session_id, "pause", actor)

    def mark_idle(self, session_id: str, *, actor: str | None = None) -> Changes:
        return self._transition(session_id, "idle", actor)

    def close_session(self, session_id: str, *, actor: str | None = None) -> Changes:
        return self._transition(session_id, "close", actor)

    def archive(self, session_id: str, *, actor: str | None = None) -> Changes:
        """Read-only and hidden from the default list; unarchive brings it back."""
        return self._transition(session_id, "archive", actor)

    def unarchive(self, session_id: str, *, actor: str | None = None) -> Changes:
        return self._transition(session_id, "unarchive", actor)

    def report_status(self, session_id: str, action: str) -> Changes:
        """A status change a managed-agents backend reports: start, reschedule, terminate."""
        if action not in ("start", "reschedule", "terminate"):
            raise InvalidInput(f"{action!r} is not a reported status change (start, reschedule, terminate)")
        return self._transition(session_id, action)

    def delete(self, session_id: str, *, actor: str | None = None) -> Changes:
        """Remove a session and its events for good (refused while running or forked from)."""
        n = self.audited("delete", lambda conn: sessions.delete(conn, session_id), session_id=session_id,
                         detail=lambda n: {"events_removed": n}, actor=actor)
        return Changes(Action.DELETE, session_ids=frozenset({session_id}), session_list=True, detail={"events_removed": n},
                       recorded=True)

    def rename(self, session_id: str, title: str, *, actor: str | None = None) -> Changes:
        self.audited("rename", lambda conn: sessions.update_fields(conn, session_id, title=title), session_id=session_id,
                     detail={"title": title}, actor=actor)
        return Changes(Action.RENAME, session_ids=frozenset({session_id}), session_list=True, session=self.session(session_id),
                       recorded=True)

    def set_tags(self, session_id: str, tags: list[str], *, actor: str | None = None) -> Changes:
        self.audited("tag", lambda conn: sessions.update_fields(conn, session_id, tags=tags), session_id=session_id,
                     detail={"tags": sorted(set(tags))}, actor=actor)
        return Changes(Action.TAG, session_ids=frozenset({session_id}), session_list=True, session=self.session(session_id),
                       recorded=True)

    # -- reading ------------------------------------------------------------------

    def _tolerant(self, read: Callable[[Connection], Any]) -> tuple[Any, bool]:
        """(`read(conn)`, False); when a row's text is not UTF-8 (a damaged store), read again with its bad bytes
        replaced, so one damaged row is shown (marked) instead of failing every row with it: (that, True)."""
        with self.reader() as conn:
            try:
                return read(conn), False
            except (sa.exc.OperationalError, sqlite3.OperationalError) as exc:  # (the listing reads the driver's rows)
                if not db.undecodable(exc):
                    raise
            with db.tolerant_text(conn):
                return read(conn), True

    def session(self, session_id: str) -> SessionView:
        s, damaged = self._tolerant(lambda conn: reading.get_session(conn, session_id))
        return damage.marked(s) if damaged else s

    def sessions(self, **filters: Any) -> list[SessionView]:
        """Sessions, newest activity first; see sessionscope.history.reading.list_sessions for filters."""
        rows, damaged = self._tolerant(lambda conn: reading.list_sessions(conn, **filters))
        return [damage.marked(s) for s in rows] if damaged else rows

    def same_tool_id(self, session: SessionView) -> list[SessionView]:
        """Other sessions carrying the session's tool id (sessionscope.history.reading.same_tool_id)."""
        with self.reader() as conn:
            return reading.same_tool_id(conn, session)

    def notes(self, session_id: str | None = None) -> list:
        """The notes (NoteView): one session's in the order of its history, or every note, newest first."""
        from sessionscope.recall import notes
        with self.reader() as conn:
            return notes.of(conn, session_id)

    def pins(self, session_id: str | None = None) -> list:
        """The pinned events (PinView), newest pin first: one session's, or every session's."""
        with self.reader() as conn:
            return reading.pins(conn, session_id)

    def count_sessions(self, **filters: Any) -> int:
        with self.reader() as conn:
            return reading.count_sessions(conn, **filters)

    def source_locations(self, kind: str | None = None, *, unwatched: bool = False) -> list[str]:
        """Where the enabled sources of `kind` (of every tool reading files, by default) live: what a rescan
        reads; with `unwatched`, also those the user stopped watching (they were imported once). A
        managed-agents workspace is an API, synced on its own (sources.managed_agents.sync)."""
        from sessionscope.store.schema import SOURCE
        q = sa.select(SOURCE.c.location).where(SOURCE.c.kind != "native")
        if not unwatched:
            q = q.where(SOURCE.c.enabled.is_(True))
        if not kind:
            q = q.where(SOURCE.c.kind != "managed_agents")
        from sessionscope.safety.team import own_sources
        with self.reader() as conn:  # (a team store: this member's own places; another's are no rescan of theirs)
            q = q.where(own_sources(conn))
            return list(conn.execute(q.where(SOURCE.c.kind == kind) if kind else q).scalars())

    def session_counts(self) -> dict[str, Any]:
        """Counts for the sidebar (sessionscope.history.reading.session_counts)."""
        with self.reader() as conn:
            return reading.session_counts(conn)

    def tag_counts(self, *, include_archived: bool = False) -> dict[str, int]:
        """Every tag in use → how many sessions carry it, most used first (sessionscope.history.reading.tag_counts)."""
        with self.reader() as conn:
            return reading.tag_counts(conn, include_archived=include_archived)

    def fork_counts(self) -> dict[str, int]:
        """How many sessions fork from each session."""
        col = SESSION.c.forked_from_session
        with self.reader() as conn:
            return dict(conn.execute(sa.select(col, sa.func.count()).where(col.is_not(None)).group_by(col)).all())

    def event(self, event_id: str) -> EventView:
        with self.reader() as conn:
            return reading.get_event(conn, event_id)

    def events(self, session_id: str, brief: bool = False, **window: Any) -> list[EventView]:
        """The session's log by seq range (from_seq, to_seq) and/or time (since, until); `brief` is a hint
        the quick reader (sessionscope.store.quick) takes, here every event is whole."""
        def read(conn):
            reading.get_session(conn, session_id)
            return reading.event_slice(conn, session_id, **window)
        return self._tolerant(read)[0]

    def branch(self, session_id: str, head: str | None = None) -> list[EventView]:
        """Events from the root to `head` (default: the session's head), across forks."""
        with self.reader() as conn:
            head = head or reading.get_session(conn, session_id).head_event_id
            return reading.path_events(conn, head) if head else []

    def branch_view(self, session_id: str, head: str | None = None) -> list[EventView]:
        """The branch as a reader sees it: the path plus the side lines of its turns.

        With `head`, the branch up to that event: it ends there (sessionscope.history.branch)."""
        return self.events_by_ids(self.branch_ids(session_id, head))

    def branch_ids(self, session_id: str, head: str | None = None, skip_kinds: tuple[str, ...] = (),
                   include_subagents: bool = False) -> list[str]:
        """Ids of the branch as a reader sees it (cheap: no payloads), for paged views.

        With include_subagents, each subagent run follows the event that spawned it.
        """
        return self.branch_outline(session_id, head, skip_kinds, include_subagents).ids

    def branch_outline(self, session_id: str, head: str | None = None, skip_kinds: tuple[str, ...] = (),
                       include_subagents: bool = False):
        """The branch as branch_ids gives it, with each row's kind and each turn's tokens.

        Without `head`, the session's head branch, from the outline cache when it is fresh
        (sessionscope.history.outline). With `head`, the branch up to that event, which ends there: nothing
        written after it is part of it, not even when it is the session's head.
        """
        from sessionscope.history import outline
        with self.reader() as conn:
            if head is not None:
                return outline.shape(outline.walked(conn, head), skip_kinds, include_subagents)
            reading.get_session(conn, session_id)
            entries, walked = outline.head_entries(conn, session_id)
        if walked and entries.ids:
            with contextlib.suppress(SessionscopeError):  # a cache: failing to store it is harmless
                db.try_write(self.engine, outline.store_entries, session_id, *walked)
        return outline.shape(entries, skip_kinds, include_subagents)

    def tool_pairs(self, ids: list[str], kinds: list[str], sidechain: list[bool] | None = None) -> dict[str, str]:
        """{result id: the call it answers} along a branch in reading order (sessionscope.history.pairing): the
        payloads of its tool calls and results are read, nothing else."""
        from sessionscope.history import pairing
        wanted = [i for i, k in zip(ids, kinds) if k in (pairing.CALL, pairing.RESULT)]
        payloads: dict[str, str] = {}
        with self.reader() as conn:
            for n in range(0, len(wanted), 500):
                chunk = wanted[n:n + 500]
                payloads.update(conn.execute(sa.select(EVENT.c.id, EVENT.c.payload).where(EVENT.c.id.in_(chunk))).all())
        side = sidechain or [False] * len(ids)
        return pairing.pair((i, k, payloads.get(i), sc) for i, k, sc in zip(ids, kinds, side))

    def turn_end(self, event_id: str) -> str:
        """The last event of the turn `event_id` is in (before the next prompt): "fork at end of turn"."""
        from sessionscope.history.branch import turn_end
        with self.reader() as conn:
            reading.get_event(conn, event_id)
            return turn_end(conn, event_id)

    WARM_MIN_EVENTS = 2000  # below this a session opens in a few ms anyway

    def warm(self, session_ids, min_events: int | None = None) -> None:
        """Make big sessions quick to open: their head branch walked and stored, the facts at
        their head folded and snapshotted, their vital signs folded. Importers call this for what they touched; small
        sessions are left to be walked when opened (they cost more to warm in bulk than to open). On a team store,
        every session's reports are folded too (`derive_for_readers`)."""
        floor = self.WARM_MIN_EVENTS if min_events is None else min_events
        session_ids = list(session_ids)
        with self.reader() as conn:  # the few big ones, in one query (a first import touches hundreds)
            big = reading.heads_of_big(conn, session_ids, floor)
        for sid, head in big:
            with contextlib.suppress(SessionscopeError):
                self.branch_outline(sid)
                self.facts_at(head)
        if big:  # and their vital signs (the strip and the list ask for them as the session opens)
            with contextlib.suppress(SessionscopeError):
                self.vitals([sid for sid, _head in big])
        with contextlib.suppress(SessionscopeError):  # (a team store's members can keep none of it themselves)
            self.derive_for_readers(session_ids)

    def events_by_ids(self, ids: list[str]) -> list[EventView]:
        from sessionscope.history.branch import events_by_ids
        with self.reader() as conn:
            return events_by_ids(conn, ids)

    def facts_at(self, event_id: str) -> dict[str, Any]:
        """The durable facts as they stood at `event_id` (caching snapshots on the way)."""
        with self.reader() as conn:
            fold, snaps = facts.fold_at(conn, event_id)
        if snaps:
            with contextlib.suppress(SessionscopeError):  # a cache: failing to store it is harmless
                db.try_write(self.engine, facts.store_snapshots, snaps)
        return fold

    def head_facts(self, session_id: str) -> dict[str, Any]:
        head = self.session(session_id).head_event_id
        return self.facts_at(head) if head else {}

    def diff(self, event_a: str, event_b: str) -> FactDiff:
        """What changed in the facts from A to B (any two events, any branches)."""
        return facts.diff(self.facts_at(event_a), self.facts_at(event_b))

    def search(self, text: str, *, limit: int = 50, session_id: str | None = None,
               order: str = "relevance", fuzzy: bool = True) -> list[SearchHit]:
        """Events and notes `text` finds (sessionscope.recall.query's language), the best first or ("time") the newest.
        With search by meaning on (sessionscope.recall.semantic), the best first fuses the words' ranking with the
        meaning's. `*part*` finds the words holding it; a query that finds nothing has its typos mended (`fuzzy`),
        each hit then saying what was searched (SearchHit.did_you_mean)."""
        from sessionscope.recall import semantic, terms
        meaning = semantic.ranker(self) if order == "relevance" else None
        words = terms.store_words(self) if self.engine.dialect.name == "sqlite" else None
        with self.reader() as conn:
            return search.search(conn, text, limit=limit, session_id=session_id, order=order, meaning=meaning,
                                 words=words, fuzzy=fuzzy)

    def catch_up_words(self, pause=None) -> int:
        """Bring the words `*part*` and typo searches ask (sessionscope.recall.terms) up to the newest event, when this
        store keeps them; how many events' words were read (0 on PostgreSQL, whose trigram index is the table's)."""
        if self.engine.dialect.name != "sqlite":
            return 0
        from sessionscope.recall import terms
        words = terms.store_words(self)
        assert words.write is not None  # (the Store's words are written in its own transactions)
        return terms.catch_up(words.run, words.write, pause or (lambda: None))

    def verify(self, session_id: str | None = None) -> list[ChainReport]:
        """Recompute hash chains; each report names the first broken link, if any. A session whose rows cannot
        be read (a damaged store) is reported with the first event that cannot, and the check goes on."""
        with self.reader() as conn:
            ids = [session_id] if session_id else [s for s in conn.execute(
                SESSION.select().with_only_columns(SESSION.c.id).order_by(SESSION.c.id)).scalars()]
        return [damage.verify_session(self, sid) for sid in ids]

    def integrity(self) -> list[str]:
        """SQLite's check of the store file's structure ([] when sound; always [] on PostgreSQL)."""
        return db.integrity(self.engine)

    def verify_blobs(self) -> list[dict]:
        """The kept file contents whose bytes no longer match their hash (sessionscope.store.blobs.verify_all)."""
        from sessionscope.store import blobs
        with self.reader() as conn:
            return blobs.verify_all(conn)

    def change_mark(self) -> tuple[int, int]:
        """(settled event pk, settled audit id): moves whenever anyone, in any process, writes. Two index
        lookups, asked every two seconds: a new session, a status change or a delete is audited, and
        every event raises the pk, so nothing needs counting. Both are the settled keys (store.settled): on
        PostgreSQL a write to one session still in flight may commit a row below the largest stored."""
        from sessionscope.store import settled
        with self.reader() as conn:
            return settled.settled_key(conn), settled.settled_key(conn, "audit")

    def changes_since(self, mark: tuple[int, int]) -> Changes:
        """What changed after `mark` (from change_mark): the sessions that got events, and the list."""
        with self.reader() as conn:
            ids = conn.execute(sa.select(EVENT.c.session_id).distinct().where(EVENT.c.pk > mark[0])).scalars().all()
        return Changes(Action.STORE, session_ids=frozenset(ids), session_list=True)

    def audit_log(self, session_id: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        with self.reader() as conn:
            return audit.entries(conn, session_id, limit)

    # -- retention ----------------------------------------------------------------

    def retention_policy(self) -> retention.RetentionPolicy:
        with self.reader() as conn:
            return retention.get_policy(conn)

    # (set and run through sessionscope.ops: each session it reaches by its tool's own rules)


__all__ = ["open_store", "Store", "HEAD"]
