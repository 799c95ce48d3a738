"""Search as a reader of redacted text sees the store (#58): what `sessionscope mcp` answers with.

The store's index holds the text as the tools wrote it, secrets included. Asked through it, a query could tell
whether a secret's characters are there (`AKIAIOSF*`: one hit, `AKIAXXXX*`: none) while every snippet it saw was
redacted: a script recovered a whole AWS key in 218 calls. So every hit the index finds is held against its text
redacted whole: each group of the query's words must be found in the redacted text, no excluded word may be, and
the snippet is cut from the redacted text and marked there. A word that matched only inside a secret finds
nothing; an excluded word is tested on the redacted text too (`-AKIAIOSF*` must not tell either). The index is
asked without the excluded words, so it excludes nothing on the secrets' account. `*part*` is held the same way
(a word holding it must be in the redacted text), and no typo is mended: its "did you mean" would name a word of
the index, a secret's as soon as any other.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sessionscope.history.read_models import MARK_END, MARK_START, SearchHit
from sessionscope.recall import query as search_query

QUERY_MAX = 1_000  # characters of a query (one long argument stalled the server for everyone)
SNIPPET_CONTEXT = 90  # characters of the redacted text each side of the first word found
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r'\s*(-?)(?:([a-z]+):)?("(?:[^"])*"?|[^\s"]+)')


def _without_exclusions(text: str) -> str:
    """The query with its excluded words taken out (filters, negated or not, stay)."""
    kept = []
    for m in _TOKEN.finditer(text):
        sign, name, value = m.groups()
        if sign and not name:
            continue
        kept.append(m.group(0).strip())
    return " ".join(kept)


def _matches(term: search_query.Term, words: list[str], start: int = 0) -> int | None:
    """Where in `words` (lowered) the term is first found, or None."""
    want = [w.lower() for w in _WORD.findall(term.text)]
    if not want:
        return None
    n = len(want)
    last = search_query.Term(want[-1], prefix=term.prefix, inside=term.inside)  # (*part*: inside a word)
    for i in range(start, len(words) - n + 1):
        if words[i:i + n - 1] == want[:-1] and last.holds(words[i + n - 1]):
            return i
    return None


def _snippet(text: str, spans: list[tuple[int, int]], first: int | None) -> str:
    """The redacted text around the first word found, each found word marked."""
    if first is None:
        cut = text[:2 * SNIPPET_CONTEXT]
        return cut + ("…" if len(text) > len(cut) else "")
    lo = max(0, spans[first][0] - SNIPPET_CONTEXT)
    hi = min(len(text), spans[first][1] + SNIPPET_CONTEXT)
    out, at = [], lo
    for a, b in spans:
        if a >= lo and b <= hi and a >= at:
            out += [text[at:a], MARK_START, text[a:b], MARK_END]
            at = b
    out.append(text[at:hi])
    return ("…" if lo else "") + "".join(out) + ("…" if hi < len(text) else "")


def held_to_redacted(q: search_query.Query, text: str) -> tuple[bool, str]:
    """Whether `text` (redacted already) answers the query's words, and its snippet."""
    spans = [m.span() for m in _WORD.finditer(text)]
    words = [text[a:b].lower() for a, b in spans]
    found: list[int] = []
    for group in q.groups:
        places = [(i, t) for t in group if (i := _matches(t, words)) is not None]
        if not places:
            return False, ""
        i, t = min(places, key=lambda p: p[0])
        found.append((i, i + max(1, len(_WORD.findall(t.text))) - 1))  # a phrase is marked as one
    if any(_matches(t, words) is not None for t in q.excluded):
        return False, ""
    marked = sorted({(spans[a][0], spans[b][1]) for a, b in found})
    return True, _snippet(text, marked, 0 if marked else None)


def search(store, redactor, text: str, *, limit: int, order: str = "relevance") -> list[SearchHit]:
    """The hits of `text` as they read once redacted (see the module doc): at most `limit`, each snippet cut from
    the redacted text."""
    from sessionscope.errors import InvalidInput
    if len(text) > QUERY_MAX:
        raise InvalidInput(f"the query is {len(text):,} characters long: at most {QUERY_MAX:,}")
    q = search_query.parse(text)
    asked = _without_exclusions(text)
    # (no typo is mended here: "did you mean" would name a word of the index, which may be a secret's)
    hits = store.search(asked, limit=min(4 * limit, 1_000), order=order, fuzzy=False)
    texts = _full_texts(store, hits)
    out: list[SearchHit] = []
    for h in hits:
        body = redactor.redact_text(texts.get(h.note_id or h.event_id, ""), "mcp")
        if q.groups or q.excluded:
            ok, snippet = held_to_redacted(q, body)
            if not ok and h.match in ("words", "both"):
                continue  # its words were found only inside a secret (or an excluded word is outside one)
            if not ok:  # found by meaning alone: shown without marks, its words not claimed
                snippet = _snippet(body, [], None)
        else:
            snippet = _snippet(body, [], None)
        out.append(replace(h, snippet=snippet))
        if len(out) >= limit:
            break
    return out


def _full_texts(store, hits: list[SearchHit]) -> dict[str, str]:
    """{event id or note id: its whole text} of the hits."""
    ids = [h.event_id for h in hits if h.event_id and not h.note_id]
    texts = {e.id: e.text for e in store.events_by_ids(ids)} if ids else {}
    notes = {h.note_id for h in hits if h.note_id}
    if notes:
        for sid in {h.session_id for h in hits if h.note_id}:
            texts.update({n.id: n.text for n in store.notes(sid) if n.id in notes})
    return texts
