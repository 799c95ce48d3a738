"""The team store at scale (#38 item 4), by simulation:

    python -m tests.benchmarks.team_scale [--sessions 100000] [--events 10000000] [--people 50] [--keep DIR]

Starts a throwaway PostgreSQL server (tests/postgres.py; its settings are printed with the table), makes a team
store (the migrations, `team init`, one login a person), fills it by COPY with what a team of `--people` would have
brought in: sessions of sizes from a heavy-tailed spread (one of 200,000 events), prompts, replies, tool calls and
results of the benchmark generator's sizes (tests/benchmarks/generate.py's words), facts, tokens by model, each
event hashed and chained as the store chains them, a third of the sessions shared and two projects a person shared.
Then, as one member (under the row rules), it measures what the window and the command line do, and 50 people
importing at once. Not a test: a person reads the table (the manual, resources/manual/team-store.md: "The team store at scale").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks.generate import WORDS  # noqa: E402

SERVER_SETTINGS = {  # what a small team server might run with (24 GB machine, 2 cores here)
    "shared_buffers": "2GB", "effective_cache_size": "8GB", "work_mem": "32MB", "maintenance_work_mem": "1GB",
    "max_connections": "200", "max_wal_size": "8GB", "checkpoint_timeout": "15min", "random_page_cost": "1.1",
    "synchronous_commit": "on", "fsync": "on", "jit": "off",
}
BIG = 200_000  # the one big session's events (--big)
RARE = "zebracorn"  # a word in one prompt of 10,000
MODELS = ("claude-sonnet-4-5", "claude-opus-4-1", "gpt-5-codex", "gemini-2.5-pro")
DAY = 86_400.0


def _texts(rng: random.Random) -> dict[str, list[str]]:
    """Pools of texts of each kind, of the generator's sizes (picked from: generating 10M texts word by word would
    take longer than storing them)."""
    def text(lo: int, hi: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))
    return {"prompt": [text(5, 60) for _ in range(3000)], "reply": [text(10, 120) for _ in range(3000)],
            "call": [f"Bash {{\"command\": \"pytest -q tests/{rng.choice(WORDS)}_{i}.py\"}}" for i in range(500)],
            "result": [text(20, 600) for _ in range(3000)], "title": [text(3, 9) for _ in range(2000)]}


def _sizes(rng: random.Random, sessions: int, events: int, big: int = BIG) -> list[int]:
    """Events per session: heavy-tailed (most a few dozen, some thousands), one of `big`, summing to `events`."""
    raw = [rng.lognormvariate(0, 1.3) for _ in range(sessions - 1)]
    scale = (events - big) / sum(raw)
    sizes = [max(2, int(r * scale)) for r in raw]
    sizes[0] += (events - big) - sum(sizes)  # (what rounding left over)
    return [big, *sizes]


WORKERS = 2  # COPY streams at once: the server's text search and compression of each row are what take time


def fill(url: str, people: list[str], sessions: int, events: int, seed: int, say, big: int = BIG) -> dict:
    """COPY the simulated team's sessions and events into the store at `url` (its owner's login), WORKERS streams
    at once (each session's events from its own seed, so the store is the same however they are spread)."""
    import psycopg

    rng = random.Random(seed)
    projects = [f"/work/{rng.choice(WORDS)}-{i}" for i in range(200)]
    sizes = _sizes(rng, sessions, events, big)
    now = time.time()
    plan = []  # (index, session id, person, project, model, first pk, events, first ts)
    pk = 0
    for i, n in enumerate(sizes):
        plan.append((i, str(uuid.UUID(int=rng.getrandbits(128), version=4)), people[i % len(people)],
                     projects[(i * 7 + rng.randrange(10)) % len(projects)], MODELS[i % len(MODELS)], pk + 1, n,
                     now - rng.random() * 365 * DAY))
        pk += n
    conninfo = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(conninfo, autocommit=True) as conn:
        # a bulk load's usual way: the event table's indexes and checks made again once it is full (the same
        # definitions, so the store ends as the migrations made it)
        constraints = [(n, f'ALTER TABLE event ADD CONSTRAINT "{n}" {d}') for n, d in conn.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'event'::regclass "
            "AND contype IN ('u', 'f')")]
        for name, _ in constraints:
            conn.execute(f'ALTER TABLE event DROP CONSTRAINT "{name}"')
        defs = [(n, d) for n, d in conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'event' "
                                                "AND indexname NOT LIKE '%pkey'")]
        for name, _ in defs:
            conn.execute(f'DROP INDEX "{name}"')
        sources = {p: conn.execute("INSERT INTO source (kind, location, enabled, added_at) VALUES "
                                   "('claude_code', %s, false, %s) RETURNING id",
                                   (f"/home/{p}/.claude/projects", now)).fetchone()[0] for p in people}
        started = time.monotonic()
        shares = [plan[w::WORKERS] for w in range(WORKERS)]
        with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
            parts = pool.starmap(_copy_events, [(conninfo, share, seed) for share in shares])
        seconds_events = time.monotonic() - started
        t = time.monotonic()
        done = {row[0]: row for part in parts for row in part}
        with conn.cursor() as cur, cur.copy(
                "COPY session (id, tool_id, source_id, title, project, cwd, git_branch, model, agent, status, "
                "status_changed_at, created_at, updated_at, tokens_in, tokens_out, event_count, last_seq, last_hash, "
                "head_event_id, tags, meta, budget, imported_by, owner, shared) FROM STDIN") as copy:
            for i, sid, person, project, model, _first, n, created in plan:
                _sid, title, ts, tin, tout, last, head, status, shared = done[sid]
                copy.write_row((sid, sid, sources[person], title, project, project, "main", model, "", status, ts,
                                created, ts, tin, tout, n, n, last, head, "[]", "{}", "{}", f"{person}@laptop", person,
                                shared))
        for p in people:  # each person shares two projects with the team
            for project in rng.sample(projects, 2):
                conn.execute("INSERT INTO project_share (owner, project, shared_at) VALUES (%s, %s, %s) "
                             "ON CONFLICT DO NOTHING", (p, project, now))
        conn.execute(f"SELECT setval(pg_get_serial_sequence('event', 'pk'), {pk})")
        say(f"  {events:,} events stored in {seconds_events:,.0f} s ({events / seconds_events:,.0f} a second); "
            "indexes being built …")
        for _name, d in defs:
            conn.execute(d)
        for _name, d in constraints:
            conn.execute(d)
        conn.execute("ANALYZE")
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    return {"events": events, "sessions": len(sizes), "seconds_events": seconds_events,
            "seconds_rest": time.monotonic() - t, "bytes": size, "big": plan[0][1], "people": len(people),
            "owned": {p: [row[1] for row in plan if row[2] == p] for p in people}}


def _derive(url: str, session_ids: list[str]) -> None:
    """What a person's imports leave beside their sessions on a team store: the reports' caches
    (Store.derive_for_readers, which `warm` calls), folded as that person."""
    from sessionscope import open_store
    with open_store(url) as store:
        store.derive_for_readers(session_ids)


def _copy_events(conninfo: str, share: list[tuple], seed: int) -> list[tuple]:
    """One COPY stream: the events of `share`'s sessions; each session's summary row (what its events add up to)."""
    import psycopg

    from sessionscope.store import chain

    texts = _texts(random.Random(seed))
    out = []
    with psycopg.connect(conninfo, autocommit=True) as conn, conn.cursor() as cur, cur.copy(
            "COPY event (pk, id, session_id, parent_id, seq, depth, ts, kind, role, text, payload, tokens_in, "
            "tokens_out, sidechain, agent_id, hash) FROM STDIN") as copy:
        for i, sid, _person, _project, model, pk, n, ts in share:
            rng = random.Random(seed * 1_000_003 + i)
            last, parent, tin, tout = "", None, 0, 0
            ids: list[str] = []
            depth: dict[str, int] = {}  # of the recent events (a rewind goes back at most 20)
            for seq in range(1, n + 1):
                ts += rng.random() * 30
                eid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                t_in = t_out = 0
                if seq % 25 == 0:
                    kind, role, text = "fact.set", None, ""
                    payload = orjson.dumps({"key": f"todo{seq % 7}", "value": rng.choice(texts["title"])}).decode()
                elif seq % 4 == 1:
                    kind, role, text = "message", "user", rng.choice(texts["prompt"])
                    if rng.random() < 1e-4:
                        text += f" {RARE}"
                    payload = orjson.dumps({"type": "user", "message": {"role": "user", "content": text}}).decode()
                elif seq % 4 == 2:
                    kind, role, text = "message", "assistant", rng.choice(texts["reply"])
                    t_in, t_out = rng.randint(2000, 60000), rng.randint(50, 2000)
                    payload = orjson.dumps({"type": "assistant", "message": {
                        "model": model, "role": "assistant", "content": [{"type": "text", "text": text}],
                        "usage": {"input_tokens": t_in, "output_tokens": t_out}}}).decode()
                elif seq % 4 == 3:
                    kind, role, text = "tool_call", "assistant", rng.choice(texts["call"])
                    payload = orjson.dumps({"type": "tool_use", "name": "Bash", "input": text[5:]}).decode()
                else:
                    kind, role, text = "tool_result", "tool", rng.choice(texts["result"])
                    payload = orjson.dumps({"type": "tool_result", "content": text}).decode()
                if ids and seq % 60 == 0:  # a rewind now and then: the next event under an earlier one
                    parent = ids[max(0, len(ids) - 1 - rng.randrange(min(len(ids), 20)))]
                ev = {"id": eid, "session_id": sid, "parent_id": parent, "seq": seq, "ts": ts, "kind": kind,
                      "role": role, "text": text, "payload": payload, "tokens_in": t_in, "tokens_out": t_out,
                      "sidechain": False, "agent_id": None}
                last = chain.link(last, ev)
                depth[eid] = depth[parent] + 1 if parent else 0
                copy.write_row((pk, eid, sid, parent, seq, depth[eid], ts, kind, role, text, payload, t_in, t_out,
                                False, None, last))
                pk += 1
                ids.append(eid)
                if len(ids) > 64:
                    for old in ids[:32]:
                        depth.pop(old, None)
                    del ids[:32]
                parent = eid
                tin, tout = tin + t_in, tout + t_out
            status = "archived" if rng.random() < 0.1 else rng.choice(("active", "idle", "closed", "closed"))
            out.append((sid, rng.choice(texts["title"]), ts, tin, tout, last, parent, status, rng.random() < 0.33))
    return out


def _best(fn, repeat: int = 5) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def measure(url_of, people: list[str], big: str, say, big_events: int = BIG) -> list[tuple[str, float, str, str]]:
    """What a member does, timed as that member (the rules apply): (what, seconds, detail, target)."""
    from sessionscope import open_store

    rows = []
    me = people[0]
    store = open_store(url_of(me))
    some_project = store.sessions(limit=1, person=f"{people[1]}@laptop")
    project = next((s.project for s in store.sessions(limit=200) if not s.yours), "")
    t, page = _best(lambda: store.sessions(limit=100))
    rows.append(("list: first page, all", t, f"{len(page)} rows of {store.count_sessions():,} readable", "0.1"))
    t, page = _best(lambda: store.sessions(limit=100, person=f"{people[1]}@laptop"))
    rows.append(("list: first page, one person", t, f"{len(page)} rows ({people[1]}'s shared)", "0.1"))
    t, page = _best(lambda: store.sessions(limit=100, project=project))
    rows.append(("list: first page, one project", t, f"{len(page)} rows", "0.1"))
    del some_project
    for word, label in (("the", "common"), (RARE, "rare")):
        t, hits = _best(lambda w=word: store.search(w, limit=50))
        rows.append((f"search: {label} word, best 50", t, f"{len(hits)} hits", "0.2"))
        t, hits = _best(lambda w=word: store.search(w, limit=50, order="time"))
        rows.append((f"search: {label} word, newest 50", t, f"{len(hits)} hits", "0.2"))
    t, _ = _best(lambda: store.branch_ids(big), 1)
    name = f"the {big_events:,}-event session"
    rows.append((f"{name}: its branch walked (cold)", t, "before the outline cache", ""))

    def first_page():
        ids = store.branch_ids(big, skip_kinds=("progress", "meta"))
        return store.events_by_ids(ids[:200])
    t, got = _best(first_page)
    rows.append((f"{name}: first 200 events", t, f"{len(got)} events", "0.1"))
    head = store.session(big).head_event_id
    t, _ = _best(lambda: store.facts_at(head), 1)
    rows.append(("facts at its head (first)", t, "folded, snapshots kept", ""))
    t, facts = _best(lambda: store.facts_at(head))
    rows.append(("facts at its head", t, f"{len(facts)} facts", "0.1"))
    t, report = _best(lambda: store.usage(by="week", group="person"), 1)
    rows.append(("usage by person and week (first: folds every session)", t,
                 f"{len(report.groups)} people, {len(report.buckets)} weeks", ""))
    t, report = _best(lambda: store.usage(by="week", group="person"), 3)
    rows.append(("usage by person and week", t, f"{len(report.groups)} people", "0.5"))
    store.close()
    return rows


def _importer(args) -> tuple[int, int, float, float]:
    """One person importing: appends `n` events to a session of their own, one a write (as an agent's hook or
    the Agents SDK backend would), and returns (events written, session's last seq, first and last append's time)."""
    url, n = args
    from sessionscope import open_store
    store = open_store(url)
    sid = store.open_session(title="importing at once").id
    t = time.time()  # (wall clock, compared across processes: the span while all write leaves out their start-up)
    for i in range(n):
        store.append(sid, "message", role="user" if i % 2 else "assistant", text=f"line {i} of a busy day")
    end = time.time()
    last = store.session(sid).event_count
    ok = all(r.ok for r in store.verify(sid))
    store.close()
    return n, last if ok else -1, t, end


def concurrent(url_of, people: list[str], per: int = 200) -> tuple[float, str]:
    with multiprocessing.get_context("spawn").Pool(len(people)) as pool:
        t = time.perf_counter()
        results = pool.map(_importer, [(url_of(p), per) for p in people])
        seconds = time.perf_counter() - t
    written = sum(r[0] for r in results)
    whole = all(r[1] == per for r in results)
    slowest = max(r[3] - r[2] for r in results)
    span = max(r[3] for r in results) - min(r[2] for r in results)
    return seconds, (f"{len(people)} people × {per} appends: {written:,} events, "
                     f"{'every chain whole' if whole else 'A CHAIN BROKE'}; {written / span:,.0f} events/s from the "
                     f"first append to the last ({span:.1f} s); slowest person {slowest:.1f} s")


def _local_store(args) -> None:
    """A person's own store: `sessions` native sessions of `per` events, in a project they always share."""
    path, who, sessions, per = args
    from sessionscope import open_store, ops
    with open_store(path) as local:
        for s in range(sessions):
            sid = local.open_session(title=f"{who} work {s}", project=f"/work/{who}").id
            for i in range(per):
                local.append(sid, "message", role="user" if i % 2 else "assistant", text=f"{who} step {i} of {s}")
        ops.set_project_rule(local, f"/work/{who}", "always", actor="bench")


def _syncer(args) -> tuple[int, int, float, float]:
    """One person's sync of their own store into the team store: (events pushed, problems, start, end)."""
    path, url = args
    from sessionscope import open_store, ops
    with open_store(path) as local:
        ops.sync_now(local, url, dry_run=True, actor="bench")  # (its modules loaded, its reads warm: not counted)
        t = time.time()
        report = ops.sync_now(local, url, actor="bench")
        return report.events, len(report.problems), t, time.time()


def syncing(url_of, people: list[str], folder: Path, sessions: int = 10, per: int = 100) -> list[tuple]:
    """The people's syncs of their own stores (`sessions` × `per` events each, redacted on the way), one after
    another and then all at once (other stores), each counted from the first sync's start to the last's end."""
    ctx = multiprocessing.get_context("spawn")
    rows = []
    for phase, workers in (("one after another", 1), ("at once", len(people))):
        stores = [(str(folder / f"{phase[:4]}-{p}.db"), url_of(p)) for p in people]
        with ctx.Pool(WORKERS) as pool:
            pool.map(_local_store, [(path, f"{phase[:4]}{p}", sessions, per) for (path, _), p in zip(stores, people)])
        with ctx.Pool(workers) as pool:
            done = pool.map(_syncer, stores)
        span = max(r[3] for r in done) - min(r[2] for r in done)
        pushed, problems = sum(r[0] for r in done), sum(r[1] for r in done)
        rows.append((f"{len(people)} people syncing, {phase}", span, f"{pushed:,} events pushed, {problems} problems; "
                     f"{pushed / span:,.0f} events/s from the first sync's start to the last's end", ""))
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.benchmarks.team_scale")
    p.add_argument("--sessions", type=int, default=100_000)
    p.add_argument("--events", type=int, default=10_000_000)
    p.add_argument("--people", type=int, default=50)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--big", type=int, default=BIG, help="the big session's events")
    p.add_argument("--appends", type=int, default=200, help="events each person appends at once, at the end")
    p.add_argument("--syncing", type=int, default=8, help="people who sync their own stores, then at once")
    p.add_argument("--keep", metavar="DIR", help="put the server's data in DIR and keep it")
    args = p.parse_args(argv)
    if args.events < args.big * 2:
        raise SystemExit(f"--events must be at least {args.big * 2:,} (one session holds {args.big:,})")

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    from sessionscope import open_store
    from sessionscope.safety import team
    from tests import postgres

    server = postgres.start(settings=SERVER_SETTINGS, data=args.keep)
    if isinstance(server, str):
        raise SystemExit(f"no PostgreSQL server: {server}")
    try:
        url = server.fresh_database()
        database = url.rsplit("/", 1)[1]
        tag = hashlib.sha1(str(time.time()).encode()).hexdigest()[:4]
        people = [f"p{i:02d}_{tag}" for i in range(args.people)]
        with open_store(url) as owner:
            owner.write(team.init)
            for person in people:
                owner.write(team.add_member, person)
        say(f"filling {args.sessions:,} sessions, {args.events:,} events of {len(people)} people …")
        filled = fill(url, people, args.sessions, args.events, args.seed, say, args.big)
        with open_store(url) as owner:  # what an import leaves for the big sessions it touched
            t = time.perf_counter()
            owner.warm([filled["big"]])
            warm = time.perf_counter() - t

        def url_of(person):
            return server.url(database, person)
        say("folding each person's reports as their imports would have …")
        t = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
            pool.starmap(_derive, [(url_of(p), ids) for p, ids in filled.pop("owned").items()])
        derived = time.perf_counter() - t
        say("measuring as a member …")
        rows = measure(url_of, people, filled["big"], say, args.big)
        seconds, detail = concurrent(url_of, people, args.appends)
        rows.append((f"{len(people)} people appending at once", seconds, detail, ""))
        with tempfile.TemporaryDirectory() as folder:
            rows += syncing(url_of, people[:args.syncing], Path(folder))
        version = server.version()
    finally:
        if not args.keep:
            server.stop()
        else:
            say(f"the server goes on running (--keep): {server.url(database)} (pg_ctl -D {server.data} stop)")
    fill_rate = filled["events"] / filled["seconds_events"]
    print(f"\nThe team store at scale: {filled['sessions']:,} sessions, {filled['events']:,} events, "
          f"{filled['people']} people; PostgreSQL {version}, {filled['bytes'] / 1e9:.1f} GB on disk")
    print(f"filled by COPY at {fill_rate:,.0f} events/s ({filled['seconds_events']:,.0f} s), indexes and "
          f"statistics {filled['seconds_rest']:,.0f} s, the big session warmed {warm:.1f} s, each person's reports "
          f"folded as their imports leave them {derived:,.0f} s")
    print("server settings: " + ", ".join(f"{k}={v}" for k, v in SERVER_SETTINGS.items()))
    print()
    print(f"| {'measured (as a member, under the row rules)':<58} | {'time':>9} | {'target':>7} | detail")
    print(f"|{'-' * 60}|{'-' * 11}|{'-' * 9}|{'-' * 40}")
    for what, seconds, detail, target in rows:
        shown = f"{seconds * 1000:,.1f} ms" if seconds < 10 else f"{seconds:,.1f} s"
        mark = "" if not target else (" ✓" if seconds <= float(target) else " ✗")
        print(f"| {what:<58} | {shown:>9} | {(target + ' s' + mark) if target else '':>7} | {detail}")
    print(json.dumps({"filled": filled, "rows": rows}, default=str), file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tempfile.tempdir = tempfile.gettempdir()
    sys.exit(main())
