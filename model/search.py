"""Full-text search over event text: FTS5 on SQLite, PostgreSQL's own text search (a generated
tsvector column with a GIN index, migration 0007) there, LIKE on any other database."""

from __future__ import annotations

import re

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .errors import InvalidInput
from .read_models import MARK_END, MARK_START, SearchHit
from .schema import EVENT, SESSION

SNIPPET_TOKENS = 16

# What is indexed, decided once, in SQL, so indexing and un-indexing agree:
# conversation text whole (up to 64 KB), tool calls and results only their first
# 4 KB (they are two thirds of all text and rarely searched deep), and nothing of
# progress or metadata lines. The event row always keeps the full text.
TOOL_KINDS = ("tool_call", "tool_result")
UNINDEXED_KINDS = ("progress", "meta", "opaque")


def _sql_list(kinds: tuple[str, ...]) -> str:
    return ", ".join(f"'{k}'" for k in kinds)  # fixed names above, never user input


_FTS_TEXT = (
    f"CASE WHEN kind IN ({_sql_list(TOOL_KINDS)}) THEN substr(text, 1, 4096) "
    "ELSE substr(text, 1, 65536) END"
)
_FTS_WHERE = f"text != '' AND kind NOT IN ({_sql_list(UNINDEXED_KINDS)})"


def index_range(conn: Connection, first_pk: int, last_pk: int) -> None:
    """Index the events with first_pk <= pk <= last_pk (SQLite only)."""
    if conn.dialect.name != "sqlite":
        return
    conn.connection.driver_connection.execute(  # (the driver's own: see sessionscope.db.driver)
        f"INSERT INTO event_fts(rowid, text) SELECT pk, {_FTS_TEXT} FROM event "
        f"WHERE pk BETWEEN ? AND ? AND {_FTS_WHERE}",
        (first_pk, last_pk),
    )


def fts_query(text: str) -> str:
    """Turn what a user typed into a safe FTS5 query: every word must match.

    Each word is quoted, so FTS syntax characters in it are literal; a trailing *
    keeps prefix search.
    """
    terms = []
    for word in text.split():
        prefix = word.endswith("*")
        word = word.rstrip("*").replace('"', '""')
        if word:
            terms.append(f'"{word}"' + ("*" if prefix else ""))
    if not terms:
        raise InvalidInput("the search is empty: type a word to find")
    return " ".join(terms)


def search(conn: Connection, text: str, *, limit: int = 50, session_id: str | None = None) -> list[SearchHit]:
    """The newest `limit` events whose text matches every word, with snippets; the user's own notes that
    match come first (kind "note": sessionscope.notes)."""
    from . import notes
    if conn.dialect.name == "sqlite":
        found = _search_fts(conn, fts_query(text), limit, session_id)
    elif conn.dialect.name == "postgresql":
        found = _search_pg(conn, ts_query(text), limit, session_id)
    else:
        found = _search_like(conn, text, limit, session_id)
    return (notes.search(conn, text, limit, session_id) + found)[:limit]


def ts_query(text: str) -> str:
    """What a user typed as a PostgreSQL tsquery: every word must match, a trailing * is a prefix.
    Words are cut into the tokens the 'simple' parser makes of them (letters and digits), so nothing
    typed is tsquery syntax."""
    terms = []
    for word in text.split():
        prefix = word.endswith("*")
        tokens = re.findall(r"\w+", word.rstrip("*").lower())
        terms += [t + (":*" if prefix and i == len(tokens) - 1 else "") for i, t in enumerate(tokens)]
    if not terms:
        raise InvalidInput("the search is empty: type a word to find")
    return " & ".join(terms)


def _search_pg(conn: Connection, query: str, limit: int, session_id: str | None) -> list[SearchHit]:
    # newest first from the GIN index; the snippet is ts_headline's, marked as FTS5 marks it
    where = "fts @@ q" + (" AND session_id = :session" if session_id else "")
    options = f'StartSel="{MARK_START}", StopSel="{MARK_END}", MaxWords={SNIPPET_TOKENS}, MinWords=6, ShortWord=0'
    rows = conn.execute(sa.text(
        f"SELECT pk, ts_headline('simple', text, q, :options) FROM event, to_tsquery('simple', :query) AS q "
        f"WHERE {where} ORDER BY pk DESC LIMIT :limit"),
        {"query": query, "options": options, "limit": limit, "session": session_id}).all()
    return _hits(conn, {pk: snip for pk, snip in rows}, [pk for pk, _ in rows])


def _search_fts(conn: Connection, query: str, limit: int, session_id: str | None) -> list[SearchHit]:
    # Newest first straight from the index (rowid order), then the few hits joined.
    where = "event_fts MATCH ?"
    params: list = [query]
    if session_id:
        where += " AND rowid IN (SELECT pk FROM event WHERE session_id = ?)"
        params.append(session_id)
    sql = (
        f"SELECT rowid, snippet(event_fts, 0, '{MARK_START}', '{MARK_END}', '…', {SNIPPET_TOKENS}) "
        f"FROM event_fts WHERE {where} ORDER BY rowid DESC LIMIT ?"
    )
    rows = conn.exec_driver_sql(sql, (*params, limit)).all()
    snippets = {pk: snip for pk, snip in rows}
    return _hits(conn, snippets, [pk for pk, _ in rows])


def _search_like(conn: Connection, text: str, limit: int, session_id: str | None) -> list[SearchHit]:
    words = text.split()
    if not words:
        raise InvalidInput("the search is empty: type a word to find")
    q = sa.select(EVENT.c.pk, EVENT.c.text).order_by(EVENT.c.pk.desc()).limit(limit)
    for w in words:
        q = q.where(EVENT.c.text.ilike(f"%{w}%"))
    if session_id:
        q = q.where(EVENT.c.session_id == session_id)
    rows = conn.execute(q).all()
    return _hits(conn, {pk: _like_snippet(t, words[0]) for pk, t in rows}, [pk for pk, _ in rows])


def _like_snippet(text: str, word: str, width: int = 80) -> str:
    m = re.search(re.escape(word), text, re.IGNORECASE)
    if not m:
        return text[:width]
    start = max(0, m.start() - width // 2)
    after = text[m.end():m.end() + width // 2]
    return ("…" if start else "") + text[start:m.start()] + MARK_START + m.group(0) + MARK_END + after


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
        f"SELECT 'delete', pk, {_FTS_TEXT} FROM event WHERE session_id = ? AND {_FTS_WHERE}",
        (session_id,),
    )
