"""How the command line prints: data to stdout (text, or one JSON document with --json), errors and
progress to stderr, colour only on a terminal that wants it, and the exit codes."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import time
from typing import Any, Callable

# a search hit's marks, the same characters sessionscope.history.read_models uses (imported from there would load the model)
MARK_START, MARK_END = "\x02", "\x03"

ACTOR = "cli"  # what the audit log names as the front end of the actions taken here (sessionscope.ops)
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2  # as git and gh: done; failed or refused; a usage mistake


def report(exc: BaseException) -> int:
    """One line on stderr for any error; the exit code says which kind."""
    from sessionscope.errors import InvalidInput, NotFound, SessionscopeError

    if isinstance(exc, (NotFound, InvalidInput)):
        code = EXIT_USAGE
    elif isinstance(exc, SessionscopeError):
        code = EXIT_FAILED
    else:
        code = EXIT_FAILED
        exc = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    error(str(exc))
    return code


ERROR_CHARS = 1000  # a server's refusal can run to kilobytes of HTML: its head says what happened


def error(message: str) -> None:
    message = message if len(message) <= ERROR_CHARS else message[:ERROR_CHARS] + f"… ({len(message):,} characters)"
    print(f"sessionscope: error: {terminal(message, mark=False)}", file=sys.stderr)


def out(args, data: Any, text: str | Callable[[], str] | None = None, marks: bool = True) -> None:
    """The command's result: `data` as one JSON document with --json, else `text` (if any). Either may be
    a function, called only when its form is asked for (`show` of 10,000 events builds one, not both).
    `marks`: the text may hold a search hit's marks (terminal); a transcript's lines hold none of ours."""
    if args.json:
        print(json.dumps(data() if callable(data) else data, indent=2, ensure_ascii=False, default=str))
    elif text is not None:
        print(terminal(text() if callable(text) else text, mark=marks))


_MARKS_RE = re.compile(f"([{MARK_START}{MARK_END}])")


def terminal(text: str, mark: bool = True) -> str:
    """Text for a person's terminal: a transcript's control characters and bidi overrides shown escaped, as
    git shows them (an OSC 52 in a title would write the clipboard, ESC[2J clear the screen), line breaks
    kept; a search hit's marks (read_models.MARK_START/END) in bold on a colour terminal, else in [brackets]."""
    from sessionscope.safety.untrusted import printable

    def safe(part: str) -> str:  # line breaks and tabs kept (a diff, a Makefile), every other control escaped
        return printable(part, keep_newlines=True, keep_tabs=True)
    if not mark:
        return safe(text)
    start, end = ("\x1b[1m", "\x1b[0m") if colour() else ("[", "]")
    return "".join(start if part == MARK_START else end if part == MARK_END else safe(part)
                   for part in _MARKS_RE.split(text))


def colour(stream=None) -> bool:
    """Whether to colour what goes to `stream`: a terminal, and neither NO_COLOR (no-color.org) nor TERM=dumb."""
    stream = stream or sys.stdout
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def progress(args, describe):
    """A progress callback drawing `describe(done, total, label)` on one stderr line, or None when
    stderr is not a terminal or the output is JSON. Call `done_line` after the work."""
    if args.json or not sys.stderr.isatty():
        return None

    def show(done, total, label):
        pct = 100 * done // total if total else 100
        print(f"\r{pct:3d}%  {terminal(describe(done, total, label), mark=False)}", end="", file=sys.stderr, flush=True)
    return show


def done_line(callback) -> None:
    if callback is not None:
        print(file=sys.stderr)


def when(ts: float | None) -> str:
    if not ts:
        return "-"
    second = int(ts)
    minute = _minute(second // 60)
    return f"{minute}:{second % 60:02d}" if minute else _second(second)


@functools.lru_cache(maxsize=4096)  # `show` prints thousands of events, most in a minute shared with others
def _minute(minute: int) -> str | None:
    """The local "date hour:minute" of that minute, or None where the zone's offset is not whole minutes
    (a zone's local mean time of the 19th century)."""
    local = time.localtime(minute * 60)
    return time.strftime("%Y-%m-%d %H:%M", local) if local.tm_sec == 0 else None


def _second(ts: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def one_line(text: str, width: int = 100) -> str:
    start = text[:width + 1]
    if start.isprintable() and "  " not in start and start[:1] != " " and start[-1:] != " ":
        # nothing to fold where the line is cut (most texts): the start as it is (isprintable refuses every
        # space but " ", so this is what folding would give)
        return start if len(start) <= width else start[: width - 1] + "…"
    # the start of a long text is enough when it already fills the line (tool output runs to megabytes)
    head = " ".join(text[:width * 4].split())
    line = head if len(head) > width or len(text) <= width * 4 else " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def event_lines(events) -> str:
    """`show`'s body, a line an event (10,000 lines are most of the command's own time: one join, no list of
    views made twice)."""
    return "\n".join(f"{e.seq:>6}  {when(e.ts)}  {e.id[:8]}  {e.kind:<12} {e.role or '':<9}"
                     f"{' [sidechain]' if e.sidechain else ''} {one_line(e.text or _beside(e))}" for e in events)


def _beside(e) -> str:
    """A line beside the conversation with no text of its own (`show --all`), said as its tool names it
    (`[attachment: skill_listing]`): a blank line told nothing of what it was."""
    if e.kind not in HIDDEN_KINDS or not e.payload:
        return ""
    from sessionscope.history.cards import beside_label  # (here: a listing without --all never reads a payload)
    label = beside_label(e.payload)
    return f"[{label}]" if label else ""


def event_json(e) -> dict:
    """An event as --json gives it: its payload as JSON (the raw line a tool wrote), not a string of it."""
    d = e.as_dict()
    if isinstance(d.get("payload"), str) and d["payload"][:1] in ("{", "["):
        try:
            d["payload"] = json.loads(d["payload"])
        except ValueError:
            pass  # not JSON after all: kept as the text it is
    return d


def hit_json(h) -> dict:
    """A search hit as --json gives it: the snippet as plain text and where the matches are in it."""
    from sessionscope.history.read_models import MARK_END, MARK_START
    d = h.as_dict()
    plain, matches, i = [], [], 0
    for part in h.snippet.split(MARK_START):
        if MARK_END in part:
            hit, rest = part.split(MARK_END, 1)
            matches.append([i, i + len(hit)])
            plain += [hit, rest]
            i += len(hit) + len(rest)
        else:
            plain.append(part)
            i += len(part)
    d["snippet"], d["matches"] = "".join(plain), matches
    return d


def session_table(rows, short: dict[str, str] | None = None) -> str:
    """One line a session; ids as short as they can be while naming one session (as git's)."""
    if not rows:
        return "(no sessions)"
    short = short or {s.id: s.id[:8] for s in rows}
    width = max(8, *(len(v) for v in short.values()))
    src = max(11, *(len(s.source_kind) for s in rows))  # columns line up whatever the tools listed
    stat = max(9, *(len(s.status) for s in rows))
    lines = [f"{'ID':<{width}}  {'STATUS':<{stat}} {'SOURCE':<{src}} {'LAST ACTIVITY':<19} {'EVENTS':>7} {'TOKENS':>13}  TITLE"]
    for s in rows:
        lines.append(f"{short.get(s.id, s.id[:8]):<{width}}  {s.status:<{stat}} {s.source_kind:<{src}} {when(s.updated_at):<19} "
                     f"{s.event_count:>7,} {s.tokens_in + s.tokens_out:>13,}  {'★ ' if s.starred else ''}"
                     f"{one_line(listed_title(s), 60)}")
    return "\n".join(lines)


_LINEAGE_SUFFIX = re.compile(r"\s*\((fork|rewind)\)$")


def listed_title(s) -> str:
    """The title as `list` shows it: a fork or a rewind says so first ("[fork] …"), where a cut title cannot
    lose it, instead of by the " (fork)" its title ends in."""
    title = s.title or "(untitled)"
    if not s.forked_from_session:
        return title
    suffix = _LINEAGE_SUFFIX.search(title)
    kind = suffix.group(1) if suffix else "fork"
    return f"[{kind}] {title[:suffix.start()] if suffix else title}"


HIDDEN_KINDS = ("progress", "meta", "opaque", "checkpoint", "context")  # not the conversation: `show --all` lists them


def show_text(s, events, branch: bool = False, every: bool = False, twins=()) -> str:
    """`show`: the session's heading, then one line an event (the conversation's, unless `every`)."""
    hidden = 0
    if not every:
        shown = [e for e in events if e.kind not in HIDDEN_KINDS]
        hidden, events = len(events) - len(shown), shown
    head = (f"{s.title or '(untitled)'}\n{s.id}  {s.status}  {s.event_count:,} events  "
            f"head {s.head_event_id[:8] if s.head_event_id else '-'}")
    if s.forked_from_session:
        head += f"  forked from {s.forked_from_session[:8]} at {(s.forked_from_event or '-')[:8]}"
        if not branch:  # a fork's events are its own; the history it shares is its origin's
            head += " (--branch shows the history it shares)"
    for t in twins:
        head += (f"\nalso tool id {s.tool_id!r}: {t.id} ({t.source_kind or 'native'}, "
                 f"{t.title or '(untitled)'}): another session, not this one")
    body = event_lines(events) or "(no events in this range)"
    if hidden:
        body += f"\n({hidden:,} progress, metadata, checkpoint and context lines not shown: --all lists them)"
    return f"{head}\n{body}"


def facts_text(facts: dict) -> str:
    if not facts:
        return "(no facts)"
    return "\n".join(f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in sorted(facts.items()))
