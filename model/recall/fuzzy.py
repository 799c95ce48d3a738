"""Search that forgives: `*part*` finds any word holding it, and a word that finds nothing is taken for a typo of the
nearest word the store holds ("did you mean"). Both go through the store's vocabulary (the words its text index
holds: sessionscope.recall.terms on SQLite, the newest events' words on PostgreSQL), so what is then searched is
always real words, with the same ranking, operators and filters as any search.

`Vocabulary` is what an engine offers: the words holding a part (a trigram index answers it), the words near a
word, and whether a word is indexed at all.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from sessionscope.recall.query import Query, Term

MOST_WORDS = 64  # words one `*part*` stands for: the commonest first (an OR of hundreds would be slow, and noise)


class Vocabulary(Protocol):
    def holding(self, part: str, at_end: bool, most: int) -> list[str]:
        """Indexed words holding `part` (ending with it when `at_end`), the commonest first."""

    def near(self, word: str) -> list[str]:
        """Indexed words sharing some of `word`'s trigrams: the candidates a typo is measured against."""

    def indexed(self, word: str) -> bool:
        """Whether the index holds this word."""


def expanded(q: Query, words: Vocabulary) -> Query | None:
    """The query with each `*part*` term replaced by the words it stands for (as alternatives in its group); None
    where a group that must match can then match nothing. Excluded `*part*` terms exclude each word."""
    if not any(t.inside for g in q.groups for t in g) and not any(t.inside for t in q.excluded):
        return q

    def words_of(t: Term) -> list[Term]:
        if not t.inside:
            return [t]
        return [Term(w) for w in words.holding(t.text.lower(), at_end=not t.prefix, most=MOST_WORDS)]
    groups = [[w for t in g for w in words_of(t)] for g in q.groups]
    if any(not g for g in groups):
        return None
    return dataclasses.replace(q, groups=groups, excluded=[w for t in q.excluded for w in words_of(t)])


def distance(a: str, b: str, most: int) -> int:
    """Levenshtein's distance between two words, or most + 1 once it is past `most` (the candidates are few and
    short: a bounded row-by-row table, no dependency for it)."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        best = row[0]
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
            best = min(best, row[j])
        if best > most:
            return most + 1
    return row[-1]


def allowed(word: str) -> int:
    """How many edits a word may be from the one meant: none under 4 letters, one up to 7, two beyond."""
    return 0 if len(word) < 4 else 1 if len(word) <= 7 else 2


def nearest(word: str, words: Vocabulary) -> str | None:
    """The indexed word nearest `word` within its allowance (the first of the closest, as `near` ranks them)."""
    most = allowed(word)
    if not most:
        return None
    scored = [(d, i, w) for i, w in enumerate(words.near(word)) if w != word and (d := distance(word, w, most)) <= most]
    return min(scored)[2] if scored else None


def corrected(q: Query, words: Vocabulary) -> tuple[Query, dict[str, str]] | None:
    """For a query that found nothing: each plain word the index does not hold, replaced by the nearest word it
    does; (the query, {typed: meant}), or None where no word was replaced."""
    fixes: dict[str, str] = {}

    def fix(t: Term) -> Term:
        word = t.text.lower()
        if t.phrase or t.prefix or t.inside or " " in word or word in fixes or words.indexed(word):
            return Term(fixes[word]) if word in fixes else t
        meant = nearest(word, words)
        if meant is None:
            return t
        fixes[word] = meant
        return Term(meant)
    groups = [[fix(t) for t in g] for g in q.groups]
    return (dataclasses.replace(q, groups=groups), fixes) if fixes else None


def said(text: str, fixes: dict[str, str]) -> str:
    """The query as the user typed it with each fixed word replaced: what "did you mean" shows."""
    import re
    return re.sub(r"\w+", lambda m: fixes.get(m.group(0).lower(), m.group(0)), text)


def searched(typed: Query, text: str, words: Vocabulary, run, fuzzy: bool = True) -> list:
    """The hits of a query (`run(query)`), its `*part*` terms expanded; where it finds nothing and `fuzzy`, the hits
    of its typos mended, each hit saying what was searched instead (`did_you_mean`)."""
    q = expanded(typed, words)
    hits = run(q) if q is not None else []
    if hits or not fuzzy or not typed.has_words:
        return hits
    mended = corrected(q if q is not None else typed, words)
    if mended is None:
        return []
    shown = said(text, mended[1])
    return [dataclasses.replace(h, did_you_mean=shown) for h in run(mended[0])]
