"""The search language (#34), one for the app, the command line and the MCP server.

    retry jitter                 both words (a trailing * matches a prefix: retr*; a leading one any
                                 part of a word: *ssion* (in it), *ssion (at its end))
    "exact phrase"               the words in that order
    cookie OR session            either
    -flaky                       not this word
    kind:tool_result             events of a kind (message, tool_call, tool_result, thinking, compaction, fact.set)
    tool:Bash                    the calls of a tool
    source:codex                 sessions of a tool (claude_code, codex, gemini, native, …)
    project:shop                 sessions whose project (folder) holds this
    session:1a2b3c               one session (its id or the start of it)
    since:2026-11-01 until:7d    a time range (a date, ISO time, or an age: 30m, 12h, 7d, 2w)
    has:error                    tool results that failed
    is:starred  is:pinned        sessions you starred, events you pinned
    note:jitter                  only your notes (with these words)

A filter may be negated too (-kind:thinking, -source:codex). A query that does not parse raises InvalidInput
saying where and why. `parse` gives a Query; sessionscope.recall.search turns it into SQL for each engine.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass, field

from sessionscope.errors import InvalidInput

FIELDS = ("kind", "tool", "source", "project", "session", "since", "until", "has", "is", "note")
IS_VALUES = ("starred", "pinned")
HAS_VALUES = ("error",)
_TOKEN = re.compile(r'\s*(-?)(?:([a-z]+):)?("(?:[^"])*"?|[^\s"]+)')


@dataclass(frozen=True)
class Term:
    text: str
    phrase: bool = False  # "exact phrase": the words in this order
    prefix: bool = False  # retr*: any word starting so
    inside: bool = False  # *ssion*: any word holding it (*ssion: ending so); the words it stands for are found in
    # the store's vocabulary and searched for (sessionscope.recall.fuzzy)

    def holds(self, word: str) -> bool:
        """Whether one word (lowered) is what this one-word term finds."""
        text = self.text.lower()
        if self.inside:
            return text in word if self.prefix else word.endswith(text)
        return word.startswith(text) if self.prefix else word == text

    @property
    def words(self) -> list[str]:
        return self.text.split()


@dataclass
class Query:
    groups: list[list[Term]] = field(default_factory=list)  # every group must match: one of its terms
    excluded: list[Term] = field(default_factory=list)
    filters: list[tuple[str, str, bool]] = field(default_factory=list)  # (field, value, negated)
    notes_only: bool = False

    def values(self, name: str, negated: bool = False) -> list[str]:
        return [v for f, v, n in self.filters if f == name and n == negated]

    @property
    def has_words(self) -> bool:
        return bool(self.groups)

    def positive_words(self) -> list[str]:
        """Every word a hit must or may hold (for snippets and for highlighting where a hit is opened)."""
        return [w for g in self.groups for t in g for w in t.words]


def parse(text: str) -> Query:
    """The query a user typed, or InvalidInput naming the position and what is wrong there."""
    q, pending_or, pos = Query(), False, 0
    text = text or ""
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or not m.group(0).strip():
            break
        start = m.start(3)
        pos = m.end()
        negated, name, value = m.group(1) == "-", m.group(2), m.group(3)
        if value.startswith('"'):
            if len(value) < 2 or not value.endswith('"'):
                raise InvalidInput(f"at character {start + 1}: the quote opened there is not closed")
            phrase, value = True, value[1:-1]
        else:
            phrase = False
        if name is None and not phrase and value == "OR" and not negated:
            if not q.groups or pending_or:
                raise InvalidInput(f"at character {start + 1}: OR needs a word on each side")
            pending_or = True
            continue
        if name is None and not phrase and value.endswith(":") and value[:-1] in FIELDS:
            raise InvalidInput(f"at character {start + len(value) + 1}: {value} needs a value")
        if name is not None and name not in FIELDS and not phrase and value.startswith("/"):
            name, value = None, f"{name}:{value}"  # a word with a colon in it (http://…), not an operator
        if name is not None:
            if name not in FIELDS:
                raise InvalidInput(f"at character {m.start(2) + 1}: there is no {name}: operator "
                                   f"(there are {', '.join(f + ':' for f in FIELDS)})")
            if pending_or:
                raise InvalidInput(f"at character {m.start(2) + 1}: OR joins words, not {name}:")
            if name == "note":
                q.notes_only = True
                if not negated and value.strip():
                    q.groups += [[_term(w, False)] for w in ([value] if phrase else value.split())]
                continue
            q.filters.append((name, _checked(name, value.strip(), m.start(3)), negated))
            continue
        if not value.strip():
            raise InvalidInput(f"at character {start + 1}: an empty phrase finds nothing")
        term = _term(value, phrase)
        if not re.search(r"\w", term.text):
            continue  # punctuation alone ("&", ":*") finds nothing in any index: it is left out, as the engines do
        if negated:
            if pending_or:
                raise InvalidInput(f"at character {start}: OR cannot join a word left out (-{value})")
            q.excluded.append(term)
        elif pending_or:
            q.groups[-1].append(term)
            pending_or = False
        else:
            q.groups.append([term])
    if pending_or:
        raise InvalidInput("at the end: OR needs a word after it")
    if not q.groups and not q.filters and not q.notes_only:
        raise InvalidInput("the search is empty: type a word to find, or a filter such as tool:Bash"
                           if not q.excluded else "a search needs a word to find or a filter, not only words left out")
    return q


def _term(value: str, phrase: bool) -> Term:
    prefix = not phrase and value.endswith("*")
    inside = not phrase and value.startswith("*") and len(value.strip("*").split()) == 1
    text = " ".join(value.strip("*").split()) if not phrase else " ".join(value.split())
    return Term(text, phrase, prefix, inside)


def _checked(name: str, value: str, at: int) -> str:
    where = f"at character {at + 1}: "
    if not value:
        raise InvalidInput(f"{where}{name}: needs a value")
    if name == "is" and value not in IS_VALUES:
        raise InvalidInput(f"{where}is: takes {' or '.join(IS_VALUES)}, not {value!r}")
    if name == "has" and value not in HAS_VALUES:
        raise InvalidInput(f"{where}has: takes {' or '.join(HAS_VALUES)}, not {value!r}")
    if name in ("since", "until"):
        moment(value, where, end_of_day=name == "until")
    return value


def moment(text: str, where: str = "", end_of_day: bool = False) -> float:
    """since:/until: as epoch seconds: a date (its midnight, or the end of that day for until:), an ISO time,
    or an age (30m, 12h, 7d, 2w ago)."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([mhdw])", text)
    if m:
        return time.time() - float(m.group(1)) * {"m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{where}{text!r} is not a date (2026-11-01), a time (2026-11-01T14:00) or an age "
                           "(30m, 12h, 7d, 2w)") from None
    if stamp.tzinfo is None:
        stamp = stamp.astimezone()
    if end_of_day and re.fullmatch(r"\d{4}-\d\d-\d\d", text):
        stamp += dt.timedelta(days=1)
    return stamp.timestamp()
