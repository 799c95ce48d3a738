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
from sessionscope.store.schema import EVENT, SESSION, plain

TEXT = plain(EVENT.c.text)  # an event's text inside SQL (packed on SQLite: sessionscope.store.payloads)


def index_range(conn: Connection, first_pk: int, last_pk: int) -> None:
    """Index the events with first_pk <= pk <= last_pk (SQLite only)."""
    if conn.dialect.name != "sqlite":
        return
    conn.connection.driver_connection.execute(  # (the driver's own: see sessionscope.store.db.driver)
        f"INSERT INTO event_fts(rowid, text) SELECT pk, {FTS_TEXT} FROM event "
        f"WHERE pk BETWEEN ? AND ? AND {FTS_WHERE}",
        (first_pk, last_pk),
    )


def index_rows(conn: Connection, rows: list[dict]) -> None:
    """Index events just written, from their rows' own text (SQLite only): as `index_range` over them, without
    reading back the texts the writer has just packed."""
    if conn.dialect.name != "sqlite" or not rows:
        return
    from sessionscope.recall.fts import indexed
    texts = [(r["pk"], t) for r in rows if (t := indexed(r["kind"], r["text"])) is not None]
    db.driver(conn).executemany("INSERT INTO event_fts(rowid, text) VALUES (?, ?)", texts)  # type: ignore[union-attr]


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
           order: str = "relevance", meaning=None, words=None, fuzzy: bool = True) -> list[SearchHit]:
    """The events `text` finds (sessionscope.recall.query: words, phrases, OR, -word and filters), the best first
    (`order` "relevance": BM25 on SQLite, ts_rank on PostgreSQL) or the newest first ("time": in the order the
    events came into the store, which the indexes walk without sorting every match), with snippets;
    the user's own notes that match come first (kind "note"). The same text twice in a session (a tool call
    and the fact taken from it) is one hit.

    `meaning` (sessionscope.recall.semantic.Ranker, when search by meaning is on): the best first is then the fusion
    of both rankings (reciprocal rank fusion), so a text that says the same in other words is found too, and
    one that both find comes before one that only one does; the filters and left-out words hold for all.

    `*part*` stands for the store's words holding it, and a query that finds nothing as typed (with `fuzzy`) is
    searched again with each word the index lacks mended to the nearest it holds, its hits saying so
    (sessionscope.recall.fuzzy; `words`: the store's vocabulary, the newest events' words when not given)."""
    from sessionscope.recall import fts
    from sessionscope.recall import fuzzy as forgiving
    typed = fts.parsed(text, order, session_id)
    vocabulary = words if words is not None else recent_words(conn)

    def found(q: Query) -> list[SearchHit]:
        return _found(conn, q, limit, order, meaning)
    return forgiving.searched(typed, text, vocabulary, found, fuzzy)


def _found(conn: Connection, q: Query, limit: int, order: str, meaning) -> list[SearchHit]:
    from sessionscope.recall import notes
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


RECENT_EVENTS = 20_000  # PostgreSQL: the words of the newest this many events a reader may see are its vocabulary


class recent_words:
    """The vocabulary where no word table is kept (PostgreSQL): the words of the newest events the reader may see,
    as the text index has them (ts_stat over their tsvectors, run with the reader's rights, so a team member's
    vocabulary is their own); on SQLite the store's word table (sessionscope.recall.terms)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.sqlite = conn.dialect.name == "sqlite"
        if self.sqlite:
            from sessionscope.recall.terms import Words, driver_run
            self.words = Words(driver_run(conn))

    def _stat(self, where: str, params: dict, most: int) -> list[str]:
        if self.conn.dialect.name != "postgresql":
            return []
        inner = f"SELECT fts FROM event ORDER BY pk DESC LIMIT {RECENT_EVENTS}"  # (fixed text: no value of anyone's)
        rows = self.conn.execute(sa.text(f"SELECT word FROM ts_stat('{inner}') WHERE {where} "
                                         "ORDER BY ndoc DESC, word LIMIT :most"), {**params, "most": most}).all()
        return [r[0] for r in rows]

    def holding(self, part: str, at_end: bool, most: int) -> list[str]:
        if self.sqlite:
            return self.words.holding(part, at_end, most)
        like = part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self._stat("word LIKE :p", {"p": f"%{like}" if at_end else f"%{like}%"}, most)

    def near(self, word: str) -> list[str]:
        if self.sqlite:
            return self.words.near(word)
        grams = sorted({word[i:i + 3] for i in range(len(word) - 2)})
        if not grams:
            return []
        likes = " OR ".join(f"word LIKE :g{i}" for i in range(len(grams)))
        return self._stat(f"length(word) BETWEEN :lo AND :hi AND ({likes})",
                          {"lo": len(word) - 2, "hi": len(word) + 2} | {f"g{i}": f"%{g}%" for i, g in enumerate(grams)},
                          400)

    def indexed(self, word: str) -> bool:
        if self.sqlite:
            return self.words.indexed(word)
        if self.conn.dialect.name != "postgresql":
            return True  # (no index to ask: nothing is mended)
        # (a member asks through the owner's function, as search does: under the rules the match walked every
        # readable event, 310 ms in 200,000 for a word none of them holds)
        source = ("sessionscope_matching(to_tsquery('simple', :q), 1)" if db.rules_apply(self.conn, "event")
                  else "event WHERE fts @@ to_tsquery('simple', :q)")
        return self.conn.execute(sa.text(f"SELECT 1 FROM {source} LIMIT 1"),
                                 {"q": ts_query(Query(groups=[[Term(word)]]))}).first() is not None


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
    cond = [sa.not_(TEXT.ilike(f"%{t.text}%")) for t in q.excluded]
    rows = dict(conn.execute(sa.select(EVENT.c.pk, sa.func.substr(TEXT, 1, 2000)).select_from(joined)
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
            cond = sa.and_(EVENT.c.kind == "tool_call", sa.or_(TEXT == value,
                                                                TEXT.startswith(value + " ", autoescape=True)))
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
                EVENT.c.failed.is_(True), TEXT.contains("Traceback (most recent call last)"),
                TEXT.op("GLOB" if conn.dialect.name == "sqlite" else "~")(
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
        cond = [sa.not_(TEXT.ilike(f"%{w}%")) for w in words]
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
        stmt = stmt.where(sa.or_(*(TEXT.ilike(f"%{t.text}%") for t in group)))
    for t in q.excluded:
        stmt = stmt.where(sa.not_(TEXT.ilike(f"%{t.text}%")))
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
    """Remove a session's events from the index before they are deleted (and forget the index's words: some may
    have been this session's alone; sessionscope.recall.terms reads them again when next needed)."""
    if conn.dialect.name != "sqlite":
        return
    from sessionscope.recall.terms import driver_run, forget
    forget(driver_run(conn))
    conn.exec_driver_sql(
        f"INSERT INTO event_fts(event_fts, rowid, text) "
        f"SELECT 'delete', pk, {FTS_TEXT} FROM event WHERE session_id = ? AND {FTS_WHERE}",
        (session_id,),
    )
