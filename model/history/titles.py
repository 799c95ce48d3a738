"""A readable title from a session's first request (#33), for a session its tool did not name.

What a person typed first is often more than a title: a pasted stack trace, a log, a file, a fenced block,
reminders the tool put before it. The title is the words around those, cut at the end of the first sentence
(or at a word) when the request is long. What the tools themselves record (a custom title, an AI title, a
thread name, a summary) outranks this wherever an importer finds one.
"""

from __future__ import annotations

import re

LIMIT = 120  # characters: about what the list shows of a title at its default width
MIN_SENTENCE = 12  # a first "sentence" shorter than this ("Hi.", "e.g.") is not a title alone

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
# blocks a tool or an IDE wraps around the words the user typed
_TAGGED = re.compile(r"<(system-reminder|environment_context|user_instructions|ide_selection|ide_opened_file|"
                     r"local-command-caveat|command-message|command-args|context)\b[^>]*>.*?</\1>", re.S)
# lines that are pasted output, not words: timestamps, log levels, stack frames, prompts, tables, numbered code
_DUMP_LINE = re.compile(
    r"^\s*(?:\d{4}-\d\d-\d\d[ T]\d|\d\d:\d\d:\d\d[.,]|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|FATAL|TRACE)\]?[\s:]|"
    r"Traceback \(most recent|File \"|at [\w.$<>]+\(|\$ |>>> |[|+][-=+|]{3,}|\d+\s*[|→:]\s|[{}\[\]],?$|"
    r"(?:def|class|import|from|function|const|let|var|public|private|#include)\s)")
_SENTENCE_END = re.compile(r"(?<=[.!?。？！])\s+(?=\S)")


def from_prompt(text: str, limit: int = LIMIT) -> str:
    """The title a first request makes: its words without what was pasted with them, cut at the end of the
    first sentence or at a word when it is longer than `limit`. "" when there are no words at all."""
    body = _FENCE.sub("\n", _TAGGED.sub("\n", text or ""))
    lines = [line for line in body.splitlines() if line.strip() and not _DUMP_LINE.match(line)]
    if not lines:  # all of it pasted: its first line is still what the user chose to send first
        lines = [line for line in (text or "").splitlines() if line.strip()][:1]
    flat = " ".join(" ".join(lines).split())
    if len(flat) <= limit:
        return flat
    first = _SENTENCE_END.split(flat, 1)[0]
    if MIN_SENTENCE <= len(first) <= limit:
        return first
    cut = flat[:limit]
    cut = cut.rsplit(" ", 1)[0] if " " in cut[limit // 2:] else cut
    return cut.rstrip(" ,;:-") + "…"
