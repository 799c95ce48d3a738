"""Full-text search over event text: FTS5 on SQLite, PostgreSQL's own text search (a generated
tsvector column with a GIN index, migration 0007) there, LIKE on any other database."""

from __future__ import annotations

import dataclasses
import re

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.errors import InvalidInput
from sessionscope.history.read_models import MARK_END, MARK_START, SearchHit
from sessionscope.recall.fts import (  # noqa: F401 (said here too: the indexing below and its callers use them)
    FTS_TEXT,
    FTS_WHERE,
    SNIPPET_TOKENS,
    SORTS,
    TOOL_KINDS,
    UNINDEXED_KINDS,
    distinct,
    fts_query,
    like_snippet,
)
from sessionscope.recall.query import Query, Term
from sessionscope.store import db
from sessionscope.store.schema import EVENT, SESSION


def index_range(conn: Connection, first_pk: int, last_pk: int) -> None:
    """Index the events with first_pk <= pk <= last_pk (SQLite only)."""
    if conn.dialect.name != "sqlite":
        return
    conn.connection.driver_connection.execute(  # (the driver's own: see sessionscope.store.db.driver)
        f"INSERT INTO event_fts(rowid, text) SELECT pk, {FTS_TEXT} FROM event "
        f"WHERE pk BETWEEN ? AND ? AND {FTS_WHERE}",
        (first_pk, last_pk),
    )


RANK_POOL = 2_000  # PostgreSQL: the best are found among the newest this many matches (and filters apply to them)


def ts_query(q: Query) -> str:
    """A parsed query as a PostgreSQL tsquery: words cut into the tokens the 'simple' parser makes (letters
    and digits), so nothing typed is tsquery syntax; a phrase's tokens follow each other (<->)."""
    def term(t: Term) -> str:
        tokens = re.findall(r"\w+", t.text.lower())
        if not tokens:
            raise InvalidInput(f"{t.text!r} has no letter or digit to find")
        if t.prefix:
            tokens[-1] += ":*"
        joined = (" <-> " if t.phrase else " & ").join(tokens)
        return f"({joined})" if len(tokens) > 1 else joined
    expr = " & ".join(term(g[0]) if len(g) == 1 else "(" + " | ".join(map(term, g)) + ")" for g in q.groups)
    return expr + "".join(f" & !{term(t)}" for t in q.excluded)


def search(conn: Connection, text: str, *, limit: int = 50, session_id: str | None = None,
           order: str = "relevance", meaning=None) -> list[SearchHit]:
    """The events `text` finds (sessionscope.recall.query: words, phrases, OR, -word and filters), the best first
    (`order` "relevance": BM25 on SQLite, ts_rank on PostgreSQL) or the newest first ("time": in the order the
    events came into the store, which the indexes walk without sorting every match), with snippets;
    the user's own notes that match come first (kind "note"). The same text twice in a session (a tool call
    and the fact taken from it) is one hit.

    `meaning` (sessionscope.recall.semantic.Ranker, when search by meaning is on): the best first is then the fusion
    of both rankings (reciprocal rank fusion), so a text that says the same in other words is found too, and
    one that both find comes before one that only one does; the filters and left-out words hold for all."""
    from sessionscope.recall import fts, notes
    q = fts.parsed(text, order, session_id)
    found = [] if q.notes_only else _events(conn, q, limit, order)
    mine = notes.matching(conn, q, limit) if (q.has_words or q.notes_only) else []
    if meaning is not None and order == "relevance" and q.has_words:
        sessions = q.values("session")
        pks, note_ids = meaning.nearest(conn, " ".join(t.text for g in q.groups for t in g),
                                        session_prefix=sessions[0] if len(sessions) == 1 else None)
        if not q.notes_only:
            found = fuse(found, _among(conn, q, pks, limit))
        mine = fuse(mine, notes.among(conn, q, note_ids)[:limit])
    return distinct(mine + found)[:limit]


RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009): a hit's score is the sum of 1 / (60 + rank)


def fuse(by_words: list[SearchHit], by_meaning: list[SearchHit]) -> list[SearchHit]:
    """Two rankings as one (reciprocal rank fusion); a hit both found keeps the words' snippet, marked "both"."""
    def key(h: SearchHit) -> tuple[str, str]:
        return ("note", h.note_id) if h.kind == "note" else ("event", h.event_id)
    score: dict[tuple[str, str], float] = {}
    hits: dict[tuple[str, str], SearchHit] = {}
    for ranking in (by_words, by_meaning):
        for rank, h in enumerate(ranking):
            k = key(h)
            score[k] = score.get(k, 0.0) + 1.0 / (RRF_K + rank + 1)
            if k in hits:
                hits[k] = dataclasses.replace(hits[k], match="both")
            else:
                hits[k] = h
    return [hits[k] for k in sorted(hits, key=lambda k: -score[k])]


def _among(conn: Connection, q: Query, pks: list[int], limit: int) -> list[SearchHit]:
    """Of these events (search by meaning found them, nearest first), the first `limit` within the query's
    filters and without its left-out words, each with the start of its text (a query word in it marked)."""
    from sessionscope.store.schema import SOURCE
    if not pks:
        return []
    joined = EVENT.join(SESSION, SESSION.c.id == EVENT.c.session_id).outerjoin(
        SOURCE, SESSION.c.source_id == SOURCE.c.id)
    cond = [sa.not_(EVENT.c.text.ilike(f"%{t.text}%")) for t in q.excluded]
    rows = dict(conn.execute(sa.select(EVENT.c.pk, sa.func.substr(EVENT.c.text, 1, 2000)).select_from(joined)
                             .where(EVENT.c.pk.in_(pks), *_filters(conn, q), *cond)).all())
    order = [pk for pk in pks if pk in rows][:limit]
    words = [t.text for g in q.groups for t in g]
    hits = _hits(conn, {pk: _meaning_snippet(rows[pk], words) for pk in order}, order)
    return [dataclasses.replace(h, match="meaning") for h in hits]


def _meaning_snippet(text: str, words: list[str]) -> str:
    flat = " ".join(text.split())
    for w in words:
        if re.search(re.escape(w), flat, re.IGNORECASE):
            return like_snippet(flat, w)
    return flat[:160] + ("…" if len(flat) > 160 else "")


def _filters(conn: Connection, q: Query) -> list:
    """The query's filters as SQL conditions on EVENT joined with SESSION and SOURCE."""
    from sessionscope.recall.query import moment
    from sessionscope.store.schema import PIN, SOURCE, STAR
    out = []
    for name, value, negated in q.filters:
        if name == "kind":
            cond = EVENT.c.kind == value
        elif name == "tool":  # a tool call's text is its tool's name, then its input
            cond = sa.and_(EVENT.c.kind == "tool_call", sa.or_(EVENT.c.text == value,
                                                                EVENT.c.text.startswith(value + " ", autoescape=True)))
        elif name == "source":
            cond = sa.func.coalesce(SOURCE.c.kind, "native") == value
        elif name == "project":
            cond = SESSION.c.project.ilike("%" + value.replace("%", "").replace("_", "") + "%")
        elif name == "session":
            cond = EVENT.c.session_id.startswith(value, autoescape=True)
        elif name == "since":
            cond = EVENT.c.ts >= moment(value)
        elif name == "until":
            cond = EVENT.c.ts < moment(value, end_of_day=True)
        elif name == "has":  # a failed tool result, as the tools say it
            cond = sa.and_(EVENT.c.kind == "tool_result", sa.or_(
                EVENT.c.failed.is_(True), EVENT.c.text.contains("Traceback (most recent call last)"),
                EVENT.c.text.op("GLOB" if conn.dialect.name == "sqlite" else "~")(
                    "*xit code [1-9]*" if conn.dialect.name == "sqlite" else "xit code [1-9]")))
        elif name == "is" and value == "starred":
            cond = EVENT.c.session_id.in_(sa.select(STAR.c.session_id))
        else:  # is:pinned
            cond = EVENT.c.id.in_(sa.select(PIN.c.event_id))
        out.append(sa.not_(cond) if negated else cond)
    return out


def _events(conn: Connection, q: Query, limit: int, order: str) -> list[SearchHit]:
    from sessionscope.store.schema import SOURCE
    joined = EVENT.join(SESSION, SESSION.c.id == EVENT.c.session_id).outerjoin(
        SOURCE, SESSION.c.source_id == SOURCE.c.id)
    where = _filters(conn, q)
    dialect = conn.dialect.name
    if not q.has_words:  # filters alone: the newest events they keep, their text's start as the snippet
        words = [w for t in q.excluded for w in [t.text]]
        cond = [sa.not_(EVENT.c.text.ilike(f"%{w}%")) for w in words]
        rows = conn.execute(sa.select(EVENT.c.pk, EVENT.c.text).select_from(joined).where(
            *where, *cond, EVENT.c.kind.notin_(UNINDEXED_KINDS)).order_by(EVENT.c.pk.desc())
            .limit(limit)).all()
        return _hits(conn, {pk: " ".join(t.split())[:160] for pk, t in rows}, [pk for pk, _ in rows])
    if dialect == "sqlite":  # (plain SQL, the quick reader's too: sessionscope.recall.fts)
        from sessionscope.recall import fts
        return fts.events(lambda sql, params: conn.exec_driver_sql(sql, tuple(params)).all(), q, limit, order)
    if dialect != "postgresql":
        return _search_like(conn, q, limit, where, joined)
    tsq = sa.func.to_tsquery("simple", ts_query(q))
    options = f'StartSel="{MARK_START}", StopSel="{MARK_END}", MaxWords={SNIPPET_TOKENS}, MinWords=6, ShortWord=0'
    fts_col = sa.literal_column("event.fts")
    # which events: the newest matches (the primary key is the order events came into the store: the index walks
    # it without sorting every match), RANK_POOL of them to rank or to filter, else just the page asked for.
    # Ranking every match of a common word reads every one of them (seconds in ten million events).
    pool = limit if order == "time" and not where else RANK_POOL
    if db.rules_apply(conn, "event"):  # a team store's member: the owner's function asks the text index (team.py)
        matching = sa.select(sa.func.sessionscope_matching(tsq, pool))
    else:
        m = EVENT.alias("m")
        matching = sa.select(m.c.pk).where(sa.literal_column("m.fts").op("@@")(tsq)).order_by(m.c.pk.desc()).limit(pool)
    by = (sa.func.ts_rank(fts_col, tsq).desc(), EVENT.c.pk.desc()) if order == "relevance" else (EVENT.c.pk.desc(),)
    stmt = sa.select(EVENT.c.pk, sa.func.ts_headline("simple", EVENT.c.text, tsq, options)).select_from(joined) \
        .where(EVENT.c.pk.in_(matching), *where)
    rows = conn.execute(stmt.order_by(*by).limit(limit)).all()
    return _hits(conn, {pk: snip for pk, snip in rows}, [pk for pk, _ in rows])


def _search_like(conn: Connection, q: Query, limit: int, where: list, joined) -> list[SearchHit]:
    """Any other database: LIKE for every group (one of its terms), newest first."""
    stmt = sa.select(EVENT.c.pk, EVENT.c.text).select_from(joined).where(*where)
    for group in q.groups:
        stmt = stmt.where(sa.or_(*(EVENT.c.text.ilike(f"%{t.text}%") for t in group)))
    for t in q.excluded:
        stmt = stmt.where(sa.not_(EVENT.c.text.ilike(f"%{t.text}%")))
    rows = conn.execute(stmt.order_by(EVENT.c.pk.desc()).limit(limit)).all()
    first = q.groups[0][0].text
    return _hits(conn, {pk: like_snippet(t, first) for pk, t in rows}, [pk for pk, _ in rows])


def _hits(conn: Connection, snippets: dict[int, str], order: list[int]) -> list[SearchHit]:
    if not order:
        return []
    rows = conn.execute(
        sa.select(EVENT.c.pk, EVENT.c.id, EVENT.c.session_id, EVENT.c.seq, EVENT.c.kind,
                  EVENT.c.role, EVENT.c.ts, SESSION.c.title)
        .join(SESSION, SESSION.c.id == EVENT.c.session_id)
        .where(EVENT.c.pk.in_(order))
    ).all()
    by_pk = {r.pk: r for r in rows}
    return [
        SearchHit(session_id=r.session_id, session_title=r.title, event_id=r.id, seq=r.seq,
                  kind=r.kind, role=r.role, ts=r.ts, snippet=snippets[pk])
        for pk in order if (r := by_pk.get(pk)) is not None
    ]


def unindex_session(conn: Connection, session_id: str) -> None:
    """Remove a session's events from the index before they are deleted."""
    if conn.dialect.name != "sqlite":
        return
    conn.exec_driver_sql(
        f"INSERT INTO event_fts(event_fts, rowid, text) "
        f"SELECT 'delete', pk, {FTS_TEXT} FROM event WHERE session_id = ? AND {FTS_WHERE}",
        (session_id,),
    )
