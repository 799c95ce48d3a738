"""The benchmark's steps, each run in its own process: `python -m tests.benchmarks.steps STEP ARGS…`.

Each prints one JSON line (times in seconds, peak memory in MB of this process).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import sqlite3
import sys
import time
from pathlib import Path

from tests.benchmarks.measure import peak_mb, timed


def generate(home: str, size: str, seed: str) -> dict:
    from tests.benchmarks.generate import generate as gen

    root = Path(home)
    t = time.perf_counter()
    if not (root / ".done").exists():
        info = gen(root, int(size), int(seed))
        (root / ".done").write_text(json.dumps(info))
    info = json.loads((root / ".done").read_text())
    info["files"] = sum(1 for _ in root.rglob("*.jsonl"))
    info["seconds"] = time.perf_counter() - t
    return info


def floor(home: str, db: str) -> dict:
    """The same bytes read, parsed and inserted as rows of a bare table: what import is compared with."""
    import orjson

    from sessionscope.sources.claude_code import session_files

    Path(db).unlink(missing_ok=True)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE event (pk INTEGER PRIMARY KEY, id TEXT, session_id TEXT, seq INT, payload TEXT)")
    t = time.perf_counter()
    for path in session_files(Path(home)):
        rows = []
        with open(path, "rb") as fh:
            for seq, raw in enumerate(fh):
                obj = orjson.loads(raw)
                rows.append((obj.get("uuid"), obj.get("sessionId"), seq, raw.decode()))
        con.execute("BEGIN")
        con.executemany("INSERT INTO event (id, session_id, seq, payload) VALUES (?, ?, ?, ?)", rows)
        con.execute("COMMIT")
    return {"seconds": time.perf_counter() - t, "peak_mb": peak_mb()}


def do_import(home: str, db: str) -> dict:
    from sessionscope import open_store
    from sessionscope.sources.claude_code import import_paths

    Path(db).unlink(missing_ok=True)
    store = open_store(db)
    t = time.perf_counter()
    report = import_paths(store, [home])
    seconds = time.perf_counter() - t
    with store.reader() as conn:  # what keeping Claude Code's file checkpoints adds to the store
        blobs, blob_bytes = conn.exec_driver_sql("SELECT count(*), coalesce(sum(length(data)), 0) FROM file_blob").first()
    store.close()  # the WAL checkpointed into the file: its size is the store's
    store_bytes = sum(os.path.getsize(p) for p in (db, f"{db}-wal") if os.path.exists(p))
    # a big import reads its files in a process of its own (sessionscope.sources.claude_code.reader)
    reader_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"seconds": seconds, "events": report.events_added, "bad": report.bad_lines, "peak_mb": peak_mb(),
            "reader_peak_mb": reader_mb,
            "blobs": blobs, "blob_bytes": blob_bytes, "store_bytes": store_bytes}


def other_tool(tool: str, home: str, size: str, db: str) -> dict:
    """A generated home of another tool (codex, gemini, langgraph, cline, aider, openhands) imported
    through the content-recognising import, as `scan` does."""
    from sessionscope import open_store
    from sessionscope.sources.importing import import_paths
    from tests.benchmarks import generate_more
    from tests.benchmarks import generate_tools as gen
    root = Path(home)
    make = getattr(gen, f"generate_{tool}", None) or getattr(generate_more, f"generate_{tool}")
    info = make(root, int(size)) if not root.exists() else \
        {"bytes": sum(p.stat().st_size for p in root.rglob("*") if p.is_file()),
         "files": sum(1 for p in root.rglob("*") if p.is_file())}
    Path(db).unlink(missing_ok=True)
    store = open_store(db)
    t = time.perf_counter()
    report = import_paths(store, [root])
    return {**info, "seconds": time.perf_counter() - t, "events": report.events_added, "peak_mb": peak_mb()}


def blame_step(store, folder: Path, lines: int = 2000, sessions: int = 200) -> dict:
    """A 2,000-line file written by one session and edited by 199 more (10 lines each, chained as agents' edits
    chain), then blamed: the first blame folds every session of the store not folded yet; then the blame alone; and
    how many lines it attributed to the session the benchmark knows wrote them."""
    import random
    rng = random.Random(7)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "big_module.py"
    now = [f"value_{i} = compute({i}, 'first')" for i in range(lines)]
    author = [0] * lines
    sids = []
    for n in range(sessions):
        sid = store.open_session(title=f"blame bench {n}", cwd=str(folder)).id
        sids.append(sid)
        ts = 1_780_000_000 + n * 600
        if n == 0:
            payload = {"id": "w", "name": "Write", "input": {"file_path": str(path), "content": "\n".join(now) + "\n"}}
            store.append(sid, "tool_call", role="assistant", text="Write", ts=ts, payload=payload)
            continue
        for k in range(10):
            i = rng.randrange(lines - 1)
            new = [f"value_{i} = compute({i}, 'by {n}.{k}')", now[i + 1]]
            payload = {"id": f"e{k}", "name": "Edit", "input": {"file_path": str(path), "old_string": "\n".join(now[i:i + 2]),
                                                              "new_string": "\n".join(new)}}
            store.append(sid, "tool_call", role="assistant", text="Edit", ts=ts + k, payload=payload)
            now[i], author[i] = new[0], n
    path.write_text("\n".join(now) + "\n")
    first, _ = timed(lambda: store.blame(str(path)))
    seconds, result = timed(lambda: store.blame(str(path)), 3)
    right = sum(1 for line, who in zip(result.lines, author)
                if line.change is not None and result.changes[line.change].session_id == sids[who])
    return {"blame_first": first, "blame": seconds, "blame_lines": lines, "blame_sessions": sessions,
            "blame_right": right / lines}


def queries(home: str, db: str, biggest: str) -> dict:
    os.environ["CLAUDE_CONFIG_DIR"] = str(Path(home).parent)
    from sessionscope import open_store
    from sessionscope.sources.claude_code import actions as claude_actions
    from sessionscope.sources.claude_code import import_paths

    store = open_store(db)
    out = {}
    out["rescan_idle"], _ = timed(lambda: import_paths(store, [home]), 3)
    target = next(Path(home).rglob(f"{biggest}.jsonl"))
    other = next(p for p in Path(home).rglob("*.jsonl") if p != target and "agent-" not in p.name)
    sid = other.stem
    line = json.dumps({"type": "user", "sessionId": sid, "uuid": f"bench-{time.time_ns()}", "parentUuid": None,
                       "timestamp": "2026-06-01T00:00:00.000Z", "message": {"role": "user", "content": "one more"}})
    with open(other, "a") as fh:
        fh.write(line + "\n")
    out["rescan_one"], report = timed(lambda: import_paths(store, [home]))
    out["rescan_one_bytes"] = report.bytes_read
    out["list"], sessions = timed(lambda: store.sessions(), 5)
    out["sessions"] = len(sessions)
    try:
        import claude_agent_sdk as sdk

        out["sdk_list"], _ = timed(lambda: sdk.list_sessions())
        out["sdk_messages"], msgs = timed(lambda: sdk.get_session_messages(biggest))
        out["sdk_message_count"] = len(msgs)
    except ImportError:
        out["sdk_list"] = out["sdk_messages"] = float("nan")
        out["sdk_message_count"] = 0

    def first_page():
        ids = store.branch_ids(biggest, skip_kinds=("progress", "meta"))
        return ids, store.events_by_ids(ids[:200])
    out["first_page"], (ids, _) = timed(first_page, 3)
    out["biggest_events"] = store.session(biggest).event_count
    # a part of a word: the first search after the import reads the store's words from its index (then kept)
    out["words_cold"], _ = timed(lambda: store.search("*factor*", limit=50))
    out["search_part"], _ = timed(lambda: store.search("*factor*", limit=50), 5)
    out["search_typo"], mended = timed(lambda: store.search("migraton", limit=50), 5)
    out["typo_mended"] = mended[0].did_you_mean if mended else ""
    out["search_common"], _ = timed(lambda: store.search("the", limit=50, order="time"), 5)
    out["search_rare"], _ = timed(lambda: store.search("zebracorn", limit=50, order="time"), 5)
    out["ranked_common"], _ = timed(lambda: store.search("the", limit=50), 5)
    out["ranked_operators"], _ = timed(lambda: store.search('"the test" OR fix -zebracorn kind:message since:3650d',
                                                            limit=50), 5)
    # tool outcomes: the first report folds every session (then cached); the next ones read the cache
    out["outcomes_cold"], rows = timed(lambda: store.tool_outcomes())
    out["outcomes_calls"] = sum(o.calls for o in rows)
    out["outcomes_cached"], _ = timed(lambda: store.tool_outcomes(), 3)
    # vital signs: a page of the list (what the list asks for the rows it paints), folded then cached; the biggest
    page = [s.id for s in sessions[:200]]
    out["vitals_page_cold"], _ = timed(lambda: store.vitals(page))
    out["vitals_page"], _ = timed(lambda: store.vitals(page), 3)
    out["vitals_page_n"] = len(page)
    from sessionscope.insight import vitals as vitals_mod
    with store.reader() as conn:
        out["vitals_biggest"], _ = timed(lambda: vitals_mod.fold(conn, biggest))
    out.update(blame_step(store, Path(db).parent / "blamed"))
    head = store.session(biggest).head_event_id
    # best of two each (each run writes a new 85 MB transcript): the first pays for importing its modules
    out["fork"], _ = timed(lambda: claude_actions.fork(store, biggest, head), 2)
    try:
        from claude_agent_sdk import fork_session

        out["sdk_fork"], _ = timed(lambda: fork_session(biggest), 2)
    except ImportError:
        out["sdk_fork"] = float("nan")
    return out


def postgres(home: str) -> dict:
    """The same import, list and searches on a throwaway PostgreSQL server (tests/postgres.py)."""
    from sessionscope import open_store
    from sessionscope.sources.claude_code import import_paths
    from tests import postgres as pg

    server = pg.start()
    if isinstance(server, str):
        return {"skipped": server}
    try:
        store = open_store(server.fresh_database())
        t = time.perf_counter()
        report = import_paths(store, [home])
        out = {"seconds": time.perf_counter() - t, "events": report.events_added, "peak_mb": peak_mb()}
        out["list"], sessions = timed(lambda: store.sessions(), 5)
        out["sessions"] = len(sessions)
        out["search_common"], _ = timed(lambda: store.search("the", limit=50, order="time"), 5)
        out["search_rare"], _ = timed(lambda: store.search("zebracorn", limit=50, order="time"), 5)
        out["ranked_common"], _ = timed(lambda: store.search("the", limit=50), 5)
        store.close()
        from tests.benchmarks.backends import members_importing
        out["members"] = members_importing(server, home)
        return out
    finally:
        server.stop()


def facts(db: str, n: str) -> dict:
    """A native session of n events, every 10th a fact: the fold at its head."""
    import uuid

    from sessionscope import open_store
    from sessionscope.store.ingest import NewEvent, SessionInfo, ingest

    Path(db).unlink(missing_ok=True)
    store = open_store(db)
    sid = store.open_session(title="long").id
    events, parent = [], None
    for i in range(int(n)):
        eid = str(uuid.UUID(int=i + 1))
        if i % 10 == 0:
            ev = NewEvent(eid, parent, 1e9 + i, "fact.set", payload=json.dumps({"key": f"k{i % 500}", "value": i}))
        else:
            ev = NewEvent(eid, parent, 1e9 + i, "message", "user", text=f"message {i}")
        events.append(ev)
        parent = eid
    store.write(lambda conn: ingest(conn, SessionInfo(sid, 1), events))
    store.write(lambda conn: conn.exec_driver_sql("UPDATE session SET head_event_id = ? WHERE id = ?", (parent, sid)))
    cold, _ = timed(lambda: store.head_facts(sid))  # nothing prepared: the fold from the root
    store.write(lambda conn: conn.exec_driver_sql("DELETE FROM fact_snapshot"))
    warm, _ = timed(lambda: store.warm([sid]))  # what an import does for the sessions it touched
    first, _ = timed(lambda: store.head_facts(sid))
    cached, _ = timed(lambda: store.head_facts(sid), 5)
    return {"first": first, "cached": cached, "cold": cold, "warm": warm, "session": sid}


@contextlib.contextmanager
def _the_app(home: str, db: str):
    """The real app's process over the store `db`, as a user starts it, the generated home its Claude Code folder
    (a scratch HOME of its own, removed after): its psutil.Process; ended when the block is."""
    import shutil
    import subprocess
    import tempfile

    import psutil
    scratch = Path(tempfile.mkdtemp(prefix="sessionscope-app-"))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(scratch), "CLAUDE_CONFIG_DIR": str(Path(home).parent),
           "XDG_CONFIG_HOME": str(scratch / "config"), "XDG_DATA_HOME": str(scratch / "data")}
    child = subprocess.Popen([sys.executable, "-m", "sessionscope.cli", "--store", db], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield psutil.Process(child.pid)
    finally:
        child.terminate()
        child.wait(30)
        shutil.rmtree(scratch, ignore_errors=True)


def idle(home: str, db: str, settle: str = "20", seconds: str = "20") -> dict:
    """The window at rest, as a user leaves it open: the real process over the store, watching the generated home as
    its Claude Code folder; after `settle` seconds (its first looks done), the CPU it and its children use over
    `seconds`, and the WAL beside the store then."""
    import psutil

    def cpu(proc) -> float:
        total = 0.0
        for p in [proc, *proc.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                continue
        return total
    with _the_app(home, db) as proc:
        time.sleep(float(settle))
        before, t = cpu(proc), time.monotonic()
        time.sleep(float(seconds))
        used, span = cpu(proc) - before, time.monotonic() - t
        wal = Path(f"{db}-wal")
        wal_mb = wal.stat().st_size / 1e6 if wal.exists() else 0.0
    with sqlite3.connect(db) as conn:
        sessions = conn.execute("SELECT count(*) FROM session").fetchone()[0]
    return {"core": used / span, "seconds": span, "wal_mb": wal_mb, "sessions": sessions}


def first_import(home: str, db: str, most: str = "120") -> dict:
    """The app's first run as a user starts it: the real process on an empty store, the generated home its Claude
    Code folder; the resident memory of the process and its children (the import's) summed every 50 ms, until the
    store holds sessions, its count has stayed for a second and no child is left. Its peak is the issue's
    "window + its import process" (#61: 502–519 MB on a 124 MB home then)."""
    import psutil
    for old in Path(db).parent.glob(Path(db).name + "*"):
        old.unlink()

    def tree(proc) -> tuple[float, int]:
        total, kids = 0, proc.children(recursive=True)
        for p in [proc, *kids]:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                continue
        return total / 1e6, len(kids)

    def stored() -> int:
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2) as conn:
                return conn.execute("SELECT count(*) FROM session").fetchone()[0]
        except sqlite3.Error:
            return 0
    peak, began, last, since = 0.0, time.monotonic(), -1, time.monotonic()
    with _the_app(home, db) as proc:
        while time.monotonic() - began < float(most):
            rss, kids = tree(proc)
            peak = max(peak, rss)
            now = stored()
            if now != last or kids:
                last, since = now, time.monotonic()
            elif now and time.monotonic() - since >= 1.0:
                break
            time.sleep(0.05)
        took = since - began
    return {"peak_mb": peak, "seconds": took, "sessions": stored()}


def export(db: str, session: str, fmt: str, redact: str, out: str) -> dict:
    """One export in its own process: time, size, and this process's peak memory."""
    from sessionscope import open_store
    from sessionscope.export.core import ExportRequest
    from sessionscope.export.core import export as run_export

    store = open_store(db)
    baseline = peak_mb()
    seconds, report = timed(lambda: run_export(store, ExportRequest(fmt, (session,), redact=redact == "1"), out))
    Path(out).unlink(missing_ok=True)
    return {"seconds": seconds, "events": report.events, "bytes": report.bytes, "peak_mb": peak_mb(),
            "baseline_mb": baseline, "secrets": sum(f.count for f in report.findings)}


from tests.benchmarks.backends import (  # noqa: E402
    agents_backend,
    backends_on_postgres,
    claude_backend,
    langgraph_backend,
)
from tests.benchmarks.window import cold_start, gui, gui_store, live_states  # noqa: E402


def mcp_search(db: str) -> dict:
    """`sessionscope mcp` started as an agent starts it, driven by the SDK's client: its start (until initialized)
    and a search call's round trip (median of 20, redaction included)."""
    import asyncio
    import os
    import statistics

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "sessionscope.cli", "--store", db, "mcp"],
                                   env=dict(os.environ))

    async def main() -> dict:
        t = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            started = time.perf_counter() - t
            times = []
            for word in ["the", "test", "fix", "error", "zebracorn"] * 4:
                t = time.perf_counter()
                result = await session.call_tool("search", {"query": word, "limit": 20})
                assert not result.is_error, result.content
                times.append(time.perf_counter() - t)
        return {"start": started, "search": statistics.median(times)}
    return asyncio.run(main())


def stand_in_model(folder: Path, texts: list[str], vocab: int = 30522, dim: int = 256) -> Path:
    """A model of the default model's shape (potion-base-8M: a WordPiece vocabulary of 30,522, 256 dimensions) in
    model2vec's format, its vocabulary learned from `texts` and topped up to size, its vectors random: it costs
    what the real one costs in time, disk and memory (no network here to fetch the real one); its answers mean
    nothing."""
    import numpy as np
    from model2vec import StaticModel
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=vocab, special_tokens=["[UNK]", "[PAD]"]))
    have = tok.get_vocab_size()
    rng = np.random.default_rng(7)
    if have < vocab:  # a small corpus learns few pieces: the rest as made-up words, so the table has the real size
        tok.add_tokens([f"zz{i:05d}" for i in range(vocab - have)])
    vectors = rng.normal(size=(tok.get_vocab_size(), dim)).astype(np.float32)
    StaticModel(vectors, tok, normalize=True).save_pretrained(folder)
    return folder


def semantic(db: str, work: str) -> dict:
    """Search by meaning on a copy of the imported store, one core: embedding throughput, the store's growth, the
    index's memory, hybrid search and sessions like this one."""
    for var in ("RAYON_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"  # one core: the tokenizer's threads too
    import statistics

    from sessionscope import open_store, ops
    from sessionscope.recall import semantic as sem

    copy = Path(work) / "semantic.db"
    from sessionscope.store import dictionaries, payloads
    with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
        dictionaries.watch_file(str(db))
        payloads.register_sql(src)  # (an event's text may be packed)
        sample = [t for (t,) in src.execute("SELECT substr(plain_text(text), 1, 2000) FROM event WHERE kind = 'message' "
                                            "ORDER BY pk LIMIT 20000")]
    t = time.perf_counter()
    model = stand_in_model(Path(work) / "stand-in-model", sample)
    built = time.perf_counter() - t
    with sqlite3.connect(copy) as raw:
        events = raw.execute("SELECT count(*) FROM event").fetchone()[0]
    before = copy.stat().st_size
    with open_store(copy) as store:
        ops.set_semantic(store, sem.Config(enabled=True, model=str(model)))
        t = time.perf_counter()
        outcome = ops.embed(store)
        seconds = time.perf_counter() - t
        with sqlite3.connect(copy) as raw:
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            vector_bytes = raw.execute("SELECT sum(length(vector)) FROM embedding").fetchone()[0]
        grown = copy.stat().st_size - before
        t = time.perf_counter()
        store.search("timeout retry", limit=50)
        first = time.perf_counter() - t
        with store.reader() as conn:
            idx = sem.index(store, conn)
        index_mb = (idx.matrix.nbytes + idx.scales.nbytes + idx.ids.nbytes + idx.event_pks.nbytes
                    + idx.session_codes.nbytes) / 1e6
        words = ["the", "test", "fix", "error", "cache timeout", "why does the migration fail", "zebracorn"] * 3
        hybrid, keyword = [], []
        for w in words:
            t = time.perf_counter()
            store.search(w, limit=50)
            hybrid.append(time.perf_counter() - t)
        ops.set_semantic(store, sem.Config(enabled=False, model=str(model)))
        for w in words:
            t = time.perf_counter()
            store.search(w, limit=50)
            keyword.append(time.perf_counter() - t)
        ops.set_semantic(store, sem.Config(enabled=True, model=str(model)))
        biggest = max(store.sessions(limit=1000), key=lambda s: s.event_count).id
        t = time.perf_counter()
        sem.similar_sessions(store, biggest)
        similar_first = time.perf_counter() - t
        t = time.perf_counter()
        sem.similar_sessions(store, biggest)
        similar = time.perf_counter() - t
    return {"events": events, "texts": outcome.embedded, "seconds": seconds, "model_build": built,
            "store_growth": grown, "vector_bytes": vector_bytes, "index_mb": index_mb, "first_search": first,
            "hybrid": statistics.median(hybrid), "keyword": statistics.median(keyword),
            "similar_first": similar_first, "similar": similar, "peak_mb": peak_mb()}


STEPS = {"generate": generate, "live_states": live_states, "idle": idle, "first_import": first_import,
         "mcp_search": mcp_search, "semantic": semantic, "other_tool": other_tool, "floor": floor,
         "import": do_import, "queries": queries,
         "postgres": postgres, "facts": facts, "gui": gui, "gui_store": gui_store, "cold_start": cold_start,
         "export": export, "agents_backend": agents_backend,
         "langgraph_backend": langgraph_backend, "claude_backend": claude_backend,
         "backends_on_postgres": backends_on_postgres}

if __name__ == "__main__":
    print(json.dumps(STEPS[sys.argv[1]](*sys.argv[2:])))
