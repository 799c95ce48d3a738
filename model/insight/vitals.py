"""A session's vital signs (#37): how it went, as evidence rather than a grade.

How long it ran and how much of that was work, the turns a person typed, its tool calls and how many failed, the
interruptions, compactions and loops (the same failing call three times or more), the files it changed, and the
tests it ran with how the last run ended (pytest, jest, vitest, go test and cargo print a summary line the agents'
shell calls bring back). Each sign keeps the events behind it, so the app can jump to them.

Folded once per session from its events and cached by its last seq (`vitals_cache`, like the tool outcomes'), so
a list of thousands asks only for the sessions that changed since. Calls pair with their results by the tools'
own ids (sessionscope.history.pairing); failures are judged as the tool outcomes judge them (outcomes.how_failed).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sessionscope.history import cards, pairing
from sessionscope.insight import edits, outcomes
from sessionscope.store.schema import COMMIT_LINK, EVENT, FILE_TOUCH, SESSION, SOURCE, VITALS_CACHE

FOLD_VERSION = 2  # a cached fold of an older version is folded again (2: blame's file operations and commits)
IDLE = 300.0  # seconds: a longer pause between events is time away, not work
TOOL_CAP = 1800.0  # a tool that ran this long without an event between is counted as work up to here
KEPT = 50  # events remembered per sign, for the links
LOOP = 3  # the same call failing this often is a loop
# the events whose time is the agent's own (facts, checkpoints and titles a reader adds carry the import's time)
TIMED = frozenset({"message", "tool_call", "tool_result", "thinking", "compaction", "step", "progress", "attachment", "context"})

# test summaries as the runners print them (the last line of a run says how it ended)
_PYTEST = re.compile(r"(?m)^[=\s]*((?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|warnings?|deselected|"
                     r"rerun)(?:, )?)+) in [\d.]+s")
_JEST = re.compile(r"(?m)^Tests:\s+((?:\d+ \w+, )*)(\d+) total")
_VITEST = re.compile(r"(?m)^\s*Tests\s+((?:\d+ (?:failed|passed|skipped|todo)(?: \| )?)+)\s*\((\d+)\)")
_GO = re.compile(r"(?m)^(ok|FAIL)[ \t]+\S+[ \t]+(?:[\d.]+s|\(cached\)|\[(?:build|setup) failed\])")  # a package's line
_CARGO = re.compile(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed")
_COUNT = re.compile(r"(\d+) (failed|passed|errors?)")
_GIT_COMMIT = re.compile(r"\bgit\b(?:\s+-[cC]\s+\S+)*\s+commit\b(?![^;&|]*--dry-run)")
_COMMITTED = re.compile(r"(?m)^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.*)$")  # git's own line
_AIDER_COMMIT = re.compile(r"(?m)^Commit ([0-9a-f]{7,40}) (.*)$")
NOT_TESTS = cards.READ | cards.SEARCH | cards.EDIT | cards.WRITE | cards.PATCH | cards.AGENT  # output read, not run


@dataclass
class TestRun:
    event: str  # the result that printed it
    runner: str  # pytest, jest, vitest, go test, cargo test
    passed: int
    failed: int  # failures and errors

    @property
    def ok(self) -> bool:
        return self.failed == 0


# a word each runner's every summary holds: an output without it is not searched (each pattern tried at every line
# was ~10 µs a result, a fifth of a session's vital signs folded at import)
_PYTEST_WORDS = ("failed", "passed", "error", "skipped", "warning", "deselected", "rerun")
_GO_WORDS = ("ok ", "ok\t", "FAIL ", "FAIL\t")


def test_run(text: str, event: str = "") -> TestRun | None:
    """The test run a tool's output reports, by its summary line; None when it prints none."""
    tail = text[-6000:]  # the summary is at the end of a run's output
    if "test result: " in tail and (m := _CARGO.findall(tail)):
        return TestRun(event, "cargo test", sum(int(p) for _ok, p, _f in m), sum(int(f) for _ok, _p, f in m))
    if " in " in tail and any(w in tail for w in _PYTEST_WORDS) and (ms := list(_PYTEST.finditer(tail))):
        counts = _counted(ms[-1].group(1))
        return TestRun(event, "pytest", counts.get("passed", 0), counts.get("failed", 0) + counts.get("error", 0))
    if "Tests:" in tail and (m := _JEST.search(tail)):
        counts = _counted(m.group(1))
        return TestRun(event, "jest", counts.get("passed", 0), counts.get("failed", 0))
    if "Tests" in tail and (m := _VITEST.search(tail)):
        counts = _counted(m.group(1))
        return TestRun(event, "vitest", counts.get("passed", 0), counts.get("failed", 0))
    if any(w in tail for w in _GO_WORDS) and (gos := _GO.findall(tail)):
        failed = sum(1 for g in gos if g != "ok")
        return TestRun(event, "go test", len(gos) - failed, failed)  # packages, not tests: what `go test` says
    return None


def _counted(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for n, what in _COUNT.findall(text):
        key = "error" if what.startswith("error") else what
        out[key] = out.get(key, 0) + int(n)
    return out


@dataclass
class Vitals:
    """One session's signs; the lists of event ids are the evidence (at most KEPT each)."""

    first_ts: float = 0.0
    last_ts: float = 0.0
    active_s: float = 0.0
    turns: int = 0
    calls: int = 0
    failures: int = 0
    interruptions: int = 0
    compactions: int = 0
    loops: list[dict] = field(default_factory=list)  # {"call": what it did, "failures": n, "ids": [call ids]}
    files: list[list[str]] = field(default_factory=list)  # [path, the last call that changed it], first change first
    tests: list[dict] = field(default_factory=list)  # TestRun as dicts, in order (the last KEPT)
    test_runs: int = 0
    commits: list[dict] = field(default_factory=list)  # {"sha", "message", "event"}: made by its shell calls
    ids: dict[str, list[str]] = field(default_factory=dict)  # sign → its events
    tokens_in: int = 0  # from the session (kept current by the importers), not the fold
    tokens_out: int = 0

    @property
    def duration_s(self) -> float:
        return max(0.0, self.last_ts - self.first_ts) if self.first_ts else 0.0

    @property
    def failure_rate(self) -> float:
        return self.failures / self.calls if self.calls else 0.0

    @property
    def last_test(self) -> TestRun | None:
        return TestRun(**self.tests[-1]) if self.tests else None

    def as_json(self) -> dict:
        out = asdict(self)
        out.update(duration_s=round(self.duration_s, 1), active_s=round(self.active_s, 1),
                   failure_rate=round(self.failure_rate, 4), files_changed=len(self.files))
        return out

    @classmethod
    def from_json(cls, data: dict) -> Vitals:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


def _active(stamps: list[float], tool_spans: list[tuple[float, float]]) -> float:
    """Seconds of work: the stretches between events no more than IDLE apart, and the time tools ran (up to
    TOOL_CAP each), counted once where they overlap."""
    spans = [(a, b) for a, b in zip(stamps, stamps[1:]) if 0 < b - a <= IDLE]
    spans += [(a, min(b, a + TOOL_CAP)) for a, b in tool_spans if b > a]
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def _keep(ids: dict[str, list[str]], sign: str, event_id: str) -> None:
    kept = ids.setdefault(sign, [])
    if len(kept) < KEPT and (not kept or kept[-1] != event_id):
        kept.append(event_id)


def fold(conn: Connection, session_id: str, cwd: str = "", aider: bool = False) -> Vitals:
    """The session's vital signs, from its events in the order they were written. On the way, what blame needs:
    `v.touches`, each file operation that went through ([path, name, call id, seq, ts, op, other path]; paths made
    absolute from `cwd`), a transient attribute of a fresh fold that `save` indexes (sessionscope.insight.blame)."""
    q = _events_read(session_id, aider)
    v = Vitals()
    stamps: list[float] = []
    spans: list[tuple[float, float]] = []
    call_info: dict[str, tuple[float, str, str]] = {}  # call id → (ts, signature, what it did)
    failed_by_sig: dict[str, list[str]] = {}
    label_of: dict[str, str] = {}
    files: dict[str, str] = {}  # path → the last call that changed it (a dict keeps the first change's place)
    pending: dict[str, list[edits.Op]] = {}  # edit call → its operations, until its result says they went through
    info: dict[str, tuple[int, float]] = {}  # edit call → (seq, ts)
    commit_calls: set[str] = set()  # shell calls that ran `git commit`
    touches: list[list] = []

    def applied(call_id: str, ops: list[edits.Op]) -> None:
        seq, when = info.get(call_id, (0, 0.0))
        for op in ops:
            path = edits.absolute(op.to if op.kind == "rename" else op.path, cwd)
            other = edits.absolute(op.path, cwd) if op.kind == "rename" else ""
            touches.append([path, edits.name_of(path), call_id, seq, when, op.kind, other])
            files[path] = call_id
    answered: set[str] = set()
    interrupted_now = False  # an interruption already counted, with no call or reply since
    pairer = pairing.Pairer()
    for eid, seq, ts, kind, role, side, text, payload in conn.execute(q):
        ts, side, text = ts or 0.0, bool(side), text or ""
        if ts > 0 and kind in TIMED:
            stamps.append(ts)
        if kind == "compaction" and not side:
            v.compactions += 1
            _keep(v.ids, "compactions", eid)
        elif kind == pairing.CALL:
            interrupted_now = False
            pairer.see(eid, kind, payload, side)
            made = cards.calls(payload or "") or [cards.Call(text.split(" ", 1)[0] or "tool", {})]
            call = made[0]
            v.calls += 1
            sig = outcomes._signature(call)
            call_info[eid] = (ts, sig, call.name.lower())
            label_of.setdefault(sig, cards.summary(call))
            if ops := [op for c in made for op in edits.ops_of(c)]:
                pending[eid], info[eid] = ops, (seq, ts)  # changed once its result says it went through
            if call.name.lower() in cards.SHELL and _GIT_COMMIT.search(cards.command_of(call.args)):
                commit_calls.add(eid)
        elif kind == pairing.RESULT:
            hit = pairer.see(eid, kind, payload, side)
            if hit is None or hit not in call_info or hit in answered:
                continue
            answered.add(hit)
            call_ts, sig, name = call_info[hit]
            if call_ts > 0 and ts > call_ts:
                spans.append((call_ts, ts))
            how = outcomes.how_failed(payload or "", text)
            if (ops := pending.pop(hit, None)) and how is None:  # (a failed edit changed nothing)
                applied(hit, ops)
            if hit in commit_calls and how is None:
                v.commits += [{"sha": sha, "message": msg, "event": hit} for sha, msg in _COMMITTED.findall(text[:4000])]
            if how is not None:
                v.failures += 1
                _keep(v.ids, "failures", hit)
                failed_by_sig.setdefault(sig, []).append(hit)
            if how == "interrupted" and not interrupted_now:
                v.interruptions += 1
                _keep(v.ids, "interruptions", eid)
                interrupted_now = True
            if name not in NOT_TESTS and (run := test_run(text, eid)) is not None:
                v.test_runs += 1
                v.tests = [*v.tests[-(KEPT - 1):], asdict(run)]
                _keep(v.ids, "tests", eid)
        elif aider and kind == "message" and role == "assistant":
            if ops := edits.aider_ops(text):
                info[eid] = (seq, ts)
                applied(eid, ops)
        elif aider and kind == "system":
            v.commits += [{"sha": sha, "message": msg, "event": eid} for sha, msg in _AIDER_COMMIT.findall(text)]
        elif kind == "message" and role == "user" and not side:
            pairer.see(eid, kind, payload, side)
            head = text.lstrip()[:200]
            if outcomes.INTERRUPTED.search(head):
                if not interrupted_now:
                    v.interruptions += 1
                    _keep(v.ids, "interruptions", eid)
                interrupted_now = True
            elif head and not head.startswith("<"):  # a typed prompt (not a command's or a hook's wrapper)
                v.turns += 1
                _keep(v.ids, "turns", eid)
                interrupted_now = False
    for eid, ops in pending.items():  # no result came (or the tool pairs none): asked for, so counted
        applied(eid, ops)
    v.touches = touches  # (not a field: the cache keeps the signs; blame's index keeps these)
    return _summed(v, stamps, spans, files, failed_by_sig, label_of)


def _events_read(session_id: str, aider: bool):
    """The session's events in the order written, with the text and payload only of those a sign reads."""
    wanted = sa.or_(EVENT.c.kind.in_((pairing.CALL, pairing.RESULT)),
                    sa.and_(EVENT.c.kind == "message", EVENT.c.role == "user"))
    if aider:  # its edits are blocks in its replies, its commits lines of its output
        wanted = sa.or_(wanted, sa.and_(EVENT.c.kind == "message", EVENT.c.role == "assistant"),
                        sa.and_(EVENT.c.kind == "system", EVENT.c.role == "tool"))
    return (sa.select(EVENT.c.id, EVENT.c.seq, EVENT.c.ts, EVENT.c.kind, EVENT.c.role, EVENT.c.sidechain,
                      sa.case((wanted, EVENT.c.text), else_=None),
                      sa.case((EVENT.c.kind.in_((pairing.CALL, pairing.RESULT)), EVENT.c.payload), else_=None))
            .where(EVENT.c.session_id == session_id).order_by(EVENT.c.seq))


def _summed(v: Vitals, stamps: list[float], spans: list[tuple[float, float]], files: dict[str, str],
            failed_by_sig: dict[str, list[str]], label_of: dict[str, str]) -> Vitals:
    """What the walk found, summed up: the session's span and active time, the files it changed, the events each
    sign points at, and the loops (a call failing LOOP times or more), the worst first."""
    stamps.sort()
    if stamps:
        v.first_ts, v.last_ts = stamps[0], stamps[-1]
    v.active_s = _active(stamps, spans)
    v.files = [[p, e] for p, e in files.items()]
    for c in v.commits:
        _keep(v.ids, "commits", c["event"])
    for _p, e in v.files:
        _keep(v.ids, "files", e)
    for sig, ids in failed_by_sig.items():
        if len(ids) >= LOOP:
            v.loops.append({"call": label_of.get(sig, ""), "failures": len(ids), "ids": ids[:KEPT]})
            for i in ids:
                _keep(v.ids, "loops", i)
    v.loops.sort(key=lambda loop: -loop["failures"])
    return v


# -- as a person reads them ---------------------------------------------------------------

@dataclass
class Sign:
    key: str  # the sign's name in `Vitals.ids` (its events), and in the JSON
    label: str
    value: str  # short, for a strip or a cell
    about: str  # how it is counted, and what was found: the tooltip
    alarm: bool = False  # worth a look (failures over a fifth, a loop, the last tests failed)
    goes_to: str = ""  # what a click on it shows, in turn ("the next failed call"); "" for a sign with no events


def span_text(seconds: float) -> str:
    """A length of time as a person says it: "38 s", "47 min", "2 h 14 min", "3 days 2 h"."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60} min" if s % 3600 >= 60 else f"{s // 3600} h"
    return f"{s // 86400} day{'s' if s >= 172800 else ''} {s % 86400 // 3600} h"


def _n(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def signs(v: Vitals, cost: float | None = None) -> list[Sign]:
    """The signs worth saying for a session, in the order a person scans them (a sign with nothing to say, such as
    no tests run, is left out)."""
    out = []
    if v.duration_s:
        out.append(Sign("active", "Time", f"{span_text(v.active_s)} active of {span_text(v.duration_s)}",
                        f"From its first event to its last: {span_text(v.duration_s)}. Active: the stretches between "
                        f"events no more than {int(IDLE // 60)} min apart, and the time its tools ran; a longer pause "
                        "is time away."))
    if v.turns:
        out.append(Sign("turns", "Turns", f"{v.turns:,}", f"{_n(v.turns, 'prompt')} typed (interruptions, commands "
                        "and subagents' prompts not counted).", goes_to="the next prompt"))
    if v.tokens_in or v.tokens_out:
        price = f", ${cost:,.2f} at list prices" if cost is not None else ""
        out.append(Sign("tokens", "Tokens", _tokens(v.tokens_in + v.tokens_out) + (f" · ${cost:,.2f}" if cost else ""),
                        f"{v.tokens_in:,} in (cache reads and writes included) and {v.tokens_out:,} out{price}."))
    if v.calls:
        rate = f"{v.failure_rate:.0%}" if v.failures else "none"
        out.append(Sign("failures", "Failed calls", f"{v.failures:,} of {v.calls:,}" if v.failures else f"0 of {v.calls:,}",
                        f"{_n(v.calls, 'tool call')}, {_n(v.failures, 'failed', 'failed')} ({rate}): an error result, "
                        "a refused permission or an interrupted call.",
                        alarm=v.failure_rate > 0.2 and v.failures >= 3, goes_to="the next failed call"))
    if v.interruptions:
        out.append(Sign("interruptions", "Interruptions", f"{v.interruptions:,}",
                        f"The user stopped the agent {_n(v.interruptions, 'time')}.", goes_to="the next interruption"))
    if v.compactions:
        out.append(Sign("compactions", "Compactions", f"{v.compactions:,}",
                        f"The context was summarised {_n(v.compactions, 'time')} (what came before lives on in the "
                        "summary).", goes_to="the next compaction"))
    if v.loops:
        worst = v.loops[0]
        more = f"; {len(v.loops) - 1} more" if len(v.loops) > 1 else ""
        out.append(Sign("loops", "Loops", f"{len(v.loops):,}",
                        f"The same call failed {LOOP} times or more: {worst['call']} failed {worst['failures']} "
                        f"times{more}.", alarm=True, goes_to="the next of those calls"))
    if v.files:
        listed = "\n".join(p for p, _e in v.files[:12]) + ("\n…" if len(v.files) > 12 else "")
        out.append(Sign("files", "Files changed", f"{len(v.files):,}",
                        f"{_n(len(v.files), 'file')} written or edited by its tool calls:\n{listed}",
                        goes_to="the last change of each file"))
    if v.commits:
        listed = "\n".join(f"{c['sha'][:7]} {c['message'][:70]}" for c in v.commits[:12])
        out.append(Sign("commits", "Commits", f"{len(v.commits):,}",
                        f"{_n(len(v.commits), 'commit')} made by its shell calls (git's own line in their output):\n"
                        f"{listed}", goes_to="the next commit"))
    if (last := v.last_test) is not None:
        said = f"{last.passed:,} passed, {last.failed:,} failed" if last.runner != "go test" else \
            f"{last.passed:,} packages ok, {last.failed:,} failed"
        out.append(Sign("tests", "Tests", f"{'✓' if last.ok else '✗'} {_n(v.test_runs, 'run')}",
                        f"{_n(v.test_runs, 'test run')} (the summary lines of pytest, jest, vitest, go test and cargo "
                        f"in its tools' output). The last, by {last.runner}: {said}.", alarm=not last.ok,
                        goes_to="the next run"))
    return out


def _tokens(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e3 else str(n)


def cached(conn: Connection, session_ids: list[str]) -> tuple[dict[str, Vitals], dict[str, tuple[int, Vitals]]]:
    """The sessions' vital signs, and those folded now ({id: (its last seq, its signs)}, for `save`). Only reads."""
    q = (sa.select(SESSION.c.id, SESSION.c.last_seq, SESSION.c.tokens_in, SESSION.c.tokens_out, SESSION.c.cwd,
                   SOURCE.c.kind, VITALS_CACHE.c.last_seq, VITALS_CACHE.c.version, VITALS_CACHE.c.data)
         .select_from(SESSION.outerjoin(VITALS_CACHE, VITALS_CACHE.c.session_id == SESSION.c.id)
                      .outerjoin(SOURCE, SOURCE.c.id == SESSION.c.source_id))
         .where(SESSION.c.id.in_(session_ids)))
    out: dict[str, Vitals] = {}
    fresh: dict[str, tuple[int, Vitals]] = {}
    for sid, last_seq, t_in, t_out, cwd, kind, cached_seq, version, blob in conn.execute(q).all():
        if cached_seq == last_seq and version == FOLD_VERSION and blob is not None:
            v = Vitals.from_json(orjson.loads(blob))
        else:
            v = fold(conn, sid, cwd or "", aider=kind == "aider")
            fresh[sid] = (last_seq or 0, v)
        v.tokens_in, v.tokens_out = t_in or 0, t_out or 0
        out[sid] = v
    return out, fresh


def save(conn: Connection, fresh: dict[str, tuple[int, Vitals]]) -> None:
    """Cache the sessions folded by `cached`, in one short write."""
    from sessionscope.safety.team import changeable
    mine = changeable(conn, fresh)  # (a team store: one's own; asked once, not once a session)
    fresh = {sid: v for sid, v in fresh.items() if sid in mine}
    if not fresh:
        return
    ids = list(fresh)
    for table in (VITALS_CACHE, FILE_TOUCH, COMMIT_LINK):
        conn.execute(table.delete().where(table.c.session_id.in_(ids)))
    conn.execute(VITALS_CACHE.insert(), [{"session_id": sid, "last_seq": seq, "version": FOLD_VERSION,
                                          "data": orjson.dumps(asdict(v))} for sid, (seq, v) in fresh.items()])
    touched = [{"path": t[0], "name": t[1], "session_id": sid, "event_id": t[2], "seq": t[3], "ts": t[4], "op": t[5],
                "other": t[6]} for sid, (_seq, v) in fresh.items() for t in getattr(v, "touches", ())]
    if touched:
        conn.execute(FILE_TOUCH.insert(), touched)
    commits = [{"sha": c["sha"], "short": c["sha"][:7], "session_id": sid, "event_id": c["event"],
                "message": c["message"][:500]} for sid, (_seq, v) in fresh.items() for c in v.commits]
    if commits:
        conn.execute(COMMIT_LINK.insert(), commits)
