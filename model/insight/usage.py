"""Token usage and cost: input, output, cache reads and cache writes, per day, model, project and source.

Each event that spent tokens carries them as `tokens_in` / `tokens_out` (counted once per
reply, whatever the tool writes); the split of the input into fresh input, cache reads
and cache writes, and the model, are read from the event's own line:

- Claude Code / Anthropic: `message.usage{input_tokens, cache_read_input_tokens,
  cache_creation_input_tokens}`, `message.model`
- Codex CLI: `token_count.info.last_token_usage.cached_input_tokens` (reads; Codex has no writes)
- Gemini CLI: `tokens.cached`, `model`

A line copied from another session (a Claude Code fork's `forkedFrom`) cost nothing here:
its tokens are its origin's. A session's split is folded once and cached by its last seq
(`usage_cache`); prices are applied when read, so a newer price table changes every figure.

Prices come from `genai-prices` (Pydantic's maintained table: per model and token kind,
with the providers' cache prices and dated price changes); a model it does not know has
no cost, and its tokens are reported as unpriced rather than guessed.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.insight.tokens import KINDS, bucket_of, cost, split, unit_prices  # noqa: F401 (said here too)
from sessionscope.store import db
from sessionscope.store.schema import EVENT, SESSION, SOURCE, USAGE_CACHE


def fold(conn: Connection, session_id: str) -> list[list]:
    """The session's usage, [[day, model, input, output, cache_read, cache_write], …], from its events."""
    return fold_many(conn, [session_id]).get(session_id, [])


FOLD_BATCH = 500  # sessions a query: one round trip for many small sessions (a team store's member folds thousands)


def fold_many(conn: Connection, session_ids: list[str]) -> dict[str, list[list]]:
    """`fold` of each session, a query for every FOLD_BATCH of them (not one a session)."""
    out: dict[str, list[list]] = {}
    for start in range(0, len(session_ids), FOLD_BATCH):
        batch = session_ids[start:start + FOLD_BATCH]
        fallback: dict[str, str | None] = dict(conn.execute(
            sa.select(SESSION.c.id, SESSION.c.model).where(SESSION.c.id.in_(batch))).all())
        q = (sa.select(EVENT.c.session_id, EVENT.c.ts, EVENT.c.tokens_in, EVENT.c.tokens_out, EVENT.c.payload)
             .where(EVENT.c.session_id.in_(batch), sa.or_(EVENT.c.tokens_in > 0, EVENT.c.tokens_out > 0)))
        rows: dict[str, dict[tuple[str, str], list[int]]] = {sid: {} for sid in batch}
        for sid, ts, t_in, t_out, payload in conn.execute(q):
            if '"forkedFrom"' in payload:
                continue  # a copy of the origin's line: its tokens were spent there
            if not ts or ts <= 0:
                continue  # a line with no time of its own has no day to count on
            model, *parts = split(payload, t_in or 0, t_out or 0)
            day = dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d")
            acc = rows[sid].setdefault((day, model or fallback.get(sid) or ""), [0, 0, 0, 0])
            for i, n in enumerate(parts):
                acc[i] += n
        for sid, by_day in rows.items():
            out[sid] = [[day, model, *acc] for (day, model), acc in sorted(by_day.items())]
    return out


def cached_rows(conn: Connection, session_ids: list[str] | None = None,
                folded: dict | None = None, pause: Any = None) -> dict[str, list[list]]:
    """Every session's usage rows, folding the sessions that changed since they were cached. Only reads: what was
    folded now goes into `folded` ({session id: (its last seq, its rows)}) for `save` to cache in one short write,
    so folding a big store never holds the store's write lock (a team store's importers would wait on it)."""
    have = sa.select(SESSION.c.id, SESSION.c.last_seq, USAGE_CACHE.c.last_seq, USAGE_CACHE.c.rows).select_from(
        SESSION.outerjoin(USAGE_CACHE, USAGE_CACHE.c.session_id == SESSION.c.id))
    if session_ids is not None:
        have = have.where(SESSION.c.id.in_(session_ids))
    out: dict[str, list[list]] = {}
    stale: dict[str, int] = {}
    for sid, last_seq, cached_seq, blob in conn.execute(have).all():
        if cached_seq == last_seq and blob is not None:
            out[sid] = orjson.loads(blob)
        else:
            stale[sid] = last_seq or 0
    _fold_stale(conn, stale, out, folded, pause)
    return out


def _fold_stale(conn: Connection, stale: dict[str, int], out: dict[str, list[list]], folded: dict | None,
                pause: Any = None) -> None:
    """Fold the sessions whose cache is missing or old ({id: its last seq}) into `out` (and `folded`, to save)."""
    ids = list(stale)
    step = FOLD_BATCH if pause is None else 50  # (a background report lets what the user waits for go first)
    for start in range(0, len(ids), step):
        if pause is not None:
            pause()
        for sid, rows in fold_many(conn, ids[start:start + step]).items():
            out[sid] = rows
            if folded is not None:
                folded[sid] = (stale[sid], rows)


def save(conn: Connection, folded: dict[str, tuple[int, list[list]]]) -> None:
    """Cache the sessions `cached_rows` folded, in one short write."""
    from sessionscope.safety.team import changeable
    mine = changeable(conn, folded)  # (a team store: one's own; asked once, not once a session)
    folded = {sid: v for sid, v in folded.items() if sid in mine}
    if not folded:
        return
    conn.execute(USAGE_CACHE.delete().where(USAGE_CACHE.c.session_id.in_(list(folded))))
    conn.execute(USAGE_CACHE.insert(), [{"session_id": sid, "last_seq": seq, "rows": orjson.dumps(rows)}
                                        for sid, (seq, rows) in folded.items()])


# -- the report ------------------------------------------------------------------------

@dataclass
class Report:
    """What the Usage view draws: buckets (day or week) × a group (project, model, source or person)."""

    buckets: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # costliest first
    tokens: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (bucket, group) → 4 kinds
    costs: dict[tuple[str, str], float] = field(default_factory=dict)
    sessions_in: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # who spent it
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    total_cost: float = 0.0
    unpriced: dict[str, int] = field(default_factory=dict)  # model → tokens with no price
    session_costs: list[tuple[float, int, str]] = field(default_factory=list)  # (cost, tokens, session id), costliest first
    # what the range cost by project, by model and by source at once (whatever the bars are stacked by),
    # costliest first: the "at a glance" lists
    top: dict[str, list[tuple[str, float]]] = field(default_factory=dict)

    @property
    def cache_hit_ratio(self) -> float:
        """Of all the input the models read, the share read from the cache."""
        inp, _out, read, write = self.totals
        return read / (inp + read + write) if inp + read + write else 0.0


def _next(d: dt.date, by: str) -> dt.date:
    if by == "month":
        return (d.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return d + dt.timedelta(days=7 if by == "week" else 1)


def _continuous(seen: list[str], since: str, until: str, by: str) -> list[str]:
    """Every day (or week) of the range, spent in or not: a quiet week is a gap, not a squeezed axis."""
    if not seen:
        return []
    first = bucket_of(since, by) if since else seen[0]
    last = bucket_of(until or dt.date.today().isoformat(), by) if since else seen[-1]
    out, d = [], dt.date.fromisoformat(min(first, seen[0]))
    while d.isoformat() <= max(last, seen[-1]):
        out.append(d.isoformat())
        d = _next(d, by)
    return out


def rows_and_sessions(conn: Connection, session_ids: list[str] | None, folded: dict | None, pause: Any = None):
    """({session: its usage rows}, {session: (project, source kind, person)}) of the sessions asked for (all by
    default). A person: the session's owner in a team store (the database login), else who brought it in. A
    team store's member asks for all of them through the owner's function (sessionscope.safety.team): under the row
    rules each cache row was checked against its session one by one (a quarter of a second for 35,000)."""
    if session_ids is None and db.rules_apply(conn, "usage_cache"):
        out: dict[str, list[list]] = {}
        info, cached, stale = {}, [], {}
        for sid, last_seq, cached_seq, blob, project, kind, person in conn.exec_driver_sql(
                "SELECT * FROM sessionscope_usage()").all():
            info[sid] = (project, kind or "native", person)
            if cached_seq == last_seq and blob is not None:
                cached.append((sid, blob))
            else:
                stale[sid] = last_seq or 0
        _fold_stale(conn, stale, out, folded, pause)
        # (the cached rows parsed as one document: a parse a session cost a tenth of the report)
        out.update(zip((sid for sid, _ in cached), orjson.loads(b"[" + b",".join(bytes(b) for _, b in cached) + b"]")))
        return out, info
    usage = cached_rows(conn, session_ids, folded, pause)
    info = {sid: (project, kind or "native", owner or by) for sid, project, kind, owner, by in conn.execute(
        sa.select(SESSION.c.id, SESSION.c.project, SOURCE.c.kind, SESSION.c.owner, SESSION.c.imported_by).select_from(
            SESSION.outerjoin(SOURCE, SOURCE.c.id == SESSION.c.source_id))).all()}
    return usage, info


_NO_INFO = ("", "native", "")


def _named(info: tuple[str, str, str], dimension: str) -> str:
    """A session's project, source or person as the report names it ("" for a dimension it is not grouped by)."""
    project, source, person = info
    if dimension == "project":
        return project or "(no project)"
    if dimension == "person":
        return person or "(unknown)"
    return source if dimension == "source" else ""


def report(conn: Connection, *, since: str = "", until: str = "", by: str = "day", group: str = "project",
           session_ids: list[str] | None = None, folded: dict | None = None, pause: Any = None) -> Report:
    """Usage between two days (inclusive, 'YYYY-MM-DD'; empty: unbounded) by day, week or month, grouped
    by project, model, source or person (a team store's owner, else who brought the session in)."""
    usage, info = rows_and_sessions(conn, session_ids, folded, pause)
    r = Report()
    per_session: dict[str, list[float]] = {}
    by_dimension: dict[str, dict[str, list[float]]] = {"project": {}, "model": {}, "source": {}, "person": {}}
    by_model = by_dimension["model"]
    buckets: dict[str, str] = {}  # day → its bucket (a year of days, for 600,000 rows)
    prices_of: dict[tuple[str, str], Any] = {}  # (model, day) → its unit prices, looked up once
    totals, tokens, costs, sessions_in, unpriced = r.totals, r.tokens, r.costs, r.sessions_in, r.unpriced
    by_model_group = group == "model"
    total_cost = 0.0
    by_info: dict[tuple[str, str, str], list[float]] = {}  # (project, source, person) → what its sessions spent
    # (this loop is the report: 75,000 rows over 35,000 sessions of a team; written out, not looped over parts)
    for sid, rows in usage.items():
        fixed = info.get(sid, _NO_INFO)
        group_name = _named(fixed, group)
        s_cost, s_tokens, spent_in_range = 0.0, 0, False
        for day, model, p0, p1, p2, p3 in rows:
            if (since and day < since) or (until and day > until):
                continue
            spent_in_range = True
            named = model or "(unknown model)"
            bucket = buckets.get(day)
            if bucket is None:
                bucket = buckets[day] = bucket_of(day, by)
            key = (bucket, named if by_model_group else group_name)
            acc = tokens.get(key)
            if acc is None:
                acc = tokens[key] = [0, 0, 0, 0]
                sessions_in[key] = set()
                costs[key] = 0.0
            acc[0] += p0
            acc[1] += p1
            acc[2] += p2
            acc[3] += p3
            n = p0 + p1 + p2 + p3
            sessions_in[key].add(sid)
            pkey = (model, day)
            if pkey in prices_of:
                prices = prices_of[pkey]
            else:
                prices = prices_of[pkey] = unit_prices(model, day)
            if prices is None:
                if n:
                    unpriced[named] = unpriced.get(named, 0) + n
                c = 0.0
            else:
                c = p0 * prices[0] + p1 * prices[1] + p2 * prices[2] + p3 * prices[3]
            costs[key] += c
            total_cost += c
            spent = by_model.get(named)
            if spent is None:
                spent = by_model[named] = [0.0, 0]
            spent[0] += c
            spent[1] += n
            s_cost += c
            s_tokens += n
        if spent_in_range:  # (what a session spent counts once for its project, source and person)
            per_session[sid] = [s_cost, s_tokens]
            spent = by_info.get(fixed)
            if spent is None:
                spent = by_info[fixed] = [0.0, 0]
            spent[0] += s_cost
            spent[1] += s_tokens
    for fixed, (i_cost, i_tokens) in by_info.items():  # (a few thousand: one a project, source and person)
        for dimension in ("project", "source", "person"):
            spent = by_dimension[dimension].setdefault(_named(fixed, dimension), [0.0, 0])
            spent[0] += i_cost
            spent[1] += i_tokens
    totals[:] = [sum(acc[i] for acc in tokens.values()) for i in range(4)]
    r.total_cost = total_cost
    r.buckets = _continuous(sorted({b for b, _g in r.tokens}), since, until, by)
    by_group: dict[str, float] = defaultdict(float)
    for (_b, g), c in r.costs.items():
        by_group[g] += c + 1e-12 * sum(r.tokens[(_b, g)])  # ties (no prices) go by tokens
    r.groups = sorted(by_group, key=lambda g: -by_group[g])
    r.session_costs = sorted(((c, int(t), sid) for sid, (c, t) in per_session.items() if t), reverse=True)
    r.top = {d: [(n, c) for n, (c, _t) in sorted(spent.items(), key=lambda kv: (-kv[1][0], -kv[1][1]))]
             for d, spent in by_dimension.items()}
    return r


def running(conn: Connection, session_id: str, order: list[str]) -> list[tuple[int, int, float | None]]:
    """Tokens and cost so far along a branch (`order`: its event ids, in reading order): [(position, tokens so far,
    dollars so far or None while nothing priced), …], one an event that spent tokens, for a replay to look up by
    position (bisect). A copied origin's line (a fork's) spent nothing here, as in the session's cost."""
    position = {eid: i for i, eid in enumerate(order)}
    fallback = conn.execute(sa.select(SESSION.c.model).where(SESSION.c.id == session_id)).scalar() or ""
    q = (sa.select(EVENT.c.id, EVENT.c.ts, EVENT.c.tokens_in, EVENT.c.tokens_out, EVENT.c.payload)
         .where(EVENT.c.session_id == session_id, sa.or_(EVENT.c.tokens_in > 0, EVENT.c.tokens_out > 0)))
    spent = []
    for eid, ts, t_in, t_out, payload in conn.execute(q):
        if eid not in position or '"forkedFrom"' in payload:
            continue
        model, *parts = split(payload, t_in or 0, t_out or 0)
        day = dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d") if ts and ts > 0 else ""
        spent.append((position[eid], (t_in or 0) + (t_out or 0), cost(model or fallback, day, parts)))
    out, tokens, dollars = [], 0, None
    for pos, n, c in sorted(spent):
        tokens += n
        if c is not None:
            dollars = (dollars or 0.0) + c
        out.append((pos, tokens, dollars))
    return out


def session_cost(conn: Connection, session_id: str, folded: dict | None = None) -> tuple[float | None, list[int]]:
    """A session's cost (None when none of its models has a price) and its tokens by kind."""
    rows = cached_rows(conn, [session_id], folded).get(session_id, [])
    total, priced, kinds = 0.0, False, [0, 0, 0, 0]
    for day, model, *parts in rows:
        for i, n in enumerate(parts):
            kinds[i] += n
        c = cost(model, day, parts)
        if c is not None:
            total, priced = total + c, True
    return (total if priced else None), kinds
