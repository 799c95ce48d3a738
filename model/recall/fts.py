"""Search on SQLite in plain SQL: the text index (FTS5), the query's filters, the snippets, the user's notes. One
implementation for the Store (through SQLAlchemy's driver connection) and the command line's quick reader (sqlite3
alone, sessionscope.store.quick: `search` answers without importing SQLAlchemy), so both find the same.

`run(sql, params)` runs one statement and returns its rows; every value is a parameter, every name below is fixed.
PostgreSQL searches through sessionscope.recall.search's SQLAlchemy statements (tsvector and ts_rank).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from sessionscope.history.read_models import MARK_END, MARK_START, SearchHit
from sessionscope.recall.query import Query, Term, moment
from sessionscope.store.packed_sql import sql_plain

Run = Callable[[str, Sequence[Any]], Sequence[Sequence[Any]]]

SNIPPET_TOKENS = 16
# What is indexed, decided once, in SQL, so indexing and un-indexing agree: conversation text whole (up to 64 KB),
# tool calls and results only their first 4 KB (they are two thirds of all text and rarely searched deep), and
# nothing of progress or metadata lines. The event row always keeps the full text.
TOOL_KINDS = ("tool_call", "tool_result")
UNINDEXED_KINDS = ("progress", "meta", "opaque")
SORTS = ("relevance", "time")


def sql_list(kinds: tuple[str, ...]) -> str:
    return ", ".join(f"'{k}'" for k in kinds)  # fixed names above, never user input


FTS_TEXT = (f"CASE WHEN kind IN ({sql_list(TOOL_KINDS)}) THEN substr({sql_plain('text')}, 1, 4096) "
            f"ELSE substr({sql_plain('text')}, 1, 65536) END")
FTS_WHERE = f"text != '' AND kind NOT IN ({sql_list(UNINDEXED_KINDS)})"


def indexed(kind: str, text: str) -> str | None:
    """What FTS_TEXT and FTS_WHERE index of an event, from its text in hand (None: nothing): an import indexes
    the rows it has just written without reading their packed texts back (tests/model/test_packed_text.py holds
    both to the same index)."""
    if not text or kind in UNINDEXED_KINDS:
        return None
    return text[:4096] if kind in TOOL_KINDS else text[:65536]


TEXT = sql_plain("event.text")  # an event's text, packed or not (sessionscope.store.payloads)
JOINED = ("event JOIN session ON session.id = event.session_id "
          "LEFT OUTER JOIN source ON session.source_id = source.id")


def fts_query(q: Query) -> str:
    """A parsed query as FTS5 syntax: every group (one of its terms), none of the excluded. Each term is
    quoted, so FTS syntax in it is literal text; a prefix term keeps its *."""
    def term(t: Term) -> str:
        return '"' + t.text.replace('"', '""') + '"' + ("*" if t.prefix else "")
    expr = " AND ".join(term(g[0]) if len(g) == 1 else "(" + " OR ".join(map(term, g)) + ")" for g in q.groups)
    return expr + "".join(f" NOT {term(t)}" for t in q.excluded)


def _starts(column: str, value: str) -> tuple[str, list]:
    """`column` starts with `value`, its LIKE wildcards taken literally."""
    escaped = value.replace("/", "//").replace("%", "/%").replace("_", "/_")
    return f"{column} LIKE ? ESCAPE '/'", [escaped + "%"]


def _holds(column: str, value: str) -> tuple[str, list]:
    """`column` holds `value`, in any case (as ILIKE: SQLite's LIKE folds ASCII)."""
    return f"lower({column}) LIKE lower(?)", [f"%{value}%"]


def filters(q: Query, notes: bool = False) -> tuple[list[str], list] | None:
    """The query's filters as SQL conditions on the events joined with their session and source (`notes`: on the
    notes instead; None where a filter leaves no note to find: a kind, a tool, an error, a pin)."""
    clauses, params = [], []
    for name, value, negated in q.filters:
        args: list = []
        if notes and name in ("kind", "tool", "has") and not negated:
            return None
        if notes and (name in ("kind", "tool", "has") or (name == "is" and value == "pinned")):
            continue  # (no note is an event of a kind, a tool call, an error or a pin: -kind:… keeps them all)
        if name == "kind":
            cond, args = "event.kind = ?", [value]
        elif name == "tool":  # a tool call's text is its tool's name, then its input
            like, args = _starts(TEXT, value + " ")
            cond, args = f"(event.kind = 'tool_call' AND ({TEXT} = ? OR {like}))", [value, *args]
        elif name == "source":
            cond, args = "coalesce(source.kind, 'native') = ?", [value]
        elif name == "project":
            cond, args = _holds("session.project", value.replace("%", "").replace("_", ""))
        elif name == "session":
            cond, args = _starts("note.session_id" if notes else "event.session_id", value)
        elif name in ("since", "until"):
            column = "note.updated_at" if notes else "event.ts"
            cond = f"{column} >= ?" if name == "since" else f"{column} < ?"
            args = [moment(value)] if name == "since" else [moment(value, end_of_day=True)]
        elif name == "has":  # a failed tool result, as the tools say it
            cond = (f"(event.kind = 'tool_result' AND (event.failed OR {TEXT} LIKE '%' || ? || '%' "
                    f"OR {TEXT} GLOB '*xit code [1-9]*'))")
            args = ["Traceback (most recent call last)"]
        elif name == "is" and value == "starred":
            cond = f"{'note' if notes else 'event'}.session_id IN (SELECT session_id FROM star)"
        else:  # is:pinned
            cond = "event.id IN (SELECT event_id FROM pin)"
        clauses.append(f"NOT ({cond})" if negated else cond)
        params.extend(args)
    return clauses, params


def _where(clauses: list[str]) -> str:
    return " AND ".join(clauses) if clauses else "1"


def events(run: Run, q: Query, limit: int, order: str) -> list[SearchHit]:
    """The events a parsed query finds: the hits' row ids first (FTS5 ranks or walks its rowids itself when no filter
    joins the events: `ORDER BY rank` / `rowid DESC`), then the snippets of those alone (a snippet made for every
    match before the sort cost half a second for a common word)."""
    found = filters(q)
    assert found is not None
    where, params = found
    if not q.has_words:  # filters alone: the newest events they keep, their text's start as the snippet
        for t in q.excluded:
            cond, args = _holds(TEXT, t.text)
            where, params = [*where, f"NOT ({cond})"], [*params, *args]
        rows = run(f"SELECT event.pk, {TEXT} FROM {JOINED} WHERE {_where(where)} AND event.kind NOT IN "
                   f"({sql_list(UNINDEXED_KINDS)}) ORDER BY event.pk DESC LIMIT ?", [*params, limit])
        return _hits(run, {pk: " ".join(t.split())[:160] for pk, t in rows}, [pk for pk, _ in rows])
    match = fts_query(q)
    if where:
        by = "bm25(event_fts)" if order == "relevance" else "event.pk DESC"
        ids = run(f"SELECT event.pk FROM event_fts JOIN ({JOINED}) ON event.pk = event_fts.rowid "
                  f"WHERE event_fts MATCH ? AND {_where(where)} ORDER BY {by}, event.pk DESC LIMIT ?",
                  [match, *params, limit])
    else:
        by = "rank" if order == "relevance" else "rowid DESC"
        ids = run(f"SELECT rowid FROM event_fts WHERE event_fts MATCH ? ORDER BY {by} LIMIT ?", [match, limit])
    order_pks = [pk for (pk,) in ids]
    if not order_pks:
        return []
    rows = run(f"SELECT rowid, snippet(event_fts, 0, '{MARK_START}', '{MARK_END}', '…', {SNIPPET_TOKENS}) "
               f"FROM event_fts WHERE event_fts MATCH ? AND rowid IN ({', '.join('?' * len(order_pks))})",
               [match, *order_pks])
    return _hits(run, {pk: snip for pk, snip in rows}, order_pks)


def _hits(run: Run, snippets: dict[int, str], order: list[int]) -> list[SearchHit]:
    if not order:
        return []
    rows = run("SELECT event.pk, event.id, event.session_id, event.seq, event.kind, event.role, event.ts, session.title "
               "FROM event JOIN session ON session.id = event.session_id "
               f"WHERE event.pk IN ({', '.join('?' * len(order))})", list(order))
    by_pk = {r[0]: r for r in rows}
    return [SearchHit(session_id=r[2], session_title=r[7], event_id=r[1], seq=r[3], kind=r[4], role=r[5], ts=r[6],
                      snippet=snippets[pk]) for pk in order if (r := by_pk.get(pk)) is not None]


NOTE_COLUMNS = ("SELECT note.id, note.session_id, note.event_id, note.text, note.updated_at, session.title, event.seq "
                "FROM note JOIN session ON session.id = note.session_id LEFT OUTER JOIN event ON event.id = note.event_id "
                "LEFT OUTER JOIN source ON session.source_id = source.id")


def notes(run: Run, q: Query, limit: int) -> list[SearchHit]:
    """The notes a parsed query finds, newest first (sessionscope.recall.notes.matching's words, in SQL's rows)."""
    found = filters(q, notes=True)
    if found is None:
        return []
    where, params = found
    return matching_rows(run(f"{NOTE_COLUMNS} WHERE {_where(where)} ORDER BY note.updated_at DESC", params), q, limit)


def matching_rows(rows, q, limit: int) -> list[SearchHit]:
    """Of the notes within the query's filters (rows of id, session id, event id, text, updated, title, seq; newest
    first), those with every group of words and none left out."""
    found = []
    for r in rows:
        flat = " ".join(r[3].lower().split())
        if all(any(t.text.lower() in flat for t in g) for g in q.groups) and \
                not any(t.text.lower() in flat for t in q.excluded):
            word = next((t.text for g in q.groups for t in g if t.text.lower() in flat), "")
            found.append(note_hit(r, like_snippet(r[3], word) if word else r[3][:80]))
            if len(found) >= limit:
                break
    return found


def note_hit(r, snippet: str, match: str = "words") -> SearchHit:
    nid, sid, eid, _text, updated, title, seq = r
    return SearchHit(session_id=sid, session_title=title, event_id=eid or "", seq=seq or 0,
                     kind="note", role="user", ts=updated, snippet=snippet, match=match, note_id=nid)


def like_snippet(text: str, word: str, width: int = 80) -> str:
    m = re.search(re.escape(word), text, re.IGNORECASE)
    if not m:
        return text[:width]
    start = max(0, m.start() - width // 2)
    after = text[m.end():m.end() + width // 2]
    return ("…" if start else "") + text[start:m.start()] + MARK_START + m.group(0) + MARK_END + after


def distinct(hits: list[SearchHit]) -> list[SearchHit]:
    """The same text twice in a session (a tool call and the fact taken from it) is one hit."""
    seen, kept = set(), []
    for h in hits:
        key = (h.session_id, " ".join(h.snippet.replace(MARK_START, "").replace(MARK_END, "").split()))
        if key not in seen:
            seen.add(key)
            kept.append(h)
    return kept


def parsed(text: str, order: str, session_id: str | None) -> Query:
    """A search's query, parsed (sessionscope.recall.query), within one session if asked; its order checked."""
    from sessionscope.errors import InvalidInput
    from sessionscope.recall.query import parse
    if order not in SORTS:
        raise InvalidInput(f"cannot order a search by {order!r}; use one of {', '.join(SORTS)}")
    q = parse(text)
    if session_id:
        q.filters.append(("session", session_id, False))
    return q


def search(run: Run, text: str, *, words, limit: int = 50, session_id: str | None = None,
           order: str = "relevance", fuzzy: bool = True) -> list[SearchHit]:
    """sessionscope.recall.search.search on SQLite with search by meaning off: notes first, then the events; `*part*`
    and a typo's mending through the store's words (`words`: a sessionscope.recall.terms.Words)."""
    from sessionscope.recall import fuzzy as forgiving
    typed = parsed(text, order, session_id)

    def found(q: Query) -> list[SearchHit]:
        hits = [] if q.notes_only else events(run, q, limit, order)
        mine = notes(run, q, limit) if (q.has_words or q.notes_only) else []
        return distinct(mine + hits)[:limit]
    return forgiving.searched(typed, text, words, found, fuzzy)
