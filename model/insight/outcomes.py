"""Tool outcomes (#37): per tool and model, how the agents' tool calls went.

For each call: whether it failed, and how — an error result (the tool said so: `is_error`, a non-zero exit
code), a refused permission (the user said no), an interruption (the user stopped it, or it never got a
result) —, how long it took (its result's time − its own), how much it gave back, whether it was a retry
(the same call, same arguments, after that call failed), and whether it was the last call before the user
corrected or interrupted the agent. Calls and results are paired by the tools' own ids (sessionscope.history.pairing).

A session's outcomes are folded once and cached by its last seq (`tool_cache`, like usage_cache): a report over
the whole store reads the cache and folds only sessions that changed since. Durations are kept as a histogram
of half-octave buckets (10 ms · 2^(i/2)), so p50 and p90 merge across sessions, within 19 %. Each row keeps the
ids of some of its failed calls, so a number leads to the events behind it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.history import cards, pairing
from sessionscope.store.schema import EVENT, SESSION, SOURCE, TOOL_CACHE

FOLD_VERSION = 2  # a cached fold of an older version is folded again (2: the failed calls' results kept)
BUCKETS = 48  # 10 ms … ~2.3 days
KEPT_IDS = 20  # failed calls remembered per session, tool and kind
REFUSED = re.compile(r"doesn'?t want to proceed with this tool use|tool use was rejected|permission (?:was )?denied by "
                     r"(?:the )?user|rejected by (?:the )?user|user (?:denied|declined|rejected)|was not approved", re.I)
INTERRUPTED = re.compile(r"\[Request interrupted by user|interrupted by (?:the )?user|tool call was cancelled", re.I)
CORRECTION = re.compile(r"^\s*(?:no\b|nope\b|don'?t\b|do not\b|stop\b|wait\b|wrong\b|undo\b|revert\b|actually\b|"
                        r"instead\b|that'?s (?:not|wrong)|that is (?:not|wrong)|why did you\b|you (?:should(?:n'?t| not)|"
                        r"didn'?t|did not)\b|please don'?t\b)", re.I)
_ERROR_FLAG = re.compile(r'"is_error"\s*:\s*true')
# a non-zero exit the tool reported in its output (Codex's `Exit code: 1`, Claude's `Exit code 1`, `exit_code`)
_EXIT = re.compile(r"(?:[Ee]xit code|exit_code|Exit status)\W{0,3}(-?\d+)")

# the counters of a row, in order (after day, tool, model)
COUNTS = ("calls", "errors", "refused", "interrupted", "retries", "corrections", "out_chars", "timed")


def bucket(seconds: float) -> int:
    ms = max(seconds * 1000, 1.0)
    return max(0, min(BUCKETS - 1, int(math.floor(2 * math.log2(ms / 10))) + 1 if ms >= 10 else 0))


def bucket_seconds(i: int) -> float:
    """What a time in bucket `i` is reported as, in seconds: the geometric middle of (10 ms·2^((i−1)/2), 10 ms·2^(i/2)],
    within 19 % (2^¼) of any time in it."""
    return 0.01 * 2 ** ((i - 0.5) / 2) if i else 0.01


# a word each pattern's every match holds: a result without it is not searched (the patterns' alternations tried
# at every place of every result were ~150 µs a result, most of a session's vital signs folded at import)
_REFUSED_WORDS = ("proceed", "reject", "denied", "declined", "approved")
_INTERRUPTED_WORDS = ("interrupted", "cancelled")
_EXIT_WORDS = ("xit code", "exit_code", "Exit status")


def _holds(text: str, words: tuple[str, ...]) -> bool:
    return any(w in text for w in words)


def how_failed(payload: str, text: str) -> str | None:
    """'refused', 'interrupted', 'error' or None (it went through), as the result says."""
    head = text[:2000]
    low = head.lower()
    if _holds(low, _REFUSED_WORDS) and REFUSED.search(head):
        return "refused"
    if _holds(low, _INTERRUPTED_WORDS) and INTERRUPTED.search(head):
        return "interrupted"
    if _ERROR_FLAG.search(payload[:4000]) or _ERROR_FLAG.search(payload[-4000:]):
        return "error"
    tail = text[-2000:]
    m = (_holds(head, _EXIT_WORDS) and _EXIT.search(head)) or (_holds(tail, _EXIT_WORDS) and _EXIT.search(tail))
    if m and m.group(1) not in ("0", "-0"):
        return "error"
    return None


def _signature(call: cards.Call) -> str:
    body = orjson.dumps(call.args, option=orjson.OPT_SORT_KEYS, default=str)
    return call.name + ":" + hashlib.sha1(body).hexdigest()


@dataclass
class _Row:
    counts: list[int] = field(default_factory=lambda: [0] * len(COUNTS))
    hist: dict[int, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)  # call event ids
    said: dict[str, str] = field(default_factory=dict)  # a failed call → its result's event id (what the tool said)

    def dump(self) -> list:
        return [*self.counts, {str(k): v for k, v in sorted(self.hist.items())}, self.failed, self.said]


def fold(conn: Connection, session_id: str) -> list[list]:
    """The session's outcomes, [[day, tool, model, *COUNTS, {bucket: calls}, [failed call ids], {failed call id:
    its result's id}], …]."""
    fallback = conn.execute(sa.select(SESSION.c.model).where(SESSION.c.id == session_id)).scalar() or ""
    q = (sa.select(EVENT.c.id, EVENT.c.ts, EVENT.c.kind, EVENT.c.role, EVENT.c.text, EVENT.c.payload,
                   EVENT.c.sidechain)
         .where(EVENT.c.session_id == session_id,
                sa.or_(EVENT.c.kind.in_((pairing.CALL, pairing.RESULT)),
                       sa.and_(EVENT.c.kind == "message", EVENT.c.role == "user")))
         .order_by(EVENT.c.seq))
    calls: dict[str, tuple[float, str, str, str, bool]] = {}  # call event → (ts, day, tool, model, sidechain)
    sigs: dict[str, str] = {}  # call event → its signature (name and arguments)
    answered: set[str] = set()
    failed_sigs: set[str] = set()
    last_call: dict[bool, str | None] = {False: None, True: None}
    rows: dict[tuple[str, str, str], _Row] = defaultdict(_Row)

    def row(call_id: str) -> _Row:
        _ts, day, tool, model, _side = calls[call_id]
        return rows[(day, tool, model)]

    pairer = pairing.Pairer()
    for eid, ts, kind, role, text, payload, side in conn.execute(q):
        side = bool(side)
        text = text or ""
        if kind == pairing.CALL:
            made = cards.calls(payload) or [cards.Call(text.split(" ", 1)[0] or "tool", {})]
            call = made[0]
            day = dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d") if ts and ts > 0 else ""
            model = cards.model_of(payload) or fallback
            calls[eid] = (ts or 0.0, day, call.name or "tool", model if model != "<synthetic>" else fallback, side)
            r = row(eid)
            r.counts[0] += 1
            sig = sigs[eid] = _signature(call)
            if sig in failed_sigs:
                r.counts[4] += 1  # the same call again, after it failed
                failed_sigs.discard(sig)
            last_call[side] = eid
            pairer.see(eid, kind, payload, side)
        elif kind == pairing.RESULT:
            hit = pairer.see(eid, kind, payload, side)
            if hit is None or hit not in calls or hit in answered:
                continue
            answered.add(hit)
            r = row(hit)
            r.counts[6] += len(text)
            if ts and calls[hit][0] and ts >= calls[hit][0]:
                b = bucket(ts - calls[hit][0])
                r.hist[b] = r.hist.get(b, 0) + 1
                r.counts[7] += 1
            how = how_failed(payload or "", text)
            if how is not None:
                r.counts[{"error": 1, "refused": 2, "interrupted": 3}[how]] += 1
                failed_sigs.add(sigs[hit])
                if len(r.failed) < KEPT_IDS:
                    r.failed.append(hit)
                    r.said[hit] = eid
        elif not side:  # a user's message: a correction or an interruption blames the call right before it
            pairer.see(eid, kind, payload, side)
            if (INTERRUPTED.search(text[:200]) or CORRECTION.search(text[:200])) and last_call[False]:
                row(last_call[False]).counts[5] += 1
            last_call[False] = None
    for eid, (_ts, day, tool, model, _side) in calls.items():
        if eid not in answered:  # no result ever came: stopped before it finished
            r = rows[(day, tool, model)]
            r.counts[3] += 1
            if len(r.failed) < KEPT_IDS:
                r.failed.append(eid)
    return [[day, tool, model, *r.dump()] for (day, tool, model), r in sorted(rows.items())]


def cached_rows(conn: Connection, session_ids: list[str] | None = None) -> tuple[dict[str, list[list]], dict]:
    """Every session's outcome rows, and those folded now (the sessions that changed since they were cached:
    {session id: (its last seq, its rows)}, for `save`). Only reads: the folding never holds the store's write lock."""
    have = sa.select(SESSION.c.id, SESSION.c.last_seq, TOOL_CACHE.c.last_seq, TOOL_CACHE.c.version,
                     TOOL_CACHE.c.rows).select_from(SESSION.outerjoin(TOOL_CACHE, TOOL_CACHE.c.session_id == SESSION.c.id))
    if session_ids is not None:
        have = have.where(SESSION.c.id.in_(session_ids))
    out: dict[str, list[list]] = {}
    fresh: dict[str, tuple[int, list[list]]] = {}
    for sid, last_seq, cached_seq, version, blob in conn.execute(have).all():
        if cached_seq == last_seq and version == FOLD_VERSION and blob is not None:
            out[sid] = orjson.loads(blob)
            continue
        out[sid] = fold(conn, sid)
        fresh[sid] = (last_seq or 0, out[sid])
    return out, fresh


def save(conn: Connection, fresh: dict[str, tuple[int, list[list]]]) -> None:
    """Cache the sessions folded by `cached_rows`, in one short write."""
    from sessionscope.safety.team import changeable
    mine = changeable(conn, fresh)  # (a team store: one's own; asked once, not once a session)
    fresh = {sid: v for sid, v in fresh.items() if sid in mine}
    if not fresh:
        return
    conn.execute(TOOL_CACHE.delete().where(TOOL_CACHE.c.session_id.in_(list(fresh))))
    conn.execute(TOOL_CACHE.insert(), [{"session_id": sid, "last_seq": seq, "version": FOLD_VERSION,
                                        "rows": orjson.dumps(rows)} for sid, (seq, rows) in fresh.items()])


# -- the report ------------------------------------------------------------------------

@dataclass
class Outcome:
    """One group's calls (a tool, a model, a project or a source)."""

    name: str
    calls: int = 0
    errors: int = 0
    refused: int = 0
    interrupted: int = 0
    retries: int = 0
    corrections: int = 0
    out_chars: int = 0
    timed: int = 0
    hist: dict[int, int] = field(default_factory=dict)
    sessions: set[str] = field(default_factory=set)
    failed_ids: list[str] = field(default_factory=list)  # some of the failed calls (event ids), newest sessions first
    failed_results: dict[str, str] = field(default_factory=dict)  # of those, a call → its result's event id

    @property
    def failures(self) -> int:
        return self.errors + self.refused + self.interrupted

    @property
    def failure_rate(self) -> float:
        return self.failures / self.calls if self.calls else 0.0

    def percentile(self, p: float) -> float | None:
        """Seconds a call took at the `p` quantile (the bucket's upper bound); None when no call was timed."""
        if not self.timed:
            return None
        need, seen = p * self.timed, 0
        for b in sorted(self.hist):
            seen += self.hist[b]
            if seen >= need:
                return bucket_seconds(b)
        return bucket_seconds(max(self.hist))

    @property
    def mean_output(self) -> float:
        return self.out_chars / self.calls if self.calls else 0.0

    def as_json(self) -> dict:
        return {"name": self.name, "calls": self.calls, "failures": self.failures, "errors": self.errors,
                "refused": self.refused, "interrupted": self.interrupted, "failure_rate": round(self.failure_rate, 4),
                "p50_s": _round(self.percentile(0.5)), "p90_s": _round(self.percentile(0.9)), "retries": self.retries,
                "before_correction": self.corrections, "mean_output_chars": round(self.mean_output, 1),
                "sessions": len(self.sessions)}


def _round(seconds: float | None) -> float | None:
    return None if seconds is None else float(f"{seconds:.3g}")


BY = ("tool", "model", "project", "source")


def report(conn: Connection, *, by: str = "tool", since: str = "", until: str = "",
           session_ids: list[str] | None = None, tool: str | None = None, folded: dict | None = None) -> list[Outcome]:
    """Outcomes between two days (inclusive, 'YYYY-MM-DD'; empty: unbounded) grouped `by` tool, model, project or
    source, most calls first; `tool`: only that tool's calls. The sessions folded on the way are added to `folded`
    (for `save`, after the read)."""
    if by not in BY:
        raise ValueError(f"--by takes one of {', '.join(BY)}, not {by!r}")
    outcomes, fresh = cached_rows(conn, session_ids)
    if folded is not None:
        folded.update(fresh)
    info = {sid: (project, kind or "native", last) for sid, project, kind, last in conn.execute(
        sa.select(SESSION.c.id, SESSION.c.project, SOURCE.c.kind, SESSION.c.updated_at).select_from(
            SESSION.outerjoin(SOURCE, SOURCE.c.id == SESSION.c.source_id)))}
    groups: dict[str, Outcome] = {}
    newest_first = sorted(outcomes, key=lambda s: -(info.get(s, ("", "", 0))[2] or 0))
    for sid in newest_first:
        project, source, _last = info.get(sid, ("", "native", 0))
        for day, name, model, *rest in outcomes[sid]:
            if (since and day < since) or (until and day > until) or (tool is not None and name != tool):
                continue
            counts, hist, failed, said = rest[:len(COUNTS)], rest[len(COUNTS)], rest[len(COUNTS) + 1], rest[len(COUNTS) + 2]
            key = {"tool": name, "model": model or "(unknown model)", "project": project or "(no project)",
                   "source": source}[by]
            o = groups.setdefault(key, Outcome(key))
            for attr, n in zip(COUNTS, counts):
                setattr(o, attr, getattr(o, attr) + n)
            for b, n in hist.items():
                o.hist[int(b)] = o.hist.get(int(b), 0) + n
            o.sessions.add(sid)
            if len(o.failed_ids) < 500:
                kept = failed[:500 - len(o.failed_ids)]
                o.failed_ids += kept
                o.failed_results.update((c, said[c]) for c in kept if c in said)
    return sorted(groups.values(), key=lambda o: (-o.calls, o.name))
