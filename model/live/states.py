"""Which sessions are working, which wait for you, which were cut off (#35): a live state for each session, from
the evidence — what its last lines say (each tool's rule, `Source.turn`), whether its tool's process still runs
on this machine (sessionscope.live.processes) and how long ago it was written.

    working        written to within the last minute, or its agent is mid-turn and its process runs
    needs_approval a permission request is pending (from the tool's hooks)
    waiting        the last reply ended the turn and the tool is still open (or was, recently): your move
    interrupted    a tool call or a turn left unfinished and the writer gone, or the file ends mid-line
    idle           open, or written within the last day, with nothing going on
    ended          closed, archived, its process gone after a finished turn, or nothing for a day
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import sqlalchemy as sa

from sessionscope.live.turns import TailEvent, Turn, by_kinds  # noqa: F401 (the evidence, named here too)
from sessionscope.live.words import LABELS, MARKS, STATES, ago  # noqa: F401 (the states' words, said here too)

WORKING_S = 60.0  # written this recently: working, whatever the lines say
RECENT_S = 30 * 60.0  # without a process to go by: a finished turn this recent still waits for you
DAY_S = 24 * 3600.0  # nothing for a day: ended
TAIL = 12  # the last events read of a session
SIGNAL_SLACK_S = 2.0  # a line written this soon after a hook's signal is the one the hook spoke of


@dataclass(frozen=True)
class Live:
    state: str
    why: str
    written: float  # the newest line's time
    pid: int | None = None  # the tool's process, when one was matched

    @property
    def label(self) -> str:
        return LABELS[self.state]

    @property
    def mark(self) -> str:
        return MARKS[self.state]

    def as_dict(self) -> dict:
        return {"state": self.state, "why": self.why, "written": self.written, "pid": self.pid}


def decide(turn: Turn | None, *, written: float, now: float, status: str, proc=None, procs_known: bool = False,
           cut: bool = False, program: str = "the tool") -> Live:
    """The state from the evidence (every tool's the same way; what its lines mean is its own rule)."""
    pid = proc.pid if proc is not None else None
    age = now - written
    since = ago(age)
    running = proc is not None
    gone = procs_known and not running
    if status in ("archived", "closed"):
        return Live("ended", f"{status} in Sessionscope", written, pid)
    if turn is not None and turn.where == "closed":
        return Live("ended", turn.why, written, pid)
    if turn is not None and turn.where == "approval":
        return Live("needs_approval", turn.why, written, pid)
    if age < WORKING_S and not (turn is not None and turn.where in ("ended", "aborted")):
        return Live("working", f"written {since} ago" + (f"; {turn.why}" if turn else ""), written, pid)
    if cut and not running:
        return Live("interrupted", f"the transcript ends in a half-written line ({since} ago)", written, pid)
    if turn is not None and turn.where in ("tool", "answering"):
        if running:
            return Live("working", f"{turn.why}; {program} is running (pid {pid})", written, pid)
        if gone or age >= RECENT_S:
            return Live("interrupted", f"{turn.why}, and {program} " + ("is no longer running" if gone else
                                                                         f"wrote nothing for {since}"), written, pid)
        return Live("working", f"{turn.why} ({since} ago)", written, pid)
    if turn is not None and turn.where in ("ended", "aborted"):
        if running:
            return Live("waiting", f"{turn.why}; {program} is open (pid {pid})", written, pid)
        if gone:
            return Live("ended", f"{turn.why}; {program} is no longer running", written, pid)
        if age < RECENT_S:
            return Live("waiting", f"{turn.why} ({since} ago)", written, pid)
    if running:
        return Live("idle", f"{program} is open (pid {pid}); nothing written for {since}", written, pid)
    if age < DAY_S:
        return Live("idle", f"nothing written for {since}", written, pid)
    return Live("ended", f"nothing written for {since}", written, pid)


def _remote(s, src) -> Live:
    """A session behind an API: the status its service reported at the last pull."""
    said = src.remote_live(s)
    if said is not None:
        return Live(said[0], said[1], s.updated_at)
    state = ("working" if s.status in src.live_statuses else "waiting" if s.status == "idle"
             else "ended" if s.status in ("archived", "closed", "terminated", "deleted") else "idle")
    return Live(state, f"{s.status} at {src.remote_home} (as last pulled)", s.updated_at)


def _go_on() -> None:
    """No pause (live.states' default)."""


def _read_closely(store, stamps, said, procs, now: float, out: dict, known: bool, ended: dict | None,
                  pause=_go_on) -> list:
    """Of every session (`stamps`: sessionscope.history.reading.session_stamps), those whose state needs more than their
    age, as SessionViews: written within the day (or since the oldest agent process started: it may write an
    older one), spoken of by a hook, named by a process's command line or open files, behind an API, or a synced
    copy. The others — most of a store — are ended by their age here, into `out`, as the pass would end them:
    a SessionView and a look each for 20,000 sessions was most of the window's pass every 5 s."""
    from sessionscope import sources
    from sessionscope.live import processes
    since = now - DAY_S
    if procs:
        since = min(since, min(p.started for p in procs) - processes.SLACK_S)
    remote = {k for k in {st[2] for st in stamps} if sources.of(k).remote_home}
    close: list[str] = []
    for n, (sid, tid, kind, updated, status, synced) in enumerate(stamps):
        if n % 2000 == 1999:
            pause()
        if updated >= since or kind in remote or (kind, tid or sid) in said or synced or \
                (procs and _named(procs, {sid, tid} - {None, ""})):
            close.append(sid)
            continue
        key = (status, updated, ago(now - updated))  # (what an age-ended state says: decide, below)
        kept = ended.get(sid) if ended is not None else None
        if kept is not None and kept[0] == key:
            out[sid] = kept[1]
            continue
        src = sources.of(kind)
        out[sid] = decide(None, written=updated, now=now, status=status, procs_known=known and bool(src.programs),
                          program=(src.programs or ("the tool",))[0])
        if ended is not None:
            ended[sid] = (key, out[sid])
    if len(close) > 5000:  # (more than an id list should carry: all of them, the far ones left out)
        keep = set(close)
        return [s for s in store.sessions(limit=100_000) if s.id in keep]
    return store.sessions(session_ids=close, limit=None) if close else []


def _named(procs, keys: set) -> bool:
    """A process names one of the session's ids on its command line or in a file it holds open (processes.match)."""
    return any(k in p.args or any(k in f for f in p.files) for p in procs for k in keys)


@functools.cache
def _tail_query():
    """Built once: a pass reads the tails of every session written within the day (a statement built per
    session was half of a pass's time)."""
    from sessionscope.store.schema import EVENT, plain
    return (sa.select(EVENT.c.kind, EVENT.c.role, sa.func.substr(plain(EVENT.c.text), 1, 400), EVENT.c.payload, EVENT.c.ts)
            .where(EVENT.c.session_id == sa.bindparam("sid")).order_by(EVENT.c.seq.desc()).limit(TAIL))


def _tail(conn, session_id: str) -> list[TailEvent]:
    rows = conn.execute(_tail_query(), {"sid": session_id}).all()
    return [TailEvent(k, r, t or "", p or "", ts) for k, r, t, p, ts in reversed(rows)]


def _cut(conn, session) -> bool:
    """The session's file ended in a half-written line when it was last read."""
    from sessionscope.store.schema import SOURCE_FILE
    key = session.tool_id or session.id
    if session.source_kind == "native" or len(key or "") < 8:  # (a short id could be in any path)
        return False
    rows = conn.execute(sa.select(SOURCE_FILE.c.size, SOURCE_FILE.c.offset).where(
        SOURCE_FILE.c.path.contains(key, autoescape=True))).all()
    return any(size > offset for size, offset in rows)


def states(store, sessions=None, *, now: float | None = None, procs=..., tails: dict | None = None,
           ended: dict | None = None, pause=None) -> dict[str, Live]:
    """The live state of each session on this machine (default: every session not archived; a session that runs
    elsewhere, behind an API, has the status its service reports instead). Sessions written within the last
    day, or with a running process, are read closely: what the tool's hook last said of it (sessionscope.live.signals,
    exact, when hooks are installed and it is as new as the transcript), else its last lines; older ones are
    ended by their age. `procs`: the agents' processes (default: looked up here; None: cannot be known). `tails`:
    a dict the caller keeps from one pass to the next, where the last lines read of each session are kept until
    it changes (the window decides every 5 s, and most sessions written today are not written again meanwhile);
    `ended`, likewise, the state of each session ended by its age, kept while its status, its time and how long
    ago that is, in words, stay the same (most of a store, every pass). `pause()`, called between steps, lets a
    background pass wait while what the user waits for runs (the window's workers.yield_to_urgent)."""
    pause = pause or _go_on
    from sessionscope import sources
    from sessionscope.history import reading
    from sessionscope.live import processes, signals
    now = time.time() if now is None else now
    every = sessions is None
    with store.reader() as conn:
        said = signals.latest(conn, now - DAY_S)
        stamps = reading.session_stamps(conn) if every else None
    kinds = {k for _sid, _tid, k, *_rest in stamps} if every else {s.source_kind for s in sessions}
    programs = {kind: set(sources.of(kind).programs) for kind in kinds}
    if procs is ...:
        procs = processes.agent_processes(set().union(*programs.values()) if programs else set())
    known = procs is not None
    out: dict[str, Live] = {}
    if every:
        pause()
        sessions = _read_closely(store, stamps, said, procs or [], now, out, known, ended, pause)
        pause()
    matched = processes.match(sessions, procs or [], lambda s: programs[s.source_kind]) if procs else {}
    by_pid = {p.pid: p for p in procs or []}
    with store.reader() as conn:
        for n, s in enumerate(sessions):
            if n % 100 == 99:
                pause()
            src = sources.of(s.source_kind)
            if src.remote_home:  # it runs elsewhere (Anthropic): its service says its status itself
                out[s.id] = _remote(s, src)
                continue
            synced = s.meta.get("synced") if isinstance(s.meta, dict) else None
            if isinstance(synced, dict) and synced.get("store"):  # a team copy (sessionscope.sync): its agent runs
                out[s.id] = Live("ended", f"a copy synced from {synced.get('from', 'another')}'s store: its agent "
                                 "runs there", s.updated_at)  # there, never waiting for anyone here
                continue
            sig = said.get((s.source_kind, s.tool_id or s.id))
            proc = by_pid.get(sig.pid) if sig is not None and sig.pid in by_pid else matched.get(s.id)
            written = max(s.updated_at, sig.ts) if sig is not None else s.updated_at
            program = (src.programs or ("the tool",))[0]
            seen = known and bool(src.programs)  # a tool with no program here (native, an SDK's) has no process to miss
            if proc is None and sig is None and now - written >= DAY_S:
                out[s.id] = decide(None, written=written, now=now, status=s.status, procs_known=seen,
                                   program=program)
                continue
            if tails is None:
                tail = _tail(conn, s.id)
            else:
                changed = (s.event_count, s.updated_at, s.head_event_id)  # (every append moves one of them)
                kept = tails.get(s.id)
                if kept is None or kept[0] != changed:
                    kept = tails[s.id] = (changed, _tail(conn, s.id))
                tail = kept[1]
            turn = None
            if sig is not None:
                # what the transcript says after the hook spoke overrules it (a prompt denied, a turn cut by Esc);
                # lines that say nothing of the turn (an API retry's record) leave it standing
                after = [e for e in tail if e.ts > sig.ts + SIGNAL_SLACK_S]
                turn = (src.turn(after) if after else None) or sig.turn()
            if turn is None:
                turn = src.turn(tail)
            out[s.id] = decide(turn, written=written, now=now, status=s.status, proc=proc, procs_known=seen,
                               cut=_cut(conn, s), program=program)
    if every:  # in the listing's order, newest first, as before the far ones were decided apart
        out = {st[0]: out[st[0]] for st in stamps if st[0] in out}
    for kept in (tails, ended) if every else ():  # a session deleted (or archived) meanwhile: what was kept goes
        for gone in (kept or {}).keys() - out.keys():
            del kept[gone]
    return out
