"""The words a SQLite store's text index holds, with a trigram index over them: what `*part*` and "did you mean" ask
(sessionscope.recall.fuzzy). Plain SQL over a `run(sql, params)` as sessionscope.recall.fts, so the Store and the
command line's quick reader share it.

`search_term` (a word, the events that held it) and `search_term_tri` (FTS5's trigram tokenizer over the words) are
brought up to date when a search needs them, from the events added since (`search_terms_at`): their text is
tokenized by FTS5 itself, in a scratch index of the same tokenizer, so the words are exactly the index's, and an
import pays nothing for them; the window brings them up to date after a user's import (`catch_up`, on a worker), so
the first such search after it does not. The quick reader, which may not write, reads the words added since into a scratch
table of its own. Deleting a session forgets the words (they are read again whole at the next need), so a word of
a purged session is not kept here.
"""

from __future__ import annotations

import functools
from typing import Callable

from sessionscope.recall.fts import FTS_TEXT, FTS_WHERE, Run

TERMS_AT = "search_terms_at"  # setting: the newest event pk whose words are in search_term
SCRATCH_MOST = 20_000  # events a reader that may not write reads the words of for itself; past it: Behind
TOKENIZER = "unicode61 remove_diacritics 2"  # event_fts's (migration 0001)
NEAR_CANDIDATES = 400  # words sharing a typo's trigrams, measured in Python (the commonest first)
SCRATCH = (f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_scratch USING fts5(text, tokenize='{TOKENIZER}', "
           "detail=none)",
           "CREATE VIRTUAL TABLE IF NOT EXISTS temp.term_scratch_v USING fts5vocab(temp, term_scratch, 'row')")


def _scratch(run: Run, after: int, upto: int) -> None:
    """The words of the events after..upto, in the scratch index (emptied first)."""
    for sql in SCRATCH:
        run(sql, [])
    run("DELETE FROM temp.term_scratch", [])
    run(f"INSERT INTO temp.term_scratch(text) SELECT {FTS_TEXT} FROM event WHERE pk > ? AND pk <= ? AND {FTS_WHERE}",
        [after, upto])


def refresh(run: Run, after: int, upto: int) -> None:
    """Add the words of the events after..upto to search_term and its trigram index (a write transaction)."""
    _scratch(run, after, upto)
    last = run("SELECT coalesce(max(id), 0) FROM search_term", [])[0][0]
    run("INSERT INTO search_term(term, docs) SELECT term, doc FROM temp.term_scratch_v WHERE true "
        "ON CONFLICT(term) DO UPDATE SET docs = docs + excluded.docs", [])
    run("INSERT INTO search_term_tri(rowid, term) SELECT id, term FROM search_term WHERE id > ?", [last])
    run("DELETE FROM temp.term_scratch", [])
    run("INSERT OR REPLACE INTO setting(key, value) VALUES (?, ?)", [TERMS_AT, str(upto)])


def forget(run: Run) -> None:
    """Every word dropped (a session deleted: its words may be nowhere else); read again whole when next needed."""
    run("DELETE FROM search_term", [])
    run("INSERT INTO search_term_tri(search_term_tri) VALUES ('delete-all')", [])
    run("DELETE FROM setting WHERE key = ?", [TERMS_AT])


CATCH_UP_STEP = 20_000  # events a transaction of `catch_up` reads the words of (the write lock held that long)


def _refresh_range(run: Run, *, after: int, upto: int) -> None:
    """One step of `catch_up`, from where the words stand now, read inside the write transaction: another reader may
    have caught them up since, or a session's deletion forgotten them all (then none are kept: 0 is "keeps none")."""
    row = run("SELECT value FROM setting WHERE key = ?", [TERMS_AT])
    now = int(row[0][0]) if row and str(row[0][0]).isdigit() else 0
    if now and now < upto:
        refresh(run, max(after, now), upto)


def catch_up(read: Run, write: Callable[[Callable[[Run], None]], None], pause: Callable[[], None] = lambda: None) -> int:
    """Bring a store's words up to its newest event, a step at a time, each step a write transaction of its own
    (`pause()` between them: a background pass waits there for what the user waits for); how many events' words were
    read. A store that keeps no words (never asked a `*part*` or typo search) is left without: 0."""
    row = read("SELECT value FROM setting WHERE key = ?", [TERMS_AT])
    at = int(row[0][0]) if row and str(row[0][0]).isdigit() else 0
    if not at or not read("SELECT 1 FROM search_term LIMIT 1", []):
        return 0
    top = read("SELECT coalesce(max(pk), 0) FROM event", [])[0][0]
    done = at
    while done < top:
        upto = min(top, done + CATCH_UP_STEP)
        write(functools.partial(_refresh_range, after=done, upto=upto))
        done = upto
        pause()
    return done - at


class Behind(Exception):
    """The words are far behind the index and this reader may not write them: ask a reader that may."""


class Words:
    """A store's vocabulary (sessionscope.recall.fuzzy.Vocabulary). `write(fn)` runs fn(run) in a write transaction
    to bring the words up to date; without it (a reader that may not write) the words added since are read into a
    scratch table for this reader alone."""

    def __init__(self, run: Run, write: Callable[[Callable[[Run], None]], None] | None = None):
        self.run, self.write = run, write
        self.ready = False
        self.extra: bool | None = False  # words not yet in search_term, in temp.term_scratch_v (None: no words)

    def _ready(self) -> None:
        if self.ready:
            return
        self.ready = True
        row = self.run("SELECT value FROM setting WHERE key = ?", [TERMS_AT])
        at = int(row[0][0]) if row and str(row[0][0]).isdigit() else 0
        if at and not self.run("SELECT 1 FROM search_term LIMIT 1", []):
            at = 0  # (a repaired store: the words are read again, as the text index was)
        top = self.run("SELECT coalesce(max(pk), 0) FROM event", [])[0][0]
        if top <= at:
            return
        if self.write is not None:
            try:
                self.write(lambda run: refresh(run, at, top))
            except Exception:  # noqa: BLE001 - a store that may not be written now (read only, full): what
                self.extra = None  # is kept already is all there is (no part is expanded, no typo mended)
            return
        if top - at > SCRATCH_MOST:
            raise Behind(f"the store's words are {top - at:,} events behind")
        _scratch(self.run, at, top)
        self.extra = True

    def holding(self, part: str, at_end: bool, most: int) -> list[str]:
        self._ready()
        if self.extra is None:
            return []
        like = part.replace("/", "//").replace("%", "/%").replace("_", "/_")
        pattern = f"%{like}" if at_end else f"%{like}%"
        if len(part) >= 3:  # the trigram index finds the words holding it; LIKE then checks the end
            ask = '"' + part.replace('"', '""') + '"'
            found = self.run("SELECT term, docs FROM search_term WHERE id IN (SELECT rowid FROM search_term_tri "
                             "WHERE search_term_tri MATCH ?) AND term LIKE ? ESCAPE '/' ORDER BY docs DESC, term "
                             "LIMIT ?", [ask, pattern, most])
        else:  # (two letters: no trigram to ask; the words are few enough to read)
            found = self.run("SELECT term, docs FROM search_term WHERE term LIKE ? ESCAPE '/' ORDER BY docs DESC, term "
                             "LIMIT ?", [pattern, most])
        if self.extra:
            found = list(found) + list(self.run("SELECT term, doc FROM temp.term_scratch_v WHERE term LIKE ? "
                                                "ESCAPE '/' ORDER BY doc DESC LIMIT ?", [pattern, most]))
        return _commonest(found, most)

    def near(self, word: str) -> list[str]:
        self._ready()
        if self.extra is None:
            return []
        grams = sorted({word[i:i + 3] for i in range(len(word) - 2)})
        if not grams:
            return []
        ask = " OR ".join('"' + g.replace('"', '""') + '"' for g in grams)
        found = list(self.run("SELECT term, docs FROM search_term WHERE id IN (SELECT rowid FROM search_term_tri "
                              "WHERE search_term_tri MATCH ?) AND length(term) BETWEEN ? AND ? "
                              "ORDER BY docs DESC LIMIT ?", [ask, len(word) - 2, len(word) + 2, NEAR_CANDIDATES]))
        if self.extra:
            found += self.run("SELECT term, doc FROM temp.term_scratch_v WHERE length(term) BETWEEN ? AND ? "
                              "ORDER BY doc DESC LIMIT ?", [len(word) - 2, len(word) + 2, NEAR_CANDIDATES])
        return _commonest(found, NEAR_CANDIDATES)

    def indexed(self, word: str) -> bool:
        ask = '"' + word.replace('"', '""') + '"'
        return bool(self.run("SELECT 1 FROM event_fts WHERE event_fts MATCH ? LIMIT 1", [ask]))


def driver_run(conn) -> Run:
    """`run` over a SQLAlchemy connection's driver (statements that return no rows give [])."""
    def run(sql: str, params) -> list:
        result = conn.exec_driver_sql(sql, tuple(params))
        return result.all() if result.returns_rows else []
    return run


def store_words(store) -> Words:
    """A Store's vocabulary: read through short reads of its own, brought up to date in a write transaction (so the
    words stay for the next search, and the search's own read, begun before, is not held up)."""
    def run(sql: str, params) -> list:
        with store.reader() as conn:
            return list(driver_run(conn)(sql, params))
    return Words(run, write=lambda fn: store.write(lambda conn: fn(driver_run(conn))))


def _commonest(rows, most: int) -> list[str]:
    counts: dict[str, int] = {}
    for term, n in rows:
        counts[term] = counts.get(term, 0) + n
    return sorted(counts, key=lambda t: (-counts[t], t))[:most]
