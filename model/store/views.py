"""The store's derived views: the reports folded from every session (usage and cost, tool outcomes) and a session's
place among the others (its branch tree, the forks of it, its lineage). A part of sessionscope.store.api.Store, kept
apart so each file stays one subject; these only read the store, or write its caches."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from sessionscope.errors import SessionscopeError
from sessionscope.history import reading
from sessionscope.history.read_models import SessionView
from sessionscope.store import db
from sessionscope.store.schema import SESSION


class StoreViews:
    """Needs the Store's `engine`, `reader()`, `write()`, `session()` and `branch_outline()` (declared here for the
    type checker; sessionscope.store.api.Store defines them)."""

    if TYPE_CHECKING:
        from sqlalchemy.engine import Connection, Engine

        engine: Engine

        def reader(self) -> contextlib.AbstractContextManager[Connection]: ...
        def write(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...
        def session(self, session_id: str) -> SessionView: ...
        def branch_outline(self, session_id: str, head: str | None = None, skip_kinds: tuple[str, ...] = (),
                           include_subagents: bool = False) -> Any: ...

    def usage(self, **query: Any):
        """Token usage and cost by day or week and project, model or source (sessionscope.insight.usage.report);
        folds the sessions that changed since the last report into the usage cache."""
        from sessionscope.insight import usage
        from sessionscope.store import gcpause
        folded: dict = {}
        # (never under the write lock: folding a big store takes seconds; and with the collector paused: a team's
        # 35,000 sessions' rows are a few hundred thousand objects, no cycles among them, that its passes walked
        # again and again, a fifth of the report)
        with self.reader() as conn, gcpause.paused():
            r = usage.report(conn, folded=folded, **query)
        self._keep(usage.save, folded)
        return r

    def usage_table(self, **query: Any):
        """`sessionscope usage`: the usage report's rows summed by day, week, month, session, project, model or tool
        (sessionscope.insight.spend.table); folds what changed into the usage cache, as usage does."""
        from sessionscope.insight import spend, usage
        from sessionscope.store import gcpause
        folded: dict = {}
        with self.reader() as conn, gcpause.paused():  # (as `usage`)
            rows, info = usage.rows_and_sessions(conn, None, folded)
        self._keep(usage.save, folded)
        return spend.table(rows, info, **query)

    def usage_entries(self, since_ts: float, until_ts: float, tool: str | None = None,
                      sessions: list[str] | None = None):
        """Each reply that spent tokens between two times, oldest first (sessionscope.insight.spend.entries)."""
        from sessionscope.insight import spend
        from sessionscope.store.payloads import unpack_kept
        with self.reader() as conn:
            kept = conn.dialect.name == "sqlite"
            sql, params = spend.entries_query(since_ts, until_ts, tool, sessions, kept=kept)
            if conn.dialect.name == "postgresql":
                sql = sql.replace("?", "%s")
            rows = conn.exec_driver_sql(sql, tuple(params)).all()
        return spend.entries(rows, unpack_kept)

    def limit_standing(self, limits, now: float | None = None, tool: str = "claude_code"):
        """Where the user stands against their limits now (sessionscope.insight.limits.standing): the replies of the
        week so far and of the active block's chain."""
        import time

        from sessionscope.insight import limits as limits_
        from sessionscope.insight import spend
        now = time.time() if now is None else now
        week_start, _end = limits_.week_bounds(now, limits.reset_weekday, limits.reset_hour)
        since = min(week_start, spend.chain_since(lambda a, b: self.usage_entries(a, b, tool), now))
        return limits_.standing(self.usage_entries(since, now + 60, tool), now, limits)

    def sessions_of_tool_id(self, tool_id: str) -> list[str]:
        """The sessions a tool's own id names (itself, and a fork or rewind of it kept under the same id)."""
        with self.reader() as conn:
            return list(conn.execute(sa.select(SESSION.c.id).where(
                sa.or_(SESSION.c.id == tool_id, SESSION.c.tool_id == tool_id))).scalars())

    def overview(self, **query: Any):
        """The home page's figures: a range's key numbers, the year's activity by day, the costliest sessions
        (sessionscope.insight.overview); folds the sessions that changed into the usage cache, as usage does."""
        from sessionscope.insight import overview, usage
        folded: dict = {}
        try:
            with self.reader() as conn:
                return overview.overview(conn, folded=folded, **query)
        finally:  # (stopped half way, by its `pause`: what was folded is kept for the next time)
            self._keep(usage.save, folded)

    def tool_outcomes(self, **query: Any):
        """How the tool calls went, by tool, model, project or source (sessionscope.insight.outcomes.report); folds the
        sessions that changed since the last report, then caches them in one short write."""
        from sessionscope.insight import outcomes
        folded: dict = {}
        with self.reader() as conn:  # folding a big store takes seconds: never under the write lock
            rows = outcomes.report(conn, folded=folded, **query)
        self._keep(outcomes.save, folded)
        return rows

    def derive_for_readers(self, session_ids) -> None:
        """On a team store, fold what the reports and the list derive from these sessions (usage, tool outcomes,
        vital signs) and cache it now, as their owner: a member who may read them keeps nothing derived from another's
        session (sessionscope.safety.team.changeable), so without this every member folded every shared session
        again at every report. Elsewhere nothing: the one reader caches what it folds the first time it asks."""
        from sessionscope.insight import outcomes, usage
        ids = list(session_ids)
        with self.reader() as conn:
            if not ids or not db.rules_apply(conn, "usage_cache"):
                return
        for start in range(0, len(ids), usage.FOLD_BATCH):  # (a first import touches hundreds: in usage's batches)
            batch = ids[start:start + usage.FOLD_BATCH]
            folded: dict = {}
            with self.reader() as conn:
                usage.cached_rows(conn, batch, folded)
                _rows, fresh = outcomes.cached_rows(conn, batch)
            self._keep(usage.save, folded)
            self._keep(outcomes.save, fresh)
            self.vitals(batch)

    def _keep(self, save, folded: dict) -> None:
        """Cache what a read folded, in one short write; when the store is busy, it is folded again next time."""
        if folded:
            with contextlib.suppress(SessionscopeError):
                db.try_write(self.engine, save, folded)

    def vitals(self, session_ids: list[str]):
        """Each session's vital signs ({id: sessionscope.insight.vitals.Vitals}); folds those that changed since they were
        last asked for, then caches them in one short write."""
        from sessionscope.insight import vitals
        with self.reader() as conn:
            out, fresh = vitals.cached(conn, list(session_ids))
        if fresh:
            with contextlib.suppress(SessionscopeError):  # a cache: when the store is busy, folded again next time
                db.try_write(self.engine, vitals.save, fresh)
        return out

    def blame(self, path: str, text: str | None = None):
        """Which session wrote each line of the file at `path` (sessionscope.insight.blame.Blame); the sessions that changed
        since they were last folded are folded first, so every edit is in the index."""
        from sessionscope.insight import blame
        self.fold_changed()
        with self.reader() as conn:
            return blame.blame(conn, path, text)

    def commit_sessions(self, shas: set[str]) -> dict[str, tuple[str, str]]:
        """{commit: (session, event)} for the commits an agent's shell call made (`git commit` in its command)."""
        from sessionscope.insight import blame
        self.fold_changed()
        with self.reader() as conn:
            return blame.commits_of(conn, shas)

    def fold_changed(self) -> None:
        """Fold the sessions whose vital signs (and blame's index) are older than their events."""
        from sessionscope.insight import blame
        with self.reader() as conn:
            stale = blame.stale_sessions(conn)
        for start in range(0, len(stale), 500):  # (a first blame over a big store folds it: in batches)
            self.vitals(stale[start:start + 500])

    def running_usage(self, session_id: str, head: str | None = None):
        """Along the branch through `head` (the head branch by default), as it is read: (its event ids, and the
        tokens and dollars spent so far at each event that spent some; sessionscope.insight.usage.running)."""
        from sessionscope.insight import usage
        order = self.branch_outline(session_id, head, include_subagents=True).ids
        with self.reader() as conn:
            return order, usage.running(conn, session_id, order)

    def session_costs(self, session_ids: list[str]) -> dict[str, float | None]:
        """Each session's cost in dollars (None where no model it used has a price)."""
        from sessionscope.insight import usage
        folded: dict = {}
        with self.reader() as conn:  # (the list asks for every page it paints: never under the write lock)
            costs = {sid: usage.session_cost(conn, sid, folded)[0] for sid in session_ids}
        self._keep(usage.save, folded)
        return costs

    def tree(self, session_id: str):
        """The session's branch tree, compressed and laid out in lanes (sessionscope.history.tree_reading)."""
        from sessionscope.history import tree_reading
        from sessionscope.store import gcpause
        with self.reader() as conn, gcpause.paused():
            return tree_reading.session_tree(conn, session_id)

    def forks_of(self, session_id: str) -> list[str]:
        """The sessions forked (or, for a tool that writes one, rewound) from this one, oldest first."""
        with self.reader() as conn:
            return list(conn.execute(sa.select(SESSION.c.id).where(SESSION.c.forked_from_session == session_id)
                                     .order_by(SESSION.c.created_at, SESSION.c.id)).scalars())

    def lineage(self, session_id: str) -> list[SessionView]:
        """The session and the sessions it was forked from, oldest origin first."""
        out, seen = [], set()
        cur: str | None = session_id
        while cur and cur not in seen:
            seen.add(cur)
            s = self.session(cur)
            out.append(s)
            cur = s.forked_from_session
        return list(reversed(out))

    def branch_points(self, session_id: str) -> dict[str, list[str]]:
        """Where other branches leave the session's tree (its origins' too): {event id: notes}."""
        from sessionscope.history import tree_reading
        ids = [s.id for s in self.lineage(session_id)]
        with self.reader() as conn:
            return tree_reading.branch_points(conn, ids)

    def leaves(self, session_id: str) -> list[str]:
        with self.reader() as conn:
            return reading.leaves(conn, session_id)
